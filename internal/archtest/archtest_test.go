package archtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/streamsql/streamsql"

// rule is one constraint on a package of the module (paths are relative to
// the module; a path outside it, such as "github.com/pingcap/tidb", stands
// for itself and every package under it).
type rule struct {
	pkg string
	// only, when set, lists the packages of the module pkg may import
	// directly; the standard library is always allowed, anything else is not.
	only []string
	// never lists packages pkg may not depend on, directly or not.
	never []string
	why   string
}

// rules are the layering the code keeps. Add to them; do not relax one
// without changing docs/architecture.md.
var rules = []rule{
	{
		pkg:  "connector",
		only: []string{"row", "types"},
		why:  "the connector interface is a leaf that codecs, connector runtimes and exec all import",
	},
	{
		pkg:  "civil",
		only: []string{"row"},
		why:  "the calendar and the date/time reader are shared by eval, format and connectors",
	},
	{
		pkg:  "decimal",
		only: []string{},
		why:  "the decimal parser is shared by eval, format and datagen",
	},
	{
		pkg:   "format",
		never: []string{"exec", "parser", "planner", "logical", "catalog", "state", "connectors", "github.com/pingcap/tidb", "github.com/dgraph-io/badger"},
		why:   "a codec depends on rows and types only",
	},
	{
		pkg:   "planner",
		never: []string{"parser", "github.com/pingcap/tidb"},
		why:   "the planner plans statements; parsing is frontend's",
	},
	{
		pkg:   "exec",
		never: []string{"planner", "logical", "catalog", "parser", "frontend", "github.com/pingcap/tidb"},
		why:   "exec builds operators from the physical plan; every fact it needs is decided by the planner",
	},
	{
		pkg:  "physical",
		only: []string{"changelogmode", "connector", "diag", "expr", "types"},
		why:  "the physical plan is the contract between planner and runtime: it depends on neither",
	},
}

// pkgInfo is what go list says of a package.
type pkgInfo struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// graph maps an import path to its package.
type graph map[string]*pkgInfo

func loadGraph(t *testing.T) graph {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Standard", module+"/...")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g := graph{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		g[p.ImportPath] = &p
	}
	return g
}

// full turns a rule's path into an import path.
func full(p string) string {
	if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
		return p
	}
	return module + "/" + p
}

// matches reports whether import path ip is pattern or under it.
func matches(ip, pattern string) bool {
	return ip == pattern || strings.HasPrefix(ip, pattern+"/")
}

// short strips the module from an import path, for messages.
func short(ip string) string { return strings.TrimPrefix(ip, module+"/") }

// chain returns the shortest import chain from 'from' to a package
// matching pattern, or nil.
func (g graph) chain(from, pattern string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		ip := queue[0]
		queue = queue[1:]
		if ip != from && matches(ip, pattern) {
			var path []string
			for ; ip != ""; ip = prev[ip] {
				path = append(path, short(ip))
			}
			slices.Reverse(path)
			return path
		}
		p := g[ip]
		if p == nil {
			continue
		}
		for _, imp := range p.Imports {
			if _, seen := prev[imp]; !seen {
				prev[imp] = ip
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// check returns every way g breaks r.
func (g graph) check(r rule) []string {
	from := full(r.pkg)
	p := g[from]
	if p == nil {
		return []string{fmt.Sprintf("%s: no such package (a rule names it)", r.pkg)}
	}
	var bad []string
	if r.only != nil {
		for _, imp := range p.Imports {
			dep := g[imp]
			if dep != nil && dep.Standard {
				continue
			}
			if !slices.ContainsFunc(r.only, func(o string) bool { return imp == full(o) }) {
				bad = append(bad, fmt.Sprintf("%s may import only %s and the standard library: %s → %s (%s)",
					r.pkg, strings.Join(r.only, ", "), r.pkg, short(imp), r.why))
			}
		}
	}
	for _, n := range r.never {
		if c := g.chain(from, full(n)); c != nil {
			bad = append(bad, fmt.Sprintf("%s must not depend on %s: %s (%s)", r.pkg, n, strings.Join(c, " → "), r.why))
		}
	}
	return bad
}

func TestImportRules(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules {
		for _, msg := range g.check(r) {
			t.Error(msg)
		}
	}
}

// TestCheckFindsEdges shows the checker fails where it should, on a made-up
// graph: a forbidden edge two steps away, and a direct import outside the
// allowed list.
func TestCheckFindsEdges(t *testing.T) {
	g := graph{}
	add := func(ip string, std bool, imports ...string) {
		g[ip] = &pkgInfo{ImportPath: ip, Standard: std, Imports: imports}
	}
	add("fmt", true)
	add(full("format"), false, "fmt", full("connector"))
	add(full("connector"), false, full("row"), full("exec"))
	add(full("row"), false)
	add(full("exec"), false, "github.com/pingcap/tidb/pkg/parser")
	add("github.com/pingcap/tidb/pkg/parser", false)

	got := g.check(rule{pkg: "format", never: []string{"exec", "github.com/pingcap/tidb", "planner"}, why: "test"})
	want := []string{
		"format must not depend on exec: format → connector → exec (test)",
		"format must not depend on github.com/pingcap/tidb: format → connector → exec → github.com/pingcap/tidb/pkg/parser (test)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("never rule:\n got %q\nwant %q", got, want)
	}
	got = g.check(rule{pkg: "connector", only: []string{"row"}, why: "test"})
	want = []string{"connector may import only row and the standard library: connector → exec (test)"}
	if !slices.Equal(got, want) {
		t.Errorf("only rule:\n got %q\nwant %q", got, want)
	}
	if got := g.check(rule{pkg: "row", only: []string{}, never: []string{"exec"}}); len(got) != 0 {
		t.Errorf("a package that keeps its rules: %q", got)
	}
	if got := g.check(rule{pkg: "nosuch"}); len(got) != 1 {
		t.Errorf("a rule on a missing package must fail: %q", got)
	}
}
