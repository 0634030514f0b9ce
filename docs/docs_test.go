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
//
// Any other tag after sql is a mistake in the docs and fails the test.
package docs_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/planner"
)

// block is one ```sql fenced block of a markdown file.
type block struct {
	file string
	line int // line of the opening fence, 1-based
	// want is "" for a block that must check cleanly, otherwise the severity
	// ("error" or "warning") and code the block must produce.
	wantSev  string
	wantCode diag.Code
	text     string
	problem  string // a malformed fence
}

func (b block) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var tagRE = regexp.MustCompile(`^(error|warning)=(SQL\d{3})$`)

// sqlBlocks extracts every ```sql block from the markdown file path.
func sqlBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out   []block
		cur   *block
		inAny bool // inside a fenced block of another language
		body  strings.Builder
		n     int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		trim := strings.TrimSpace(line)
		switch {
		case cur != nil && trim == "```":
			cur.text = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		case inAny && strings.HasPrefix(trim, "```"):
			inAny = false
		case inAny:
		case strings.HasPrefix(trim, "```"):
			info := strings.Fields(strings.TrimPrefix(trim, "```"))
			if len(info) == 0 || info[0] != "sql" {
				inAny = true
				continue
			}
			cur = &block{file: path, line: n}
			body.Reset()
			for _, tag := range info[1:] {
				m := tagRE.FindStringSubmatch(tag)
				switch {
				case m == nil:
					cur.problem = fmt.Sprintf("unknown fence tag %q (want error=SQLnnn or warning=SQLnnn)", tag)
				case cur.wantSev != "":
					cur.problem = "more than one expectation on the fence"
				default:
					cur.wantSev, cur.wantCode = m[1], diag.Code(m[2])
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s: ```sql block is never closed", cur.where())
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
			l := planner.CheckSource(diag.NewSource(b.file, strings.Repeat("\n", b.line)+b.text))
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
