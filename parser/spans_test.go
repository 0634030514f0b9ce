package parser

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/streamsql/streamsql/diag"
)

type spanner interface{ Span() diag.Span }

// spansOutput underlines the span of every node of every statement, in
// source order of the walk (a node, then its fields), indented by depth,
// and flags a node whose span is not inside its parent's.
func spansOutput(f *File) string {
	var b strings.Builder
	for _, st := range f.Stmts {
		walkSpans(&b, f.Source, reflect.ValueOf(st), 0, st.Span())
	}
	var d strings.Builder
	_ = diag.WriteText(&d, &f.Diags)
	b.WriteString(d.String())
	return b.String()
}

func walkSpans(b *strings.Builder, src *diag.Source, v reflect.Value, depth int, parent diag.Span) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkSpans(b, src, v.Elem(), depth, parent)
		}
		return
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkSpans(b, src, v.Index(i), depth, parent)
		}
		return
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if s, ok := v.Interface().(spanner); ok {
			sp := s.Span()
			writeSpan(b, src, v.Elem().Type().Name(), sp, depth, parent)
			depth++
			if sp.IsValid() {
				parent = sp
			}
		}
		walkSpans(b, src, v.Elem(), depth, parent)
		return
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && v.Type().Field(i).Name != "Loc" {
				walkSpans(b, src, v.Field(i), depth, parent)
			}
		}
	default:
	}
}

func writeSpan(b *strings.Builder, src *diag.Source, name string, sp diag.Span, depth int, parent diag.Span) {
	ind := strings.Repeat("  ", depth)
	if !sp.IsValid() {
		fmt.Fprintf(b, "%s%s (no span)\n", ind, name)
		return
	}
	l1, c1 := src.Position(sp.Start)
	l2, c2 := src.Position(sp.End)
	flag := ""
	if parent.IsValid() && (sp.Start < parent.Start || sp.End > parent.End) {
		flag = "  !! outside its parent"
	}
	if sp.End < sp.Start {
		flag += "  !! ends before it starts"
	}
	fmt.Fprintf(b, "%s%s %d:%d-%d:%d%s\n", ind, name, l1, c1, l2, c2, flag)
	line := src.Line(l1)
	end := c2
	if l2 != l1 {
		end = len(line) + 1
	}
	marks := max(end-c1, 1)
	fmt.Fprintf(b, "%s  %s\n%s  %s%s\n", ind, strings.ReplaceAll(line, "\t", " "), ind, strings.Repeat(" ", c1-1), strings.Repeat("^", marks))
}
