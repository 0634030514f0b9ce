// Package archtest keeps the package graph as docs/architecture.md draws
// it. Its test lists the module's packages with `go list -deps -json` and
// checks a table of rules (archtest_test.go, rules): which packages a
// package may import directly, and which it may not reach at all. A broken
// rule fails naming the import chain that breaks it, e.g.
//
//	format must not depend on exec: format → connector → exec
//
// Add a rule to the table when a layer is meant to stay apart (the
// runtime from the planner, a codec from the parser); tests (_test.go
// files) are not counted. The package has no code of its own.
package archtest
