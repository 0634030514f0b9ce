package expr

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

// The rest of Flink's scalar built-ins: POSITION, OVERLAY, REGEXP, CHR,
// ENCODE, DECODE, FROM_BASE64, PARSE_URL, ELT, TRANSLATE, IS_ALPHA,
// IS_DECIMAL, IS_DIGIT, TRUNCATE and CURRENT_ROW_TIMESTAMP. They join the
// registry of funcs.go.
func init() {
	for name, f := range moreFunctions {
		if _, dup := functions[name]; dup {
			panic("expr: function " + name + " registered twice")
		}
		functions[name] = f
	}
}

// Charsets are the character sets of ENCODE and DECODE, Flink's list (Java
// names; case does not matter).
var Charsets = []string{"US-ASCII", "ISO-8859-1", "UTF-8", "UTF-16BE", "UTF-16LE", "UTF-16"}

// CharsetOf returns the canonical name of a charset of Charsets, and
// whether it is one.
func CharsetOf(name string) (string, bool) {
	for _, c := range Charsets {
		if strings.EqualFold(c, name) {
			return c, true
		}
	}
	return "", false
}

// charsetArg checks a constant charset argument (a column is checked at run
// time).
func charsetArg(a Expr) string {
	if c, ok := a.(*Const); ok {
		if s, ok := c.V.(string); ok {
			if _, ok := CharsetOf(s); !ok {
				return fmt.Sprintf("unsupported charset '%s': use one of %s", s, strings.Join(Charsets, ", "))
			}
		}
	}
	return ""
}

var (
	boolType = types.New(types.Boolean)
	bytesT   = types.BytesType()
)

var moreFunctions = map[string]*fn{
	"POSITION": {2, 2, "POSITION(sub IN s) is the position (from 1) of the first sub in s, 0 if none", all(isStr, "a string", fixed(intT))},
	"OVERLAY": {3, 4, "OVERLAY(s PLACING r FROM pos [FOR len]) replaces len characters of s (r's length by default) from pos with r", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) || !kindOK(args[1], isStr) || !kindOK(args[2], isInt) || len(args) == 4 && !kindOK(args[3], isInt) {
			return types.T{}, "expected OVERLAY(string PLACING string FROM integer [FOR integer]), got " + describeTypes(args)
		}
		return str, ""
	}},
	"REGEXP": {2, 2, "REGEXP(s, regex) is whether some part of s matches the (Java) regular expression", all(isStr, "a string", fixed(boolType))},
	"CHR":    {1, 1, "CHR(n) is the character of code n modulo 256 ('' for a negative n)", all(isInt, "an integer", fixed(str))},
	"ENCODE": {2, 2, "ENCODE(s, charset) is s's bytes in charset, one of " + strings.Join(Charsets, ", "), func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) || !kindOK(args[1], isStr) {
			return types.T{}, "expected a string and a charset name, got " + describeTypes(args)
		}
		if msg := charsetArg(args[1]); msg != "" {
			return types.T{}, msg
		}
		return bytesT, ""
	}},
	"DECODE": {2, 2, "DECODE(b, charset) is the string of the bytes b in charset, one of " + strings.Join(Charsets, ", "), func(args []Expr) (types.T, string) {
		if !kindOK(args[0], func(k types.Kind) bool { return k.IsBinary() }) || !kindOK(args[1], isStr) {
			return types.T{}, "expected bytes (BINARY, VARBINARY, BYTES) and a charset name, got " + describeTypes(args)
		}
		if msg := charsetArg(args[1]); msg != "" {
			return types.T{}, msg
		}
		return str, ""
	}},
	"FROM_BASE64": {1, 1, "FROM_BASE64(s) decodes base64 text, e.g. FROM_BASE64('aGVsbG8gd29ybGQ=') is 'hello world'", all(isStr, "a string", fixed(str))},
	"PARSE_URL": {2, 3, "PARSE_URL(url, part [, key]) with part HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY or USERINFO; PARSE_URL(url, 'QUERY', key) is key's value", func(args []Expr) (types.T, string) {
		if c, ok := args[1].(*Const); ok {
			if s, ok := c.V.(string); ok && !urlParts[s] {
				return types.T{}, fmt.Sprintf("unknown part '%s': use one of HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY, USERINFO (in capitals)", s)
			}
		}
		return all(isStr, "a string", fixed(str))(args)
	}},
	"ELT": {2, -1, "ELT(n, e1, e2, ...) is the n-th of e1, e2, ... (NULL when n is out of range)", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isInt) {
			return types.T{}, fmt.Sprintf("the index must be an integer, got %s", args[0].Type())
		}
		t, msg := commonOf(args[1:])
		if msg != "" {
			return t, msg
		}
		if t.Kind != types.Null && !t.Kind.IsString() && !t.Kind.IsBinary() {
			return types.T{}, "the values must be strings or bytes, got " + describeTypes(args[1:])
		}
		return t.WithNullable(true), ""
	}},
	"SPLIT": {2, 2, "SPLIT(s, delimiter) is the ARRAY of the pieces of s between delimiters (empty ones kept); an empty delimiter splits every character", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) || !kindOK(args[1], isStr) {
			return types.T{}, "expected two strings, got " + describeTypes(args)
		}
		return types.ArrayOf(str), ""
	}},
	"TRANSLATE":  {3, 3, "TRANSLATE(s, from, to) replaces each character of s found in from by the one at the same place in to, or drops it when to is shorter", all(isStr, "a string", fixed(str))},
	"IS_ALPHA":   {1, 1, "IS_ALPHA(s) is whether s is not empty and all letters (FALSE for NULL)", all(isStr, "a string", fixed(boolType.NotNull()))},
	"IS_DECIMAL": {1, 1, "IS_DECIMAL(s) is whether s is a number as Java reads one (FALSE for NULL)", all(isStr, "a string", fixed(boolType.NotNull()))},
	"IS_DIGIT":   {1, 1, "IS_DIGIT(s) is whether s is not empty and all digits (FALSE for NULL)", all(isStr, "a string", fixed(boolType.NotNull()))},
	"TRUNCATE": {1, 2, "TRUNCATE(n [, d]) is n cut (toward zero) to d decimal places (0 by default; d < 0 zeroes digits left of the point)", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isNum) || len(args) == 2 && !kindOK(args[1], isInt) {
			return types.T{}, "expected a number and an integer number of places, got " + describeTypes(args)
		}
		return roundType(args), ""
	}},
	"CURRENT_ROW_TIMESTAMP": {0, 0, "CURRENT_ROW_TIMESTAMP() is the wall-clock time of each row, a TIMESTAMP_LTZ(3)", func([]Expr) (types.T, string) { return types.TimestampLTZOf(3).NotNull(), "" }},
}

