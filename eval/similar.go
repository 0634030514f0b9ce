package eval

import (
	"regexp"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/streamsql/streamsql/row"
)

// SIMILAR TO is Flink's (Calcite's): the SQL pattern becomes a Java regular
// expression that must match the whole string. '_' is any character, '%'
// any run of characters, '[...]' a character class (with '^' and '-', and
// the classes [:ALPHA:], [:UPPER:], [:LOWER:], [:DIGIT:], [:SPACE:],
// [:WHITESPACE:], [:ALNUM:]); '|', '*', '+', '?', '{m,n}' and '(...)' are
// as in regular expressions; '\' and '$' are plain characters. Every other
// character goes to the regular expression as it is, so '.' is any
// character and '^' anchors, as in Calcite (the SQL standard reads both as
// plain characters). A pattern that is not one ('[' never closed, a ']'
// alone, a special character inside a class) is an error, as in Calcite.
//
// The regular expression then runs on Go's RE2 only where Java reads it the
// same way (javaOnly, as REGEXP_EXTRACT's), and Java's '.' does not match
// a line terminator (\n, \r, U+0085, U+2028, U+2029): '_' and '%' do not
// match one either.

// similarSpecials are the characters that mean something in a SIMILAR TO
// pattern.
const similarSpecials = "[]()|^-+*_%?{}"

// similarClasses are the named classes inside a '[...]': Calcite writes
// them as Java's \p{Alpha}, \p{Upper}, \p{Lower}, \d, ' ', \s and
// \p{Alnum}, which are ASCII in Java; here they are the same ranges.
var similarClasses = []struct{ name, chars string }{
	{"[:ALPHA:]", "a-zA-Z"}, {"[:alpha:]", "a-zA-Z"},
	{"[:UPPER:]", "A-Z"}, {"[:upper:]", "A-Z"},
	{"[:LOWER:]", "a-z"}, {"[:lower:]", "a-z"},
	{"[:DIGIT:]", "0-9"}, {"[:digit:]", "0-9"},
	{"[:SPACE:]", " "}, {"[:space:]", " "},
	{"[:WHITESPACE:]", `\t\n\x0B\f\r `}, {"[:whitespace:]", `\t\n\x0B\f\r `},
	{"[:ALNUM:]", "a-zA-Z0-9"}, {"[:alnum:]", "a-zA-Z0-9"},
}

