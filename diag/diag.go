package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a byte offset into a Source's text. NoPos means "no position".
type Pos int

// NoPos is the zero-information position.
const NoPos Pos = -1

// IsValid reports whether p refers to a place in the text.
func (p Pos) IsValid() bool { return p >= 0 }

// Span is the half-open byte range [Start, End) of some syntax in the user's
// text. A Span with Start == End marks a point (for example the end of input).
type Span struct {
	Start, End Pos
}

// NoSpan is a span without position.
var NoSpan = Span{NoPos, NoPos}

// IsValid reports whether the span has a position.
func (s Span) IsValid() bool { return s.Start.IsValid() }

// Join returns the smallest span covering both s and t. An invalid span is
// ignored.
func (s Span) Join(t Span) Span {
	if !s.IsValid() {
		return t
	}
	if !t.IsValid() {
		return s
	}
	return Span{min(s.Start, t.Start), max(s.End, t.End)}
}

// Severity says whether a diagnostic stops the job (Error) or only informs
// (Warning).
type Severity int

// Severities.
const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Note points at a second place related to a diagnostic.
type Note struct {
	Span Span
	Msg  string
}

// Diagnostic is one positioned error or warning.
type Diagnostic struct {
	Severity Severity
	Code     Code
	Span     Span
	Msg      string
	Notes    []Note
	Hints    []string
	// Source is the text the span refers to. The parser and binder fill it
	// in when they report; printing falls back to the List's default.
	Source *Source
}

func (d *Diagnostic) Error() string {
	return fmt.Sprintf("%s: %s [%s]", d.Severity, d.Msg, d.Code)
}

// WithNote adds a note pointing at span and returns d.
func (d *Diagnostic) WithNote(span Span, format string, args ...any) *Diagnostic {
	d.Notes = append(d.Notes, Note{Span: span, Msg: fmt.Sprintf(format, args...)})
	return d
}

// WithHint adds a hint (what to do about it) and returns d.
func (d *Diagnostic) WithHint(format string, args ...any) *Diagnostic {
	d.Hints = append(d.Hints, fmt.Sprintf(format, args...))
	return d
}

// List collects diagnostics. The zero value is ready to use.
type List struct {
	Items []*Diagnostic
	// Source is used for diagnostics that do not name their own.
	Source *Source
}

// Errorf adds an error with the given code at span and returns it, so that
// notes and hints can be chained on.
func (l *List) Errorf(code Code, span Span, format string, args ...any) *Diagnostic {
	return l.add(Error, code, span, format, args...)
}

// Warnf adds a warning.
func (l *List) Warnf(code Code, span Span, format string, args ...any) *Diagnostic {
	return l.add(Warning, code, span, format, args...)
}

func (l *List) add(sev Severity, code Code, span Span, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Severity: sev, Code: code, Span: span, Msg: fmt.Sprintf(format, args...), Source: l.Source}
	l.Items = append(l.Items, d)
	return d
}

// Append adds diagnostics collected elsewhere.
// Diagnostics without a Source get the list's.
func (l *List) Append(ds ...*Diagnostic) {
	for _, d := range ds {
		if d.Source == nil {
			d.Source = l.Source
		}
	}
	l.Items = append(l.Items, ds...)
}

// HasErrors reports whether any diagnostic is an error.
func (l *List) HasErrors() bool {
	for _, d := range l.Items {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the number of errors.
func (l *List) Errors() int {
	n := 0
	for _, d := range l.Items {
		if d.Severity == Error {
			n++
		}
	}
	return n
}

// Err returns nil when there is no error, and the list as an error otherwise.
func (l *List) Err() error {
	if !l.HasErrors() {
		return nil
	}
	return ListError{l.Items}
}

// Sort orders diagnostics by source name and position, keeping the order of
// diagnostics at the same place, and removes exact duplicates.
func (l *List) Sort() {
	slices.SortStableFunc(l.Items, func(a, b *Diagnostic) int {
		return cmp.Or(cmp.Compare(srcName(a.Source), srcName(b.Source)), cmp.Compare(a.Span.Start, b.Span.Start))
	})
	// A duplicate need not be next to its twin: two diagnostics at one
	// place keep their order, so the twin may come after another one.
	type key struct {
		src  *Source
		span Span
		sev  Severity
		code Code
		msg  string
	}
	seen := map[key]bool{}
	l.Items = slices.DeleteFunc(l.Items, func(d *Diagnostic) bool {
		k := key{d.Source, d.Span, d.Severity, d.Code, d.Msg}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

func srcName(s *Source) string {
	if s == nil {
		return ""
	}
	return s.Name
}

// ListError is a List seen as an error.
type ListError struct{ Items []*Diagnostic }

func (e ListError) Error() string {
	var b strings.Builder
	for i, d := range e.Items {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(FormatShort(d))
	}
	return b.String()
}