// flinkUnsupported reports whether name is a Flink built-in that the
// function table marks "not supported": calling one is refused as
// unsupported (SQL315), not as an unknown function.
func flinkUnsupported(name string) bool {
	for _, d := range functionDocs {
		if d.Name == name {
			return d.Flink == "not supported"
		}
	}
	return false
}

// unsupportedAdvice says what to use instead of an unsupported built-in.
var unsupportedAdvice = map[string]string{
	"COLLECT": "streamsql has no MULTISET: ARRAY_AGG(x) collects the values into an ARRAY",
}

// urlParts are the parts of PARSE_URL.
var urlParts = map[string]bool{"HOST": true, "PATH": true, "QUERY": true, "REF": true, "PROTOCOL": true, "FILE": true, "AUTHORITY": true, "USERINFO": true}

// trimSide binds TRIM(side [chars] FROM s), which the parser gives as
// TRIM(side, [chars,] s): BOTH is TRIM(s, chars), LEADING LTRIM(s, chars),
// TRAILING RTRIM(s, chars); chars is a set of characters, ' ' by default.
func (b *Binder) trimSide(e *ast.FuncCall, side *ast.Literal) Expr {
	args := make([]Expr, 0, 2)
	for _, a := range e.Args[1:] {
		args = append(args, b.bind(a))
	}
	if len(args) == 1 {
		args = append(args, &Const{V: " ", T: types.CharOf(1).NotNull(), S: side.S})
	} else {
		args[0], args[1] = args[1], args[0]
	}
	for i, a := range args {
		if !kindOK(a, isStr) {
			src := e.Args[len(e.Args)-1]
			if i == 1 {
				src = e.Args[1]
			}
			b.L.Errorf(diag.WrongArguments, src.Span(), "TRIM needs strings, but %s is %s", ast.Format(src), a.Type())
			return nullConst(e.S)
		}
	}
	fn := map[string]string{"BOTH": "TRIM", "LEADING": "LTRIM", "TRAILING": "RTRIM"}[strings.ToUpper(side.Raw)]
	return &Call{Fn: fn, Args: args, T: str, S: e.S}
}
