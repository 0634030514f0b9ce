package secret

import "strings"

// Range is bytes [Start, End) of a text.
type Range struct{ Start, End int }

// Ranges returns where SQL text holds secret values: the contents (between
// the quotes) of every string literal that follows a literal naming a secret
// option and '=', as in 'properties.sasl.jaas.config' = '...'. Values that
// keep their secrets elsewhere (Kept) are left out. The ranges are in order and do not
// overlap. Comments and quoted names are skipped, so that a quote inside
// them does not throw the literals out of step.
func Ranges(text string) []Range {
	var out []Range
	type lit struct {
		start, end int // the literal's contents
		value      string
	}
	var prev *lit // the last literal
	eq := false   // an '=' followed prev
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += 2 + j + 2
		case c == '"' || c == '`':
			prev, eq = nil, false
			j := strings.IndexByte(text[i+1:], c)
			if j < 0 {
				return out
			}
			i += 1 + j + 1
		case c == '\'':
			start := i + 1
			var b strings.Builder
			j := start
			for j < len(text) {
				if text[j] == '\'' {
					if j+1 < len(text) && text[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(text[j])
				j++
			}
			cur := &lit{start: start, end: j, value: b.String()}
			if prev != nil && eq && IsKey(prev.value) && !Kept(cur.value) && cur.end > cur.start {
				out = append(out, Range{cur.start, cur.end})
			}
			prev, eq = cur, false
			i = j + 1
		case c == '=':
			eq = prev != nil
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			prev, eq = nil, false
			i++
		}
	}
	return out
}

// Redact returns text with every range in Ranges replaced by Mask.
func Redact(text string) string {
	rs := Ranges(text)
	if len(rs) == 0 {
		return text
	}
	var b strings.Builder
	at := 0
	for _, r := range rs {
		b.WriteString(text[at:r.Start])
		b.WriteString(Mask)
		at = r.End
	}
	b.WriteString(text[at:])
	return b.String()
}
