// Package docs_test checks that the documentation in docs/*.md stays true:
// every SQL example is run through the checker, and docs/errors.md documents
// exactly the registered diagnostic codes.
//
// Fenced blocks tagged ```sql are checked one by one, each as a complete job
// file:
//
//	```sql                  must give no errors (warnings are allowed)
//	```sql error=SQL301     must give at least one error with code SQL301
//	```sql warning=SQL310   must give at least one warning with code SQL310
//	                        and no errors
//	```sql env=A,B          is checked with the environment variables A and B
//	                        set (to "example-A", ...), for examples that
//	                        read secrets with ${A}; combines with the above
//
// Any other tag after sql is a mistake in the docs and fails the test.
//
// A block that shows what the ```sql block just before it prints (only
// blank lines may separate them) is tagged, and must match exactly, up to
// trailing whitespace:
//
//	```text output          the diagnostics, as `streamsql check job.sql`
//	                        prints them in text mode (diag.WriteText), the
//	                        block being the whole of job.sql
//	```text explain         the plans and then the diagnostics, in the
//	                        format of the planner's golden files
//	                        (explainOutput in planner/explain_test.go):
//	                        "line N:" and the plan's tree for each INSERT
//	                        and query, then the diagnostics; "ok" if none
//	```text physical        the physical plans and then the diagnostics
//	                        (physicalOutput in planner/explain_test.go)
//
// A plain ```text block directly after a ```sql block fails the test: tag
// it, or put prose between them if it is not that block's output.
//
// go test ./docs -rewrite (or make rewrite) replaces the body of every
// output and explain block with what the checker prints now; review the
// diff, and the prose around it, like code.
package docs_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/planner"

	// The connector runtimes, as the binary links them: check reports what
	// they refuse.
	_ "github.com/streamsql/streamsql/connectors/blackhole"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	_ "github.com/streamsql/streamsql/connectors/filesystem"
	_ "github.com/streamsql/streamsql/connectors/jdbc"
	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/connectors/nexmark"
	_ "github.com/streamsql/streamsql/connectors/print"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the ```text output and ```text explain blocks of docs/*.md with what the checker prints")

// fence is one fenced block of a markdown file.
type fence struct {
	file  string
	line  int      // line of the opening fence, 1-based
	end   int      // line of the closing fence, 1-based
	info  []string // the info string's words: "sql", "error=SQL301"
	env   []string // variables the block reads (env=A,B)
	text  string   // the body, each line ending in a newline
	after *fence   // the ```sql block this one directly follows, if any
}

func (b *fence) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

func (b *fence) lang() string {
	if len(b.info) == 0 {
		return ""
	}
	return b.info[0]
}

// block is one ```sql fenced block of a markdown file.
type block struct {
	*fence
	// want is "" for a block that must check cleanly, otherwise the severity
	// ("error" or "warning") and code the block must produce.
	wantSev  string
	wantCode diag.Code
	problem  string // a malformed fence
}

var tagRE = regexp.MustCompile(`^(error|warning)=(SQL\d{3})$`)

// fences extracts every fenced block of the markdown file path. A block
// opens with ``` and an optional info string and closes with a line of
// ``` alone, as in CommonMark.
func fences(t *testing.T, path string) []*fence {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out  []*fence
		cur  *fence
		prev *fence // the last closed block, while only blank lines follow it
		body strings.Builder
		n    int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		trim := strings.TrimSpace(line)
		switch {
		case cur != nil && trim == "```":
			cur.text, cur.end = body.String(), n
			out = append(out, cur)
			prev, cur = cur, nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		case strings.HasPrefix(trim, "```"):
			cur = &fence{file: path, line: n, info: strings.Fields(strings.TrimPrefix(trim, "```"))}
			if prev != nil && prev.lang() == "sql" {
				cur.after = prev
			}
			body.Reset()
		case trim != "":
			prev = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s: ```%s block is never closed", cur.where(), cur.lang())
	}
	return out
}

// sqlBlocks extracts every ```sql block from the markdown file path.
func sqlBlocks(t *testing.T, path string) []block {
	t.Helper()
	var out []block
	for _, f := range fences(t, path) {
		if f.lang() != "sql" {
			continue
		}
		b := block{fence: f}
		for _, tag := range f.info[1:] {
			if names, ok := strings.CutPrefix(tag, "env="); ok {
				f.env = strings.Split(names, ",")
				continue
			}
			m := tagRE.FindStringSubmatch(tag)
			switch {
			case m == nil:
				b.problem = fmt.Sprintf("unknown fence tag %q (want error=SQLnnn or warning=SQLnnn)", tag)
			case b.wantSev != "":
				b.problem = "more than one expectation on the fence"
			default:
				b.wantSev, b.wantCode = m[1], diag.Code(m[2])
			}
		}
		out = append(out, b)
	}
	return out
}

func format(l *diag.List) string {
	var b strings.Builder
	if err := diag.WriteText(&b, l); err != nil {
		return err.Error()
	}
	if b.Len() == 0 {
		return "    (no diagnostics)\n"
	}
	return b.String()
}

func registered() map[diag.Code]string {
	m := map[diag.Code]string{}
	for _, c := range diag.Codes() {
		m[c.Code] = c.Title
	}
	return m
}

// TestSQLExamples checks every ```sql block of docs/*.md.
func TestSQLExamples(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := registered()
	total := 0
	perFile := map[string]int{}
	for _, file := range files {
		for _, b := range sqlBlocks(t, file) {
			total++
			perFile[file]++
			if b.problem != "" {
				t.Errorf("%s: %s", b.where(), b.problem)
				continue
			}
			if b.wantCode != "" {
				if _, ok := codes[b.wantCode]; !ok {
					t.Errorf("%s: expects %s, which is not a registered code", b.where(), b.wantCode)
					continue
				}
			}
			// Blank lines in front of the block keep the diagnostics' line
			// numbers those of the markdown file.
			var l *diag.List
			withEnv(t, b.fence, func() { l = checkJob(diag.NewSource(b.file, strings.Repeat("\n", b.line)+b.text)) })
			errs, hit := 0, false
			for _, d := range l.Items {
				if d.Severity == diag.Error {
					errs++
				}
				if d.Code == b.wantCode && d.Severity.String() == b.wantSev {
					hit = true
				}
			}
			switch {
			case b.wantSev == "" && errs > 0:
				t.Errorf("%s: example must check without errors, got:\n%s", b.where(), format(l))
			case b.wantSev != "" && !hit:
				t.Errorf("%s: example must produce %s %s, got:\n%s", b.where(), b.wantSev, b.wantCode, format(l))
			case b.wantSev == "warning" && errs > 0:
				t.Errorf("%s: example must produce only warnings, got:\n%s", b.where(), format(l))
			}
		}
	}
	for _, want := range []string{"sql.md", "errors.md"} {
		if perFile[want] == 0 {
			t.Errorf("%s: no ```sql examples found", want)
		}
	}
	t.Logf("checked %d SQL examples in %d files", total, len(files))
}

// checkJob checks a job file as `streamsql check` does: the planner's
// checks, then what the connector runtimes refuse.
func checkJob(src *diag.Source) *diag.List {
	j := frontend.CheckJob(src)
	var run []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			run = append(run, p)
		}
	}
	phys, err := planner.Lower(run)
	if err != nil {
		j.Diags.Errorf(diag.SinkNotWritable, diag.NoSpan, "%v", err)
	}
	exec.ReportConnectors(phys, exec.Options{BaseDir: filepath.Dir(src.Name)}, j.Diags)
	j.Diags.Sort()
	return j.Diags
}

// withEnv runs fn with the environment variables of the block set, and
// puts the environment back after.
func withEnv(t *testing.T, f *fence, fn func()) {
	t.Helper()
	restore := map[string]*string{}
	for _, name := range f.env {
		if old, had := os.LookupEnv(name); had {
			restore[name] = &old
		} else {
			restore[name] = nil
		}
		if err := os.Setenv(name, "example-"+name); err != nil {
			t.Fatal(err)
		}
	}
	fn()
	for name, old := range restore {
		if old != nil {
			_ = os.Setenv(name, *old)
		} else {
			_ = os.Unsetenv(name)
		}
	}
}

// checkOutput is what `streamsql check` prints, in text mode, for the
// job file job.sql holding sql.
func checkOutput(sql string) string {
	var b strings.Builder
	if err := diag.WriteText(&b, checkJob(diag.NewSource("job.sql", sql))); err != nil {
		return err.Error()
	}
	return b.String()
}

// explainOutput renders the plans and diagnostics of the job file job.sql
// holding sql in the format of the planner's golden files; keep it the same
// as explainOutput in planner/explain_test.go.
func explainOutput(sql string) string {
	src := diag.NewSource("job.sql", sql)
	j := frontend.CheckJob(src)
	var b strings.Builder
	for _, p := range j.Session.Plans {
		line, _ := src.Position(p.Stmt.Span().Start)
		fmt.Fprintf(&b, "line %d:\n%s", line, p.Text())
	}
	_ = diag.WriteText(&b, j.Diags)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

// physicalOutput renders the physical plans (planner.Lower, the job's
// INSERTs and SELECTs lowered together as exec gets them) and the
// diagnostics of the job file job.sql holding sql; keep it the same as
// physicalOutput in planner/explain_test.go.
func physicalOutput(sql string) string {
	src := diag.NewSource("job.sql", sql)
	j := frontend.CheckJob(src)
	var b strings.Builder
	var run []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			run = append(run, p)
		}
	}
	phys, err := planner.Lower(run)
	if err != nil {
		fmt.Fprintf(&b, "lowering: %v\n", err)
	}
	for i, p := range phys {
		line, _ := src.Position(run[i].Stmt.Span().Start)
		fmt.Fprintf(&b, "line %d:\n%s", line, physical.Text(p))
	}
	_ = diag.WriteText(&b, j.Diags)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

// normalize drops trailing whitespace from every line and trailing blank
// lines, and ends every line in a newline.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// lineDiff renders a line diff of want and got: "-" lines are only in the
// docs, "+" lines only in the real output.
func lineDiff(want, got string) string {
	a := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	b := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if want == "" {
		a = nil
	}
	if got == "" {
		b = nil
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			fmt.Fprintf(&out, "  %s\n", a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&out, "- %s\n", a[i])
			i++
		default:
			fmt.Fprintf(&out, "+ %s\n", b[j])
			j++
		}
	}
	return out.String()
}

// TestOutputBlocks checks every ```text output and ```text explain block of
// docs/*.md against what the ```sql block before it prints, and with
// -rewrite replaces them with it.
func TestOutputBlocks(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, file := range files {
		type edit struct {
			f   *fence
			got string
		}
		var edits []edit
		for _, f := range fences(t, file) {
			if f.lang() != "text" {
				continue
			}
			if len(f.info) == 1 {
				if f.after != nil {
					t.Errorf("%s: a plain ```text block directly after the ```sql block of line %d: tag it "+
						"```text output or ```text explain if it shows what that block prints, or put prose between them",
						f.where(), f.after.line)
				}
				continue
			}
			if len(f.info) > 2 || (f.info[1] != "output" && f.info[1] != "explain" && f.info[1] != "physical") {
				t.Errorf("%s: unknown fence tags %q (want ```text output, ```text explain or ```text physical)", f.where(), f.info[1:])
				continue
			}
			if f.after == nil {
				t.Errorf("%s: a ```text %s block must directly follow a ```sql block (only blank lines between them)",
					f.where(), f.info[1])
				continue
			}
			total++
			var got string
			switch f.info[1] {
			case "output":
				withEnv(t, f.after, func() { got = checkOutput(f.after.text) })
			case "explain":
				withEnv(t, f.after, func() { got = explainOutput(f.after.text) })
			default:
				withEnv(t, f.after, func() { got = physicalOutput(f.after.text) })
			}
			got = normalize(got)
			if want := normalize(f.text); want != got {
				if *rewrite {
					edits = append(edits, edit{f, got})
					continue
				}
				t.Errorf("%s: the ```text %s block is not what the ```sql block of line %d prints "+
					"(- in the docs, + printed; go test ./docs -rewrite updates it):\n%s",
					f.where(), f.info[1], f.after.line, lineDiff(want, got))
			}
		}
		if len(edits) == 0 {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		var out strings.Builder
		next := 0 // index into lines
		for _, e := range edits {
			// Keep everything up to and including the opening fence, then
			// the new body; the closing fence follows.
			for ; next < e.f.line; next++ {
				out.WriteString(lines[next])
			}
			out.WriteString(e.got)
			next = e.f.end - 1
		}
		for ; next < len(lines); next++ {
			out.WriteString(lines[next])
		}
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: rewrote %d output blocks", file, len(edits))
	}
	t.Logf("checked %d output blocks", total)
}

var headingRE = regexp.MustCompile(`^##\s+(SQL\d+)\s+—\s+(.+?)\s*$`)

// TestErrorCodesDocumented keeps docs/errors.md and diag.Codes() in step.
func TestErrorCodesDocumented(t *testing.T) {
	data, err := os.ReadFile("errors.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := registered()
	seen := map[diag.Code]int{}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "## SQL") && !headingRE.MatchString(line) {
			t.Errorf("errors.md:%d: heading %q should read \"## SQLnnn — title\"", i+1, line)
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := diag.Code(m[1])
		title, ok := codes[c]
		switch {
		case !ok:
			t.Errorf("errors.md:%d: %s is not a registered code (see diag/codes.go)", i+1, c)
		case m[2] != title:
			t.Errorf("errors.md:%d: %s is titled %q here but %q in diag/codes.go", i+1, c, m[2], title)
		}
		if prev, dup := seen[c]; dup {
			t.Errorf("errors.md:%d: %s is documented twice (also line %d)", i+1, c, prev)
		}
		seen[c] = i + 1
	}
	for _, c := range diag.Codes() {
		if _, ok := seen[c.Code]; !ok {
			t.Errorf("errors.md: no heading for %s (%s); add \"## %s — %s\"", c.Code, c.Title, c.Code, c.Title)
		}
	}
}
