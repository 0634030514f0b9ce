package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// overflowJob fails at run time: the sum of its two rows leaves BIGINT.
// Its SELECT is on lines 4 to 6.
const overflowJob = `CREATE TABLE c (k STRING, v BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');

SELECT k, SUM(v)
FROM c
GROUP BY k;
`

// TestRuntimeErrorPointsAtItsSQL: an operator's runtime error names the
// operator and says where in the job (run) or the session (shell) its SQL
// is, as a parse error would.
func TestRuntimeErrorPointsAtItsSQL(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(data, []byte("x,9223372036854775807\nx,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(overflowJob, data)
	// The line of the position must be one of the SELECT's.
	check := func(what, name string, r result) {
		t.Helper()
		re := regexp.MustCompile(regexp.QuoteMeta(name) + `:(\d+):\d+: runtime error in GroupAggregate\(k\): SUM\(v\): the sum leaves BIGINT's range`)
		m := re.FindStringSubmatch(r.stderr)
		if r.code != 1 || m == nil {
			t.Fatalf("%s: want exit 1 and %s:LINE:COL: runtime error in GroupAggregate(k): …, got:\n%s", what, name, r)
		}
		if line, _ := strconv.Atoi(m[1]); line < 4 || line > 6 {
			t.Errorf("%s: the error points at line %d, outside the SELECT (lines 4-6):\n%s", what, line, r.stderr)
		}
	}
	path := writeJobIn(t, dir, "job.sql", text)
	check("run", path, invoke("run", path))
	check("shell", "<stdin>", invokeShell(t, text))
}
