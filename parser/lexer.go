package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamsql/streamsql/diag"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tIdent            // bare word: identifiers and keywords
	tQIdent           // `quoted identifier`
	tString           // 'string'
	tNumber           // 12, 1.5, 1e3
	tOp               // punctuation and operators
	tHint             // /*+ ... */
	tParam            // ?
	tDQString         // "double quoted" (an error in Flink SQL, kept for messages)
)

// token is one lexeme of the original text. Val is the unquoted value for
// strings and quoted identifiers, and the text otherwise.
type token struct {
	kind       tokKind
	start, end diag.Pos
	val        string
}

func (t token) span() diag.Span { return diag.Span{Start: t.start, End: t.end} }

// is reports whether t is the bare word w (case-insensitive).
func (t token) is(w string) bool { return t.kind == tIdent && strings.EqualFold(t.val, w) }

// isOp reports whether t is the operator op.
func (t token) isOp(op string) bool { return t.kind == tOp && t.val == op }

// isName reports whether t can name something (bare or quoted identifier).
func (t token) isName() bool { return t.kind == tIdent || t.kind == tQIdent }

// describe renders a token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "'" + t.val + "'"
	case tQIdent:
		return "`" + t.val + "`"
	default:
		return t.val
	}
}

// lex splits src[from:to] into tokens, skipping whitespace and comments.
// Comments are Flink's: `--` to the end of the line (whatever follows the
// dashes) and /* ... */ (not nested); /*+ ... */ is a hint token. A '#' is
// an error, not a comment.
// Lexical errors (an unterminated string, identifier or comment) are
// reported to l; lexing goes on past them so that later errors are found too.
func lex(src string, from, to int, l *diag.List) []token {
	var toks []token
	i := from
	for i < to {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < to && src[i+1] == '-':
			for i < to && src[i] != '\n' {
				i++
			}
		case c == '#':
			// MySQL's comment; Flink's lexer refuses the character. Say so
			// here, before TiDB (which would skip the rest of the line)
			// sees it.
			l.Errorf(diag.SyntaxError, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 1)},
				"'#' does not start a comment in Flink SQL: write -- for a comment to the end of the line, or /* ... */")
			toks = append(toks, token{tOp, diag.Pos(i), diag.Pos(i + 1), "#"})
			i++
		case c == '/' && i+1 < to && src[i+1] == '*':
			end := strings.Index(src[i+2:to], "*/")
			hint := i+2 < to && src[i+2] == '+'
			if end < 0 {
				l.Errorf(diag.UnterminatedLiteral, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 2)},
					"comment is not terminated: expected */ before the end of the statement")
				i = to
				continue
			}
			stop := i + 2 + end + 2
			if hint {
				checkUTF8(src, i, stop, "hint", l)
				toks = append(toks, token{tHint, diag.Pos(i), diag.Pos(stop), src[i+3 : stop-2]})
			}
			i = stop
		case c == '\'':
			v, n, ok := scanQuoted(src[i:to], '\'')
			if semi := strings.Index(v, ";\n"); ok && semi >= 0 && strings.Count(v, "\n") > 1 {
				// A literal that runs across the end of a statement and on
				// over several lines is almost always a missing quote: end it
				// there so the statements after it are still checked.
				l.Errorf(diag.UnterminatedLiteral, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 1)},
					"string literal is not terminated: it runs past the ';' ending this statement; add the closing '")
				n = strings.Index(src[i:to], ";\n")
				toks = append(toks, token{tString, diag.Pos(i), diag.Pos(i + n), src[i+1 : i+n]})
				i += n
				continue
			}
			if !ok {
				l.Errorf(diag.UnterminatedLiteral, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 1)},
					"string literal is not terminated: expected a closing '")
			}
			checkUTF8(src, i, i+n, "string literal", l)
			toks = append(toks, token{tString, diag.Pos(i), diag.Pos(i + n), v})
			i += n
		case c == '`':
			v, n, ok := scanQuoted(src[i:to], '`')
			if !ok {
				l.Errorf(diag.UnterminatedLiteral, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 1)},
					"quoted identifier is not terminated: expected a closing `")
			}
			checkUTF8(src, i, i+n, "quoted name", l)
			toks = append(toks, token{tQIdent, diag.Pos(i), diag.Pos(i + n), v})
			i += n
		case c == '"':
			v, n, ok := scanQuoted(src[i:to], '"')
			if !ok {
				l.Errorf(diag.UnterminatedLiteral, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 1)},
					"quoted text is not terminated: expected a closing \"")
			}
			checkUTF8(src, i, i+n, "quoted text", l)
			toks = append(toks, token{tDQString, diag.Pos(i), diag.Pos(i + n), v})
			i += n
		case c >= '0' && c <= '9' || c == '.' && i+1 < to && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < to && (src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			if j < to && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < to && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < to && src[k] >= '0' && src[k] <= '9' {
					for k < to && src[k] >= '0' && src[k] <= '9' {
						k++
					}
					j = k
				}
			}
			// A number run into letters (0x1F, 0b01, 12abc) is one token, so
			// that the dialect layer can refuse it as a whole.
			for j < to && isIdentStart(src, j) {
				_, n := utf8.DecodeRuneInString(src[j:])
				j += n
				for j < to && (src[j] >= '0' && src[j] <= '9') {
					j++
				}
			}
			toks = append(toks, token{tNumber, diag.Pos(i), diag.Pos(j), src[i:j]})
			i = j
		case isIdentStart(src, i):
			_, first := utf8.DecodeRuneInString(src[i:])
			j := i + first
			for j < to {
				r, n := utf8.DecodeRuneInString(src[j:])
				if r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) || r >= 0x80 && r != utf8.RuneError {
					j += n
					continue
				}
				break
			}
			toks = append(toks, token{tIdent, diag.Pos(i), diag.Pos(j), src[i:j]})
			i = j
		case c >= 0x80 && isRuneError(src[i:to]):
			// A byte that is not UTF-8 outside a string or a quoted name:
			// TiDB would read it as part of a name, we would not; refuse it
			// here so both agree, and say which byte.
			l.Errorf(diag.SyntaxError, diag.Span{Start: diag.Pos(i), End: diag.Pos(i + 1)},
				"byte 0x%02X is not valid UTF-8: SQL text must be UTF-8", c)
			toks = append(toks, token{tOp, diag.Pos(i), diag.Pos(i + 1), src[i : i+1]})
			i++
		default:
			n := opLen(src[i:to])
			kind := tOp
			if c == '?' {
				kind = tParam
			}
			toks = append(toks, token{kind, diag.Pos(i), diag.Pos(i + n), src[i : i+n]})
			i += n
		}
	}
	return toks
}

