package diag

import (
	"strings"
	"testing"
)

// Position agrees with counting by hand (lines and byte columns from 1),
// on CRLF, an empty last line and a position past the end; Offset is its
// inverse.
func TestPositionAndOffset(t *testing.T) {
	text := "SET a;\r\n\tSELECT é, x\n\nEND"
	s := NewSource("f.sql", text)
	line, col := 1, 1
	for off := 0; off <= len(text); off++ {
		gl, gc := s.Position(Pos(off))
		if gl != line || gc != col {
			t.Fatalf("Position(%d) = %d:%d, want %d:%d", off, gl, gc, line, col)
		}
		if back := s.Offset(gl, gc); int(back) != off {
			t.Fatalf("Offset(%d, %d) = %d, want %d", gl, gc, back, off)
		}
		if off < len(text) && text[off] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	if l, c := s.Position(Pos(len(text) + 10)); l != 4 || c != 4 {
		t.Errorf("past the end: %d:%d, want the end 4:4", l, c)
	}
	if l, c := s.Position(-1); l != 0 || c != 0 {
		t.Errorf("invalid position: %d:%d, want 0:0", l, c)
	}
	if got := s.Line(1); got != "SET a;" {
		t.Errorf("Line(1) = %q: the CR stays out", got)
	}
	if got := s.Line(3); got != "" {
		t.Errorf("Line(3) = %q, want the empty line", got)
	}
	if got := s.Line(5); got != "" {
		t.Errorf("Line(5) = %q, want nothing past the last line", got)
	}
}

func TestSpanJoin(t *testing.T) {
	a, b := Span{3, 5}, Span{1, 4}
	if got := a.Join(b); got != (Span{1, 5}) {
		t.Errorf("join %v", got)
	}
	none := Span{-1, -1}
	if a.Join(none) != a || none.Join(a) != a {
		t.Errorf("an invalid span must be ignored")
	}
}

// Sort orders by file, then position, keeps the order of diagnostics at
// one place, and drops exact duplicates only.
func TestSort(t *testing.T) {
	x, y := NewSource("a.sql", "aaaa"), NewSource("b.sql", "bbbb")
	l := &List{Source: y}
	l.Errorf("SQL100", Span{2, 3}, "second")
	l.Errorf("SQL100", Span{0, 1}, "first")
	l.Errorf("SQL100", Span{2, 3}, "third")
	l.Errorf("SQL100", Span{2, 3}, "second") // a duplicate
	l.Warnf("SQL100", Span{2, 3}, "second")  // same words as a warning: not a duplicate
	other := &List{Source: x}
	other.Errorf("SQL101", Span{3, 4}, "in a")
	l.Append(other.Items...)
	l.Sort()
	var got []string
	for _, d := range l.Items {
		got = append(got, d.Source.Name+":"+d.Msg)
		if d.Severity == Warning && d != l.Items[len(l.Items)-1] {
			t.Errorf("the warning moved before an error at its place")
		}
	}
	want := "a.sql:in a|b.sql:first|b.sql:second|b.sql:third|b.sql:second"
	if strings.Join(got, "|") != want {
		t.Errorf("sorted %v, want %s", got, want)
	}
	if l.Errors() != 4 || !l.HasErrors() || l.Err() == nil {
		t.Errorf("errors %d", l.Errors())
	}
	if (&List{}).Err() != nil {
		t.Errorf("an empty list is no error")
	}
}

// The caret line keeps the tabs of the text before the span, so that the
// carets stand under it in any tab width, and marks at least one column.
func TestWriteTextCaret(t *testing.T) {
	src := NewSource("f.sql", "SELECT\n\tx + y\n")
	l := &List{Source: src}
	l.Errorf(TypeMismatch, Span{Start: 10, End: 13}, "bad").WithHint("fix it")
	l.Warnf(UnknownSetting, Span{Start: 14, End: 14}, "at the end")
	var b strings.Builder
	if err := WriteText(&b, l); err != nil {
		t.Fatal(err)
	}
	want := "f.sql:2:4: error: bad [SQL303]\n" +
		"    2 | \tx + y\n" +
		"      | \t  ^^^\n" +
		"  hint: fix it\n" +
		"f.sql:3:1: warning: at the end [SQL310]\n" +
		"    3 | \n" +
		"      | ^\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Every code has a title and is defined once.
func TestCodes(t *testing.T) {
	seen := map[Code]bool{}
	for _, c := range Codes() {
		if seen[c.Code] {
			t.Errorf("%s defined twice", c.Code)
		}
		seen[c.Code] = true
		if c.Title == "" || len(c.Code) != 6 || !strings.HasPrefix(string(c.Code), "SQL") {
			t.Errorf("code %+v", c)
		}
	}
}