// repetition is a '{m}', '{m,}' or '{m,n}' at the start of a pattern's
// rest; any other '{' is an error in Java.
var repetition = regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}`)

// notLineEnd is Java's '.' (without DOTALL) in RE2's syntax.
const notLineEnd = `[^\n\r\x{85}\x{2028}\x{2029}]`

// similarRegexpEscape translates a SIMILAR TO pattern. It returns the Java
// regular expression (what Flink runs, for the Java/RE2 check) and the RE2
// one that runs here (anchored, with Java's '.'), or an error. With an
// ESCAPE character esc ("" for none), esc before one of similarSpecials or
// itself makes that character literal, anywhere; before anything else, or
// at the end, it is an error (Calcite's invalid escape sequence).
func similarRegexpEscape(p, esc string) (java, re2 string, err error) {
	var j, r strings.Builder
	both := func(s string) { j.WriteString(s); r.WriteString(s) }
	bad := func() error {
		return errorf(ErrInvalidArgument, "SIMILAR TO: invalid pattern %q", p)
	}
	// escaped reads an escape sequence at i: the literal character, quoted
	// for both dialects, and the bytes it took.
	escaped := func(i int) (string, int, error) {
		n, w := utf8.DecodeRuneInString(p[i+len(esc):])
		if i+len(esc) >= len(p) || string(n) != esc && !strings.ContainsRune(similarSpecials, n) {
			return "", 0, errorf(ErrInvalidArgument, "SIMILAR TO: invalid escape sequence in %q: the escape character %q may only come before one of %s or itself", p, esc, similarSpecials)
		}
		return regexp.QuoteMeta(string(n)), len(esc) + w, nil
	}
	for i := 0; i < len(p); i++ {
		if esc != "" && strings.HasPrefix(p[i:], esc) {
			lit, n, err := escaped(i)
			if err != nil {
				return "", "", err
			}
			both(lit)
			i += n - 1
			continue
		}
		switch c := p[i]; c {
		case '_':
			j.WriteString(".")
			r.WriteString(notLineEnd)
		case '%':
			j.WriteString("(.*)")
			r.WriteString("(" + notLineEnd + "*)")
		case '.':
			j.WriteString(".")
			r.WriteString(notLineEnd)
		case '\\':
			both(`\\`)
		case '$':
			both(`\$`)
		case ']':
			return "", "", bad()
		case '{':
			m := repetition.FindString(p[i:])
			if m == "" {
				return "", "", bad()
			}
			both(m)
			i += len(m) - 1
		case '[':
			both("[")
			i++
			for ; i < len(p) && p[i] != ']'; i++ {
				if esc != "" && strings.HasPrefix(p[i:], esc) {
					lit, n, err := escaped(i)
					if err != nil {
						return "", "", err
					}
					both(lit)
					i += n - 1
					continue
				}
				switch {
				case strings.HasPrefix(p[i:], "[:"):
					found := false
					for _, cl := range similarClasses {
						if strings.HasPrefix(p[i:], cl.name) {
							both(cl.chars)
							i += len(cl.name) - 1
							found = true
							break
						}
					}
					if !found {
						return "", "", bad()
					}
				case p[i] == '-' || p[i] == '^':
					both(string(p[i]))
				case strings.IndexByte(similarSpecials, p[i]) >= 0 || p[i] == '"':
					return "", "", bad()
				case p[i] == '\\':
					// A backslash would escape in Java's class.
					both(`\\`)
				case p[i] == '&':
					// Java's '&&' is intersection: keep it literal.
					both(`\&`)
				default:
					both(string(p[i]))
				}
			}
			if i >= len(p) {
				return "", "", bad()
			}
			both("]")
		default:
			both(string(c))
		}
	}
	return j.String(), "^(?:" + r.String() + ")$", nil
}

// compileSimilar checks and compiles a SIMILAR TO pattern.
func compileSimilar(p string) (*regexp.Regexp, error) { return compileSimilarEscape(p, "") }

// compileSimilarEscape is compileSimilar with an ESCAPE character ("" for
// none).
func compileSimilarEscape(p, esc string) (*regexp.Regexp, error) {
	j, r, err := similarRegexpEscape(p, esc)
	if err != nil {
		return nil, err
	}
	if _, _, err := compileJava("SIMILAR TO", j, false); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(r)
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "SIMILAR TO: invalid pattern %q: %v", p, err)
	}
	return re, nil
}

// similar is s SIMILAR TO pattern: a constant pattern is compiled once (an
// error then refuses the query); one from a column per row, the last
// cached.
func similar(args []node) (Func, error) {
	esc := ""
	if len(args) == 3 {
		e, ok := escapeChar("SIMILAR TO", args[2])
		if !ok {
			return nil, errorf(ErrInvalidArgument, "SIMILAR TO: the ESCAPE must be one constant character")
		}
		esc = string(e)
	}
	if args[1].konst {
		if args[1].v.IsNull() {
			return nullFunc, nil
		}
		re, err := compileSimilarEscape(args[1].v.Str(), esc)
		if err != nil {
			return nil, err
		}
		return un(args[0], func(x row.Value) (row.Value, error) { return row.BoolValue(re.MatchString(x.Str())), nil }), nil
	}
	type cached struct {
		text string
		re   *regexp.Regexp
	}
	var last atomic.Pointer[cached]
	return bin(args[0], args[1], func(x, y row.Value) (row.Value, error) {
		c := last.Load()
		if c == nil || c.text != y.Str() {
			re, err := compileSimilarEscape(y.Str(), esc)
			if err != nil {
				return row.NullValue, err
			}
			c = &cached{text: y.Str(), re: re}
			last.Store(c)
		}
		return row.BoolValue(c.re.MatchString(x.Str())), nil
	}), nil
}
