package expr

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// More of Flink's built-in scalar functions (its "System (Built-in)
// Functions" page): string, numeric, temporal and conditional ones. They
// join the registry of funcs.go.
func init() {
	for name, f := range flinkFunctions {
		if _, dup := functions[name]; dup {
			panic("expr: function " + name + " registered twice")
		}
		functions[name] = f
	}
}

var (
	dbl  = types.New(types.Double)
	intT = types.New(types.Int)
)

// strIntStr is the check of LPAD and RPAD: (string, integer, string).
func strIntStr(args []Expr) (types.T, string) {
	if !kindOK(args[0], isStr) || !kindOK(args[1], isInt) || !kindOK(args[2], isStr) {
		return types.T{}, "expected a string, an integer length and a string, got " + describeTypes(args)
	}
	return str, ""
}

// strInt is the check of (string, integer) functions with a string result.
func strInt(args []Expr) (types.T, string) {
	if !kindOK(args[0], isStr) || !kindOK(args[1], isInt) {
		return types.T{}, "expected a string and an integer, got " + describeTypes(args)
	}
	return str, ""
}

// greatestLeast is GREATEST's and LEAST's: comparable arguments with a
// common type, which is the result's.
func greatestLeast(args []Expr) (types.T, string) {
	t, msg := commonOf(args)
	if msg != "" {
		return t, msg
	}
	for _, a := range args {
		if !isNull(a) && !types.Comparable(t, a.Type()) {
			return types.T{}, "the arguments cannot be compared " + describeTypes(args)
		}
	}
	return t.WithNullable(true), ""
}

// randSeed checks RAND's and RAND_INTEGER's seed: an integer literal.
func randSeed(a Expr) string {
	if _, ok := intLiteral(a); !ok {
		return fmt.Sprintf("the seed must be an integer literal, got %s", a.Type())
	}
	return ""
}

