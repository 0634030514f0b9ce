package archtest

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage keeps the package table of
// docs/architecture.md true: every package `go list ./...` finds is named
// in it, either as a row (`pkg/`, or several in one row) or as a runtime
// in the `connectors/<name>/` row, and every package a row names exists.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	// The test runs in internal/archtest: go list from the module root.
	root := "../.."
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if p == module {
			continue
		}
		pkgs = append(pkgs, strings.TrimPrefix(p, module+"/"))
	}
	doc, err := os.ReadFile(root + "/docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	named, runtimes := tablePackages(t, string(doc))
	for _, p := range pkgs {
		if slices.Contains(named, p) {
			continue
		}
		if name, ok := strings.CutPrefix(p, "connectors/"); ok && !strings.Contains(name, "/") && slices.Contains(runtimes, name) {
			continue
		}
		t.Errorf("package %s is not in the package table of docs/architecture.md: add a row saying what it is for", p)
	}
	for _, p := range named {
		if !slices.Contains(pkgs, p) {
			t.Errorf("docs/architecture.md names package %s, which go list ./... does not find: remove or rename the row", p)
		}
	}
	for _, name := range runtimes {
		if !slices.Contains(pkgs, "connectors/"+name) {
			t.Errorf("docs/architecture.md lists connector runtime %s, but there is no package connectors/%s", name, name)
		}
	}
}

var (
	cellPkg   = regexp.MustCompile("`([a-z0-9_/]+)/`")
	firstWord = regexp.MustCompile("`([a-z0-9_-]+)`")
)

// tablePackages reads the "## Packages" table: the packages its first
// column names (each `path/`), and the runtimes of the connectors/<name>/
// row (the first `name` of each item of its list).
func tablePackages(t *testing.T, doc string) (named, runtimes []string) {
	_, after, ok := strings.Cut(doc, "\n## Packages\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Packages" section`)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		first := cells[1]
		if strings.Contains(first, "<name>") {
			_, list, _ := strings.Cut(cells[2], ":")
			for _, item := range strings.Split(list, ",") {
				if m := firstWord.FindStringSubmatch(item); m != nil {
					runtimes = append(runtimes, m[1])
				}
			}
			continue
		}
		for _, m := range cellPkg.FindAllStringSubmatch(first, -1) {
			named = append(named, m[1])
		}
	}
	if len(named) == 0 {
		t.Fatal("the package table of docs/architecture.md names no package")
	}
	return named, runtimes
}
