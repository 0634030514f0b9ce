package planner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
)

// TestFileConflictsThroughLinks: a sink on the job's input reached through
// a symbolic link (to the file, or to a directory on the way), a hard link
// or an absolute path is refused (SQL410), with paths taken from the job
// file's directory, not the current one. The golden file testdata/files
// has the spellings that need no real files.
func TestFileConflictsThroughLinks(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "data.json"), []byte(`{"id":"a"}`+"\n"), 0o644))
	must(os.Symlink("data.json", filepath.Join(dir, "link.json")))
	must(os.Mkdir(filepath.Join(dir, "real"), 0o755))
	must(os.Symlink("real", filepath.Join(dir, "linkdir")))
	must(os.Link(filepath.Join(dir, "data.json"), filepath.Join(dir, "hard.json")))

	job := func(sinkPath, other string) *Job {
		text := fmt.Sprintf(`CREATE TABLE src (id STRING) WITH ('connector' = 'filesystem', 'path' = 'data.json', 'format' = 'json');
CREATE TABLE out1 (id STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
CREATE TABLE out2 (id STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
INSERT INTO out1 SELECT id FROM src;
INSERT INTO out2 SELECT id FROM src;
`, sinkPath, other)
		return checkJob(diag.NewSource(filepath.Join(dir, "job.sql"), text))
	}
	for _, c := range []struct {
		out1, out2 string
		want       string // the first error's message, "" for none
	}{
		{"link.json", "o2.json", "sink out1 writes link.json, which table src reads"},
		{"hard.json", "o2.json", "sink out1 writes hard.json, which table src reads"},
		{filepath.Join(dir, "data.json"), "o2.json", "which table src reads"},
		{"file://" + filepath.Join(dir, "link.json"), "o2.json", "which table src reads"},
		// Neither exists: the directory's link is followed.
		{"real/new.json", "linkdir/new.json", "sink out2 writes linkdir/new.json, the file sink out1 writes"},
		{"real/new.json", "real/other.json", ""},
	} {
		j := job(c.out1, c.out2)
		var got string
		for _, d := range j.Diags.Items {
			if d.Severity == diag.Error {
				if d.Code != diag.FileConflict {
					t.Fatalf("%s, %s: unexpected %s: %s", c.out1, c.out2, d.Code, d.Msg)
				}
				if got == "" {
					got = d.Msg
				}
			}
		}
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s, %s: got %q, want %q", c.out1, c.out2, got, c.want)
		}
	}
}