var flinkFunctions = map[string]*fn{
	// string
	"LPAD":    {3, 3, "LPAD(s, length, pad) pads s on the left with pad to length characters (or cuts it to length)", strIntStr},
	"RPAD":    {3, 3, "RPAD(s, length, pad) pads s on the right with pad to length characters (or cuts it to length)", strIntStr},
	"REPEAT":  {2, 2, "REPEAT(s, n) is s repeated n times", strInt},
	"LEFT":    {2, 2, "LEFT(s, n) is the first n characters of s", strInt},
	"RIGHT":   {2, 2, "RIGHT(s, n) is the last n characters of s", strInt},
	"REVERSE": {1, 1, "REVERSE(s)", all(isStr, "a string", fixed(str))},
	"INITCAP": {1, 1, "INITCAP(s) capitalises the first letter of each word and lowers the others", all(isStr, "a string", fixed(str))},
	"ASCII":   {1, 1, "ASCII(s) is the code of the first character of s (0 for '')", all(isStr, "a string", fixed(intT))},
	"INSTR":   {2, 2, "INSTR(s, sub) is the position (from 1) of the first sub in s, 0 if none", all(isStr, "a string", fixed(intT))},
	"LOCATE": {2, 3, "LOCATE(sub, s [, from]) is the position (from 1) of the first sub in s at or after from, 0 if none", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) || !kindOK(args[1], isStr) || len(args) == 3 && !kindOK(args[2], isInt) {
			return types.T{}, "expected two strings and an integer position, got " + describeTypes(args)
		}
		return intT, ""
	}},
	"TO_BASE64": {1, 1, "TO_BASE64(s) is the base64 encoding of s's UTF-8 bytes", all(isStr, "a string", fixed(str))},
	"SHA1":      {1, 1, "SHA1(s) in hexadecimal", all(isStr, "a string", fixed(str))},
	"SHA224":    {1, 1, "SHA224(s) in hexadecimal", all(isStr, "a string", fixed(str))},
	"SHA256":    {1, 1, "SHA256(s) in hexadecimal", all(isStr, "a string", fixed(str))},
	"SHA384":    {1, 1, "SHA384(s) in hexadecimal", all(isStr, "a string", fixed(str))},
	"SHA512":    {1, 1, "SHA512(s) in hexadecimal", all(isStr, "a string", fixed(str))},
	"SHA2": {2, 2, "SHA2(s, bits) with bits 224, 256, 384 or 512", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) {
			return types.T{}, fmt.Sprintf("the first argument must be a string, got %s", args[0].Type())
		}
		if n, ok := intLiteral(args[1]); !ok || n != 224 && n != 256 && n != 384 && n != 512 {
			return types.T{}, "the number of bits must be the literal 224, 256, 384 or 512"
		}
		return str, ""
	}},
	"UUID": {0, 0, "UUID() is a random (version 4) UUID", func([]Expr) (types.T, string) { return str.NotNull(), "" }},
	// numeric
	"SIN":     {1, 1, "SIN(n)", all(isNum, "a number", fixed(dbl))},
	"COS":     {1, 1, "COS(n)", all(isNum, "a number", fixed(dbl))},
	"TAN":     {1, 1, "TAN(n)", all(isNum, "a number", fixed(dbl))},
	"COT":     {1, 1, "COT(n)", all(isNum, "a number", fixed(dbl))},
	"ASIN":    {1, 1, "ASIN(n)", all(isNum, "a number", fixed(dbl))},
	"ACOS":    {1, 1, "ACOS(n)", all(isNum, "a number", fixed(dbl))},
	"ATAN":    {1, 1, "ATAN(n)", all(isNum, "a number", fixed(dbl))},
	"ATAN2":   {2, 2, "ATAN2(y, x)", all(isNum, "a number", fixed(dbl))},
	"SINH":    {1, 1, "SINH(n)", all(isNum, "a number", fixed(dbl))},
	"COSH":    {1, 1, "COSH(n)", all(isNum, "a number", fixed(dbl))},
	"TANH":    {1, 1, "TANH(n)", all(isNum, "a number", fixed(dbl))},
	"DEGREES": {1, 1, "DEGREES(radians)", all(isNum, "a number", fixed(dbl))},
	"RADIANS": {1, 1, "RADIANS(degrees)", all(isNum, "a number", fixed(dbl))},
	"LOG":     {1, 2, "LOG(n) is the natural logarithm; LOG(base, n)", all(isNum, "a number", fixed(dbl))},
	"LOG2":    {1, 1, "LOG2(n)", all(isNum, "a number", fixed(dbl))},
	"PI":      {0, 0, "PI()", func([]Expr) (types.T, string) { return dbl.NotNull(), "" }},
	"E":       {0, 0, "E()", func([]Expr) (types.T, string) { return dbl.NotNull(), "" }},
	"SIGN":    {1, 1, "SIGN(n) is -1, 0 or 1, in n's type", all(isNum, "a number", firstType)},
	"BIN":     {1, 1, "BIN(n) is the integer n in binary", all(isInt, "an integer", fixed(str))},
	"HEX": {1, 1, "HEX(n) is the integer n in hexadecimal; HEX(s), s's UTF-8 bytes", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], func(k types.Kind) bool { return k.IsIntegral() || k.IsString() }) {
			return types.T{}, fmt.Sprintf("the argument must be an integer or a string, got %s", args[0].Type())
		}
		return str, ""
	}},
	"RAND": {0, 1, "RAND([seed]) is a random DOUBLE in [0, 1); with a seed, the sequence of java.util.Random(seed)", func(args []Expr) (types.T, string) {
		if len(args) == 1 {
			if msg := randSeed(args[0]); msg != "" {
				return types.T{}, msg
			}
		}
		return dbl.NotNull(), ""
	}},
	"RAND_INTEGER": {1, 2, "RAND_INTEGER([seed,] bound) is a random INT in [0, bound)", func(args []Expr) (types.T, string) {
		if len(args) == 2 {
			if msg := randSeed(args[0]); msg != "" {
				return types.T{}, msg
			}
		}
		if b := args[len(args)-1]; !kindOK(b, isInt) {
			return types.T{}, fmt.Sprintf("the bound must be an integer, got %s", b.Type())
		}
		return intT.WithNullable(args[len(args)-1].Type().Nullable), ""
	}},
	// conditional
	"GREATEST": {1, -1, "GREATEST(a, b, ...) is the greatest argument, NULL if one is NULL", greatestLeast},
	"LEAST":    {1, -1, "LEAST(a, b, ...) is the least argument, NULL if one is NULL", greatestLeast},
	// temporal
	"CURRENT_DATE":   {0, 0, "CURRENT_DATE is today's date (UTC)", func([]Expr) (types.T, string) { return types.New(types.Date).NotNull(), "" }},
	"CURRENT_TIME":   {0, 0, "CURRENT_TIME is the time of day (UTC)", func([]Expr) (types.T, string) { return types.TimeOf(0).NotNull(), "" }},
	"LOCALTIME":      {0, 0, "LOCALTIME is the time of day in the session time zone (UTC)", func([]Expr) (types.T, string) { return types.TimeOf(0).NotNull(), "" }},
	"LOCALTIMESTAMP": {0, 0, "LOCALTIMESTAMP is the TIMESTAMP(3) of now in the session time zone (UTC)", func([]Expr) (types.T, string) { return types.TimestampOf(3).NotNull(), "" }},
	"CONVERT_TZ": {3, 3, "CONVERT_TZ('yyyy-MM-dd HH:mm:ss', from_zone, to_zone), e.g. CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles')",
		all(isStr, "a string", fixed(str))},
}
