package diag

import (
	"strings"
	"testing"
)

// TestExcerptHidesSecrets: the source line printed under a diagnostic
// shows secret option values as ******, and the caret still points at the
// place the diagnostic is about, before, at and after the masked value.
func TestExcerptHidesSecrets(t *testing.T) {
	text := "CREATE TABLE t (a INT) WITH ('password' = 'hunter2', 'topic' = 'x', 'b' = '${NOPE}');\n"
	src := NewSource("job.sql", text)
	at := func(s string) Span {
		i := strings.Index(text, s)
		return Span{Start: Pos(i), End: Pos(i + len(s))}
	}
	shown := "CREATE TABLE t (a INT) WITH ('password' = '******', 'topic' = 'x', 'b' = '${NOPE}');"
	caretUnder := func(s string, width int) string {
		return strings.Repeat(" ", strings.Index(shown, s)) + strings.Repeat("^", width)
	}
	for _, c := range []struct {
		span  Span
		caret string
	}{
		{at("'password'"), caretUnder("'password'", 10)},
		{at("'hunter2'"), caretUnder("'******'", 8)}, // the whole literal: the whole mask
		{at("hunter2"), caretUnder("******", 6)},     // the value: the mask
		{at("'topic'"), caretUnder("'topic'", 7)},    // after the mask: shifted
		{at("${NOPE}"), caretUnder("${NOPE}", 7)},
	} {
		var l List
		l.Source = src
		l.Errorf(InvalidOptionValue, c.span, "something")
		var b strings.Builder
		if err := WriteText(&b, &l); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "hunter2") {
			t.Errorf("the excerpt shows the password:\n%s", out)
		}
		lines := strings.Split(out, "\n")
		if len(lines) < 3 || !strings.Contains(lines[1], "'password' = '******'") || strings.TrimPrefix(lines[2], "      | ") != c.caret {
			t.Errorf("excerpt for %q:\n%s\nwant caret line\n      | %s", text[c.span.Start:c.span.End], out, c.caret)
		}
	}
	if got := src.Shown(1); got != shown {
		t.Errorf("Shown: %q", got)
	}
}
