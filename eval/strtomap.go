package eval

import (
	"fmt"
	"regexp"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
)

func init() {
	functions["STR_TO_MAP"] = strToMap
}

// strToMap is STR_TO_MAP(text [, listDelimiter, keyValueDelimiter]),
// Flink's (SqlFunctionUtils.strToMap): text is split into pairs by
// listDelimiter (',' by default), and each pair into its key and value at
// the first keyValueDelimiter ('=' by default); a pair without one is a key
// whose value is NULL. Both delimiters are Java regular expressions, split
// as Java's String.split splits (trailing empty pairs dropped); of two
// pairs with one key the later wins. Empty text is the empty map; a NULL
// argument gives NULL. A delimiter RE2 would read differently from Java
// is refused as REGEXP_REPLACE refuses it.
func strToMap(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 1 && len(args) != 3 {
		return nil, fmt.Errorf("eval: STR_TO_MAP takes 1 or 3 arguments")
	}
	list, kv := func(string) (*regexp.Regexp, error) { return comma, nil }, func(string) (*regexp.Regexp, error) { return equals, nil }
	if len(args) == 3 {
		var err error
		// replace: a delimiter that can match both empty and non-empty
		// text splits differently in Java and Go, as it replaces.
		if list, err = regexArg("STR_TO_MAP", args[1], true); err != nil {
			return nil, err
		}
		if kv, err = regexArg("STR_TO_MAP", args[2], true); err != nil {
			return nil, err
		}
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		text := xs[0].Str()
		if text == "" {
			return row.MapValue(nil, nil), nil
		}
		lre, err := list(argStr(xs, 1))
		if lre == nil {
			return row.NullValue, err
		}
		kre, err := kv(argStr(xs, 2))
		if kre == nil {
			return row.NullValue, err
		}
		pairs := javaSplit(lre, text, 0)
		keys := make([]row.Value, 0, len(pairs))
		vals := make([]row.Value, 0, len(pairs))
		for _, p := range pairs {
			parts := javaSplit(kre, p, 2)
			if len(parts) < 2 {
				keys, vals = append(keys, row.StrValue(p)), append(vals, row.NullValue)
				continue
			}
			keys, vals = append(keys, row.StrValue(parts[0])), append(vals, row.StrValue(parts[1]))
		}
		return row.MapValue(keys, vals), nil
	}), nil
}

var (
	comma  = regexp.MustCompile(",")
	equals = regexp.MustCompile("=")
)

func argStr(xs []row.Value, i int) string {
	if i < len(xs) {
		return xs[i].Str()
	}
	return ""
}

// javaSplit splits s around the matches of re as Java's
// String.split(regex, limit) does: limit > 0 gives at most limit parts
// (the last holding the rest of s); limit 0 drops the trailing empty
// parts. A match of the empty string at the start gives no empty first
// part; s without a match is the one part s.
func javaSplit(re *regexp.Regexp, s string, limit int) []string {
	var out []string
	index := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if limit > 0 && len(out) >= limit-1 {
			break
		}
		if m[0] == 0 && m[1] == 0 {
			continue
		}
		out = append(out, s[index:m[0]])
		index = m[1]
	}
	if index == 0 && len(out) == 0 {
		return []string{s}
	}
	out = append(out, s[index:])
	if limit == 0 {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}
