package diag

import (
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/streamsql/streamsql/secret"
)

// Source is one named text: a job file, a shell input, a test case.
type Source struct {
	Name       string
	Text       string
	lineStarts []int

	secretsOnce sync.Once
	secrets     []secret.Range // values of secret options, masked when shown
}

// NewSource returns a Source for text named name (a file path or "<stdin>").
func NewSource(name, text string) *Source {
	s := &Source{Name: name, Text: text, lineStarts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lineStarts = append(s.lineStarts, i+1)
		}
	}
	return s
}

// Position returns the 1-based line and byte column of p. Positions past the
// end are clamped to the end of the text.
func (s *Source) Position(p Pos) (line, col int) {
	if s == nil || !p.IsValid() {
		return 0, 0
	}
	off := min(int(p), len(s.Text))
	i := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off }) - 1
	return i + 1, off - s.lineStarts[i] + 1
}

// Offset returns the byte offset of a 1-based line and column, clamped to the
// text.
func (s *Source) Offset(line, col int) Pos {
	if line < 1 {
		return 0
	}
	if line > len(s.lineStarts) {
		return Pos(len(s.Text))
	}
	off := s.lineStarts[line-1] + max(col-1, 0)
	return Pos(min(off, len(s.Text)))
}

// Line returns the text of 1-based line n without its newline.
func (s *Source) Line(n int) string {
	if s == nil || n < 1 || n > len(s.lineStarts) {
		return ""
	}
	start := s.lineStarts[n-1]
	end := len(s.Text)
	if n < len(s.lineStarts) {
		end = s.lineStarts[n] - 1
	}
	return strings.TrimRight(s.Text[start:end], "\r")
}

// Shown returns 1-based line n as it may be printed: the values of secret
// options (package secret) replaced by secret.Mask.
func (s *Source) Shown(n int) string {
	shown, _ := s.shownLine(n)
	return shown
}

// shownLine returns line n with its secrets masked, and a function that
// maps a 0-based byte column of the line to the column of the same place in
// the masked line (a column inside a masked value maps to its start).
func (s *Source) shownLine(n int) (string, func(int) int) {
	line := s.Line(n)
	ident := func(c int) int { return c }
	if s == nil || line == "" {
		return line, ident
	}
	s.secretsOnce.Do(func() { s.secrets = secret.Ranges(s.Text) })
	start := s.lineStarts[n-1]
	end := start + len(line)
	type cut struct{ from, to int } // columns of line
	var cuts []cut
	for _, r := range s.secrets {
		if r.End <= start || r.Start >= end {
			continue
		}
		cuts = append(cuts, cut{max(r.Start, start) - start, min(r.End, end) - start})
	}
	if len(cuts) == 0 {
		return line, ident
	}
	var b strings.Builder
	at := 0
	for _, c := range cuts {
		b.WriteString(line[at:c.from])
		b.WriteString(secret.Mask)
		at = c.to
	}
	b.WriteString(line[at:])
	return b.String(), func(col int) int {
		shift := 0
		for _, c := range cuts {
			switch {
			case col >= c.to:
				shift += len(secret.Mask) - (c.to - c.from)
			case col > c.from:
				return c.from + shift
			}
		}
		return col + shift
	}
}

// caretLine returns the marker line that underlines bytes [from, to) of line,
// keeping tabs so the caret lines up under the text.
func caretLine(line string, from, to int) string {
	from = min(max(from, 0), len(line))
	to = min(max(to, from+1), max(len(line), from+1))
	var b strings.Builder
	for i, r := range line[:from] {
		_ = i
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	n := utf8.RuneCountInString(line[from:min(to, len(line))])
	if n == 0 {
		n = 1
	}
	b.WriteString(strings.Repeat("^", n))
	return b.String()
}
