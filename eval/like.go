package eval

import (
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/streamsql/streamsql/row"
)

// likePattern is a compiled LIKE pattern: % matches any sequence of
// characters, _ exactly one, and a backslash makes the next character
// literal. The pattern is cut at each %, into segments of literal text and
// single-character wildcards.
type likePattern struct {
	segs []likeSeg
	// leading and trailing report a % before the first and after the last
	// segment.
	leading, trailing bool
}

// likeSeg is a run of literals and _ between two %.
type likeSeg []likeTok

// likeTok is literal text, or (any) one character of any kind.
type likeTok struct {
	any bool
	lit string
}

func compileLike(p string) likePattern {
	lp, _ := compileLikeEscape(p, '\\', false)
	return lp
}

// compileLikeEscape compiles a LIKE pattern whose escape character is esc.
// When strict (an explicit ESCAPE, as Flink's SqlLikeUtils reads it), esc
// may only come before '_', '%' or itself, and not end the pattern;
// otherwise a backslash makes any next character literal, and a final one
// is itself.
func compileLikeEscape(p string, esc rune, strict bool) (likePattern, error) {
	var lp likePattern
	var seg likeSeg
	var lit strings.Builder
	flushLit := func() {
		if lit.Len() > 0 {
			seg = append(seg, likeTok{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		i += w
		lp.trailing = r == '%'
		switch r {
		case esc:
			if i < len(p) {
				r2, w2 := utf8.DecodeRuneInString(p[i:])
				if strict && r2 != '_' && r2 != '%' && r2 != esc {
					return lp, errorf(ErrInvalidArgument, "LIKE: invalid escape sequence in %q at character %d: the escape character %q may only come before _, %% or itself", p, utf8.RuneCountInString(p[:i]), esc)
				}
				i += w2
				lit.WriteRune(r2)
			} else if strict {
				return lp, errorf(ErrInvalidArgument, "LIKE: the pattern %q ends with its escape character %q", p, esc)
			} else {
				lit.WriteRune(r)
			}
		case '_':
			flushLit()
			seg = append(seg, likeTok{any: true})
		case '%':
			flushLit()
			if len(lp.segs) == 0 && len(seg) == 0 {
				lp.leading = true
			}
			if len(seg) > 0 {
				lp.segs = append(lp.segs, seg)
				seg = nil
			}
		default:
			lit.WriteRune(r)
		}
	}
	flushLit()
	if len(seg) > 0 {
		lp.segs = append(lp.segs, seg)
	}
	return lp, nil
}

// matchAt reports whether seg matches s at byte offset i, and where the
// match ends.
func (seg likeSeg) matchAt(s string, i int) (int, bool) {
	for _, t := range seg {
		if t.any {
			if i >= len(s) {
				return 0, false
			}
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			continue
		}
		if !strings.HasPrefix(s[i:], t.lit) {
			return 0, false
		}
		i += len(t.lit)
	}
	return i, true
}

// chars is the number of characters seg matches.
func (seg likeSeg) chars() int {
	n := 0
	for _, t := range seg {
		if t.any {
			n++
		} else {
			n += utf8.RuneCountInString(t.lit)
		}
	}
	return n
}

func (lp *likePattern) match(s string) bool {
	segs := lp.segs
	if len(segs) == 0 {
		return lp.leading || s == ""
	}
	i := 0
	// The first segment is anchored at the start unless a % leads.
	if !lp.leading {
		end, ok := segs[0].matchAt(s, 0)
		if !ok {
			return false
		}
		if len(segs) == 1 && !lp.trailing {
			return end == len(s)
		}
		i = end
		segs = segs[1:]
	}
	// The last segment is anchored at the end unless a % trails.
	var last likeSeg
	if !lp.trailing && len(segs) > 0 {
		last = segs[len(segs)-1]
		segs = segs[:len(segs)-1]
	}
	// Middle segments: leftmost match each.
	for _, seg := range segs {
		found := false
		for j := i; j <= len(s); {
			if end, ok := seg.matchAt(s, j); ok {
				i, found = end, true
				break
			}
			if j == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[j:])
			j += w
		}
		if !found {
			return false
		}
	}
	if last == nil {
		return true
	}
	// Find where the last segment must start: n characters before the end.
	n := last.chars()
	j := len(s)
	for k := 0; k < n; k++ {
		if j <= i {
			return false
		}
		_, w := utf8.DecodeLastRuneInString(s[:j])
		j -= w
	}
	if j < i {
		return false
	}
	end, ok := last.matchAt(s, j)
	return ok && end == len(s)
}

// matcher returns a fast test for the common shapes: exact, prefix%,
// %suffix, %infix%; and the general matcher otherwise.
func (lp *likePattern) matcher() func(string) bool {
	if len(lp.segs) == 1 && len(lp.segs[0]) == 1 && !lp.segs[0][0].any {
		lit := lp.segs[0][0].lit
		switch {
		case lp.leading && lp.trailing:
			return func(s string) bool { return strings.Contains(s, lit) }
		case lp.leading:
			return func(s string) bool { return strings.HasSuffix(s, lit) }
		case lp.trailing:
			return func(s string) bool { return strings.HasPrefix(s, lit) }
		}
		return func(s string) bool { return s == lit }
	}
	return lp.match
}

func like(args []node) (Func, error) {
	esc, strict := '\\', false
	if len(args) == 3 {
		e, ok := escapeChar("LIKE", args[2])
		if !ok {
			return nil, errorf(ErrInvalidArgument, "LIKE: the ESCAPE must be one constant character")
		}
		esc, strict = e, true
	}
	compile := func(p string) (likePattern, error) { return compileLikeEscape(p, esc, strict) }
	if args[1].konst {
		if args[1].v.IsNull() {
			return nullFunc, nil
		}
		lp, err := compile(args[1].v.Str())
		if err != nil {
			return nil, err
		}
		m := lp.matcher()
		return un(args[0], func(x row.Value) (row.Value, error) { return row.BoolValue(m(x.Str())), nil }), nil
	}
	type cached struct {
		text string
		lp   likePattern
	}
	var last atomic.Pointer[cached]
	return bin(args[0], args[1], func(x, y row.Value) (row.Value, error) {
		c := last.Load()
		if c == nil || c.text != y.Str() {
			lp, err := compile(y.Str())
			if err != nil {
				return row.NullValue, err
			}
			c = &cached{text: y.Str(), lp: lp}
			last.Store(c)
		}
		return row.BoolValue(c.lp.match(x.Str())), nil
	}), nil
}

// escapeChar is the character of a constant ESCAPE argument.
func escapeChar(_ string, n node) (rune, bool) {
	if !n.konst || n.v.Kind() != row.Str || utf8.RuneCountInString(n.v.Str()) != 1 {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(n.v.Str())
	return r, true
}
