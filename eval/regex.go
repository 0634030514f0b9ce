package eval

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
)

// Flink's REGEXP_EXTRACT and REGEXP_REPLACE use java.util.regex; streamsql
// runs Go's RE2. A pattern runs here only when both read it the same way:
//
//   - Java features RE2 lacks (lookaround, backreferences, atomic groups,
//     possessive quantifiers, \Z, \h ...) are refused, named;
//   - constructs both accept but read differently are refused too: '&&',
//     a nested '[' and '[:' inside a character class (Java's class union,
//     intersection; RE2's literal characters or POSIX classes);
//   - for REGEXP_REPLACE, a pattern that can match both the empty string
//     and a non-empty one: after a non-empty match Java also replaces an
//     empty match at the same place, RE2 does not ('a*' on 'baaac' is
//     '-b--c-' in Java, '-b-c-' in Go).
//
// A constant pattern is checked when the query is compiled (so `check`
// refuses it). A pattern from a column that Java would refuse as well
// (an unbalanced parenthesis or bracket, a dangling quantifier, a trailing
// backslash) gives NULL, as in Flink, which logs and returns NULL; one that
// Java would run but RE2 cannot is an ErrInvalidArgument naming the reason.

// javaOnly names a construct of pat that RE2 lacks or reads differently
// from Java, or returns "".
func javaOnly(pat string) string {
	inClass := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		if c == '\\' && i+1 < len(pat) {
			n := pat[i+1]
			switch {
			case n >= '1' && n <= '9' && !inClass:
				return "a backreference (\\" + string(n) + ")"
			case n == 'k' && i+2 < len(pat) && pat[i+2] == '<':
				return "a named backreference (\\k<name>)"
			case n == 'Z' || n == 'G' || n == 'h' || n == 'H' || n == 'R' || n == 'X' || n == 'V' || n == 'v':
				return "the escape \\" + string(n)
			}
			i++
			continue
		}
		if inClass {
			switch {
			case c == ']':
				inClass = false
			case c == '[' && i+1 < len(pat) && pat[i+1] == ':':
				return "a POSIX class '[:' inside a character class (Java reads it as characters; use \\p{Alpha} ... is not supported either: list the characters)"
			case c == '[':
				return "a nested character class (Java's union)"
			case c == '&' && i+1 < len(pat) && pat[i+1] == '&':
				return "'&&' in a character class (Java's intersection)"
			}
			continue
		}
		switch c {
		case '[':
			inClass = true
			if i+1 < len(pat) && pat[i+1] == '^' {
				i++
			}
			if i+1 < len(pat) && pat[i+1] == ']' { // a leading ] is a character
				i++
			}
		case '(':
			rest := pat[i+1:]
			switch {
			case strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"):
				return "a lookahead (" + rest[:2] + ")"
			case strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
				return "a lookbehind (" + rest[:3] + ")"
			case strings.HasPrefix(rest, "?>"):
				return "an atomic group (?>)"
			}
		case '+':
			if i > 0 && strings.IndexByte("*+?}", pat[i-1]) >= 0 && (i < 2 || pat[i-2] != '\\') {
				return "a possessive quantifier (" + pat[i-1:i+1] + ")"
			}
		}
	}
	return ""
}

// javaRejects reports whether an RE2 compile error is one Java's
// Pattern.compile also raises for the same text.
func javaRejects(err error) bool {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case syntax.ErrMissingParen, syntax.ErrUnexpectedParen, syntax.ErrMissingBracket,
		syntax.ErrMissingRepeatArgument, syntax.ErrTrailingBackslash:
		return true
	default: // what Java may accept: \p{Alpha}, (?<name>...), ...
		return false
	}
}

// emptyAndNot reports whether re can match both the empty string and a
// non-empty one.
func emptyAndNot(re *syntax.Regexp) bool {
	return nullable(re) && !onlyEmpty(re)
}

func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	default: // literals, classes, any character, no match
		return false
	}
}

// onlyEmpty reports whether re matches nothing but the empty string.
func onlyEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return true
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return onlyEmpty(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		for _, s := range re.Sub {
			if !onlyEmpty(s) {
				return false
			}
		}
		return true
	default: // literals, classes, any character
		return false
	}
}