// checkUTF8 reports the first byte of src[from:to] (a quoted token) that
// is not valid UTF-8: SQL text, literals included, must be UTF-8 (TiDB and
// our own lexer would otherwise read the token differently).
func checkUTF8(src string, from, to int, what string, l *diag.List) {
	for j := from; j < to; {
		if src[j] >= 0x80 && isRuneError(src[j:to]) {
			l.Errorf(diag.SyntaxError, diag.Span{Start: diag.Pos(j), End: diag.Pos(j + 1)},
				"byte 0x%02X in a %s is not valid UTF-8: SQL text must be UTF-8", src[j], what)
			return
		}
		_, n := utf8.DecodeRuneInString(src[j:to])
		j += n
	}
}

// isRuneError reports whether s starts with a byte that does not begin a
// valid UTF-8 encoding.
func isRuneError(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return r == utf8.RuneError && n <= 1
}

func isIdentStart(src string, i int) bool {
	r, _ := utf8.DecodeRuneInString(src[i:])
	// Like TiDB and MySQL, '$' and any character beyond ASCII may be part
	// of a name, even its first character.
	return r == '_' || r == '$' || unicode.IsLetter(r) || r >= 0x80 && r != utf8.RuneError
}

var ops3 = []string{"<=>"}
var ops2 = []string{"<=", ">=", "<>", "!=", "||", "::", "=>", "&&", "<<", ">>"}

func opLen(s string) int {
	for _, o := range ops3 {
		if strings.HasPrefix(s, o) {
			return 3
		}
	}
	for _, o := range ops2 {
		if strings.HasPrefix(s, o) {
			return 2
		}
	}
	_, n := utf8.DecodeRuneInString(s)
	return max(n, 1)
}

// scanQuoted reads a literal opened by q at s[0], where a doubled q stands
// for one q. It returns the value, the length consumed and whether the
// literal was closed.
func scanQuoted(s string, q byte) (string, int, bool) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), len(s), false
}
