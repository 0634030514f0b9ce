package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

func (d *Diagnostic) src(def *Source) *Source {
	if d.Source != nil {
		return d.Source
	}
	return def
}

// location prints FILE:LINE:COL (or FILE when there is no position).
func location(s *Source, p Pos) string {
	name := "<input>"
	if s != nil && s.Name != "" {
		name = s.Name
	}
	if s == nil || !p.IsValid() {
		return name
	}
	line, col := s.Position(p)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// FormatShort renders the first line of a diagnostic:
// FILE:LINE:COL: error: message [CODE].
func FormatShort(d *Diagnostic) string {
	return fmt.Sprintf("%s: %s: %s [%s]", location(d.Source, d.Span.Start), d.Severity, d.Msg, d.Code)
}

// WriteText prints diagnostics in the go vet style, each with its source line
// and a caret under the offending span, then its notes and hints.
func WriteText(w io.Writer, l *List) error {
	var b strings.Builder
	for _, d := range l.Items {
		s := d.src(l.Source)
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", location(s, d.Span.Start), d.Severity, d.Msg, d.Code)
		excerpt(&b, s, d.Span)
		for _, n := range d.Notes {
			if n.Span.IsValid() {
				fmt.Fprintf(&b, "%s: note: %s\n", location(s, n.Span.Start), n.Msg)
				excerpt(&b, s, n.Span)
			} else {
				fmt.Fprintf(&b, "  note: %s\n", n.Msg)
			}
		}
		for _, h := range d.Hints {
			fmt.Fprintf(&b, "  hint: %s\n", h)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func excerpt(b *strings.Builder, s *Source, sp Span) {
	if s == nil || !sp.IsValid() {
		return
	}
	line, col := s.Position(sp.Start)
	text, at := s.shownLine(line)
	end := col - 1 + int(sp.End-sp.Start)
	fmt.Fprintf(b, "%5d | %s\n", line, text)
	fmt.Fprintf(b, "      | %s\n", caretLine(text, at(col-1), at(end)))
}

// jsonDiag is the stable JSON shape of a diagnostic (streamsql check --format json).
type jsonDiag struct {
	File     string     `json:"file"`
	Line     int        `json:"line"`
	Column   int        `json:"column"`
	EndLine  int        `json:"end_line"`
	EndCol   int        `json:"end_column"`
	Severity string     `json:"severity"`
	Code     string     `json:"code"`
	Message  string     `json:"message"`
	Notes    []jsonNote `json:"notes,omitempty"`
	Hints    []string   `json:"hints,omitempty"`
}

type jsonNote struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// WriteJSON prints diagnostics as one JSON array.
func WriteJSON(w io.Writer, l *List) error {
	out := make([]jsonDiag, 0, len(l.Items))
	for _, d := range l.Items {
		s := d.src(l.Source)
		j := jsonDiag{Severity: d.Severity.String(), Code: string(d.Code), Message: d.Msg, Hints: d.Hints}
		if s != nil {
			j.File = s.Name
			j.Line, j.Column = s.Position(d.Span.Start)
			j.EndLine, j.EndCol = s.Position(d.Span.End)
		}
		for _, n := range d.Notes {
			jn := jsonNote{Message: n.Msg}
			if s != nil {
				jn.File = s.Name
				jn.Line, jn.Column = s.Position(n.Span.Start)
			}
			j.Notes = append(j.Notes, jn)
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteGitHub prints GitHub Actions workflow annotations, one per line:
// ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message
func WriteGitHub(w io.Writer, l *List) error {
	var b strings.Builder
	for _, d := range l.Items {
		s := d.src(l.Source)
		level := "error"
		if d.Severity == Warning {
			level = "warning"
		}
		msg := d.Msg
		for _, h := range d.Hints {
			msg += "\n" + "hint: " + h
		}
		if s != nil && d.Span.IsValid() {
			line, col := s.Position(d.Span.Start)
			el, ec := s.Position(d.Span.End)
			fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n",
				level, ghProp(s.Name), line, col, el, ec, d.Code, ghData(msg))
		} else {
			name := ""
			if s != nil {
				name = s.Name
			}
			fmt.Fprintf(&b, "::%s file=%s,title=%s::%s\n", level, ghProp(name), d.Code, ghData(msg))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProp escapes a workflow command's property value.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