// compileJava compiles pat for fn, refusing what RE2 would run
// differently from Java. javaErr reports that Java refuses pat too.
func compileJava(fn, pat string, replace bool) (re *regexp.Regexp, javaErr bool, err error) {
	if what := javaOnly(pat); what != "" {
		return nil, false, errorf(ErrInvalidArgument, "%s: the regular expression %q uses %s, which streamsql (Go's RE2) does not run as Java does", fn, pat, what)
	}
	re, err = regexp.Compile(pat)
	if err != nil {
		return nil, javaRejects(err), errorf(ErrInvalidArgument, "%s: invalid regular expression %q: %v", fn, pat, err)
	}
	if replace {
		if p, perr := syntax.Parse(pat, syntax.Perl); perr == nil && emptyAndNot(p.Simplify()) {
			return nil, false, errorf(ErrInvalidArgument, "%s: the regular expression %q matches both empty and non-empty text, where Java and Go replace differently (write it so it cannot match the empty string, e.g. x+ for x*)", fn, pat)
		}
	}
	return re, false, nil
}

// regexArg is the pattern argument of fn: compiled once when constant (an
// error then refuses the query), else per row with the last one cached.
func regexArg(fn string, arg node, replace bool) (func(pat string) (*regexp.Regexp, error), error) {
	if arg.konst && !arg.v.IsNull() {
		re, _, err := compileJava(fn, arg.v.Str(), replace)
		if err != nil {
			return nil, err
		}
		return func(string) (*regexp.Regexp, error) { return re, nil }, nil
	}
	var last atomic.Pointer[regexp.Regexp]
	return func(pat string) (*regexp.Regexp, error) {
		if re := last.Load(); re != nil && re.String() == pat {
			return re, nil
		}
		re, javaErr, err := compileJava(fn, pat, replace)
		if err != nil {
			if javaErr {
				return nil, nil // Flink: NULL
			}
			return nil, err
		}
		last.Store(re)
		return re, nil
	}, nil
}

// regexpExtract is REGEXP_EXTRACT(s, regex [, group]), Flink's: the group
// (0, the default, is the whole match) of the first match; no match, or a
// group that does not exist, gives NULL.
func regexpExtract(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("eval: REGEXP_EXTRACT takes 2 or 3 arguments")
	}
	get, err := regexArg("REGEXP_EXTRACT", args[1], false)
	if err != nil {
		return nil, err
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		re, err := get(xs[1].Str())
		if re == nil {
			return row.NullValue, err
		}
		group := int64(0)
		if len(xs) > 2 {
			group = xs[2].Int()
		}
		if group < 0 || group > int64(re.NumSubexp()) {
			return row.NullValue, nil
		}
		m := re.FindStringSubmatchIndex(xs[0].Str())
		if m == nil || m[2*group] < 0 {
			return row.NullValue, nil
		}
		return row.StrValue(xs[0].Str()[m[2*group]:m[2*group+1]]), nil
	}), nil
}

// regexpReplace is REGEXP_REPLACE(s, regex, replacement), Flink's: every
// match replaced by the replacement taken literally ($1 is not a group).
func regexpReplace(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("eval: REGEXP_REPLACE takes 3 arguments")
	}
	get, err := regexArg("REGEXP_REPLACE", args[1], true)
	if err != nil {
		return nil, err
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		re, err := get(xs[1].Str())
		if re == nil {
			return row.NullValue, err
		}
		return row.StrValue(re.ReplaceAllLiteralString(xs[0].Str(), xs[2].Str())), nil
	}), nil
}

// splitIndex is SPLIT_INDEX(s, separator, index), Flink's (commons-lang's
// splitByWholeSeparatorPreserveAllTokens): the index-th (from 0) piece of s
// split at every occurrence of the whole separator, empty pieces kept; an
// empty separator splits at each whitespace character (Java's
// Character.isWhitespace). An empty s, a negative index or one past the
// last piece gives NULL.
func splitIndex(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("eval: SPLIT_INDEX takes 3 arguments")
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		s, sep, idx := xs[0].Str(), xs[1].Str(), xs[2].Int()
		if s == "" || idx < 0 {
			return row.NullValue, nil
		}
		// Walk to the idx-th piece; no slice of pieces per row.
		if sep != "" {
			for k := int64(0); ; k++ {
				before, after, found := strings.Cut(s, sep)
				if k == idx {
					return row.StrValue(before), nil
				}
				if !found {
					return row.NullValue, nil
				}
				s = after
			}
		}
		k, start := int64(0), 0
		for i, r := range s {
			if javaWhitespace(r) {
				if k == idx {
					return row.StrValue(s[start:i]), nil
				}
				k++
				start = i + len(string(r))
			}
		}
		if k == idx {
			return row.StrValue(s[start:]), nil
		}
		return row.NullValue, nil
	}), nil
}

// javaWhitespace is Java's Character.isWhitespace: Unicode space
// separators other than the non-breaking ones, line and paragraph
// separators, and \t \n \v \f \r and \x1C..\x1F.
func javaWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1C, 0x1D, 0x1E, 0x1F:
		return true
	case 0xA0, 0x2007, 0x202F:
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}
