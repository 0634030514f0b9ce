package expr

import "github.com/streamsql/streamsql/types"

func init() {
	if _, dup := functions["STR_TO_MAP"]; dup {
		panic("expr: function STR_TO_MAP registered twice")
	}
	functions["STR_TO_MAP"] = &fn{1, 3, "STR_TO_MAP(text [, listDelimiter, keyValueDelimiter]): a MAP<STRING, STRING> of the pairs of text; the delimiters (',' and '=' by default) are regular expressions",
		func(args []Expr) (types.T, string) {
			if len(args) == 2 {
				return types.T{}, "takes the text alone, or the text and both delimiters (the pairs' and the key's), as in STR_TO_MAP(s, ';', ':')"
			}
			for _, a := range args {
				if !kindOK(a, isStr) {
					return types.T{}, "expected strings (the text and its delimiters), got " + describeTypes(args)
				}
			}
			return types.MapOf(types.StringType(), types.StringType()), ""
		}}
}
