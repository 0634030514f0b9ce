package expr

import (
	"fmt"
	"sort"

	"github.com/streamsql/streamsql/types"
)

// fn describes a scalar function: how many arguments it takes and how its
// result type follows from theirs.
type fn struct {
	min, max int // max < 0: any number
	usage    string
	check    func(args []Expr) (types.T, string)
}

func (f *fn) arity() string {
	switch {
	case f.min == f.max:
		return plural(f.min, "argument")
	case f.max < 0:
		return fmt.Sprintf("at least %s", plural(f.min, "argument"))
	}
	return fmt.Sprintf("%d to %d arguments", f.min, f.max)
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

func kindOK(e Expr, pred func(types.Kind) bool) bool { return isNull(e) || pred(e.Type().Kind) }

func isStr(k types.Kind) bool      { return k.IsString() }
func isNum(k types.Kind) bool      { return k.IsNumeric() }
func isInt(k types.Kind) bool      { return k.IsIntegral() }
func isTemporal(k types.Kind) bool { return k.IsTemporal() }

// all returns a check that every argument satisfies pred, with a result.
func all(pred func(types.Kind) bool, what string, result func(args []Expr) types.T) func([]Expr) (types.T, string) {
	return func(args []Expr) (types.T, string) {
		for i, a := range args {
			if !kindOK(a, pred) {
				return types.T{}, fmt.Sprintf("argument %d must be %s, got %s", i+1, what, a.Type())
			}
		}
		return result(args), ""
	}
}

func fixed(t types.T) func([]Expr) types.T { return func([]Expr) types.T { return t } }

func firstType(args []Expr) types.T { return args[0].Type() }

// scale0Type is FLOOR's and CEIL's: a DECIMAL(p, s) gives DECIMAL(p, 0)
// (Flink's DECIMAL_SCALE_0), other numbers keep their type.
func scale0Type(args []Expr) types.T {
	t := args[0].Type()
	if t.Kind == types.Decimal && t.Scale > 0 {
		return types.DecimalOf(t.Precision, 0).WithNullable(t.Nullable)
	}
	return t
}

// roundType is ROUND's (Flink's findRoundDecimalType): ROUND of a
// DECIMAL(p, s) to r digits, r a literal (0 without one), is DECIMAL(p, s)
// when r >= s, DECIMAL(1 + p - s, 0) when r < 0, else DECIMAL(1 + p - s + r,
// r) (rounding may carry into one more integer digit). Other numbers, and
// a number of digits that is not a literal, keep the type.
func roundType(args []Expr) types.T {
	t := args[0].Type()
	if t.Kind != types.Decimal {
		return t
	}
	r := int64(0)
	if len(args) == 2 {
		var ok bool
		if r, ok = intLiteral(args[1]); !ok {
			return t
		}
	}
	switch {
	case r >= int64(t.Scale):
		return t
	case r < 0:
		return types.DecimalOf(min(types.MaxDecimalPrecision, 1+t.Precision-t.Scale), 0).WithNullable(t.Nullable)
	}
	return types.DecimalOf(min(types.MaxDecimalPrecision, 1+t.Precision-t.Scale+int(r)), int(r)).WithNullable(t.Nullable)
}

// intLiteral is the value of an integer literal (or of a negated one).
func intLiteral(e Expr) (int64, bool) {
	switch x := e.(type) {
	case *Const:
		v, ok := x.V.(int64)
		return v, ok
	case *Call:
		if x.Fn == "NEG" && len(x.Args) == 1 {
			v, ok := intLiteral(x.Args[0])
			return -v, ok
		}
	}
	return 0, false
}

func commonOf(args []Expr) (types.T, string) {
	var t types.T
	first := true
	for _, a := range args {
		if isNull(a) {
			continue
		}
		if first {
			t, first = a.Type(), false
			continue
		}
		c, ok := types.CommonType(t, a.Type())
		if !ok {
			return types.T{}, fmt.Sprintf("arguments have no common type %s", describeTypes(args))
		}
		t = c
	}
	if first {
		return types.New(types.Null), ""
	}
	return t, ""
}

var str = types.StringType()

var functions = map[string]*fn{
	"TO_TIMESTAMP_LTZ": {2, 2, "TO_TIMESTAMP_LTZ(epoch, precision) with precision 0 (seconds) or 3 (milliseconds)",
		func(args []Expr) (types.T, string) {
			if !kindOK(args[0], isNum) {
				return types.T{}, fmt.Sprintf("the epoch must be a number, got %s", args[0].Type())
			}
			c, ok := args[1].(*Const)
			p, isInt := int64(0), false
			if ok {
				p, isInt = c.V.(int64)
			}
			if !isInt || p != 0 && p != 3 {
				return types.T{}, "the precision must be the literal 0 (epoch seconds) or 3 (epoch milliseconds)"
			}
			return types.TimestampLTZOf(int(p)).WithNullable(args[0].Type().Nullable), ""
		}},
	"TO_TIMESTAMP": {1, 2, "TO_TIMESTAMP(string [, format]) parses 'yyyy-MM-dd HH:mm:ss' (or the format) into TIMESTAMP(3)",
		all(isStr, "a string", fixed(types.TimestampOf(3)))},
	"TO_DATE":  {1, 2, "TO_DATE(string [, format])", all(isStr, "a string", fixed(types.New(types.Date)))},
	"COALESCE": {1, -1, "COALESCE(a, b, ...) returns the first argument that is not NULL", commonOf},
	"IFNULL":   {2, 2, "IFNULL(a, b)", commonOf},
	"NULLIF": {2, 2, "NULLIF(a, b)", func(args []Expr) (types.T, string) {
		if !types.Comparable(args[0].Type(), args[1].Type()) {
			return types.T{}, "the arguments cannot be compared " + describeTypes(args)
		}
		return args[0].Type().WithNullable(true), ""
	}},
	"IF": {3, 3, "IF(condition, then, else)", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], func(k types.Kind) bool { return k == types.Boolean }) {
			return types.T{}, fmt.Sprintf("the condition must be BOOLEAN, got %s", args[0].Type())
		}
		return commonOf(args[1:])
	}},
	"CONCAT":           {1, -1, "CONCAT(s1, s2, ...)", all(isStr, "a string", fixed(str))},
	"CONCAT_WS":        {2, -1, "CONCAT_WS(separator, s1, s2, ...)", all(isStr, "a string", fixed(str))},
	"UPPER":            {1, 1, "UPPER(s)", all(isStr, "a string", fixed(str))},
	"LOWER":            {1, 1, "LOWER(s)", all(isStr, "a string", fixed(str))},
	"TRIM":             {1, 3, "TRIM(s), or TRIM([BOTH | LEADING | TRAILING] chars FROM s)", all(isStr, "a string", fixed(str))},
	"LTRIM":            {1, 2, "LTRIM(s [, chars]) removes the spaces (the characters of chars) at the start of s", all(isStr, "a string", fixed(str))},
	"RTRIM":            {1, 2, "RTRIM(s [, chars]) removes the spaces (the characters of chars) at the end of s", all(isStr, "a string", fixed(str))},
	"CHAR_LENGTH":      {1, 1, "CHAR_LENGTH(s)", all(isStr, "a string", fixed(types.New(types.Int)))},
	"CHARACTER_LENGTH": {1, 1, "CHARACTER_LENGTH(s)", all(isStr, "a string", fixed(types.New(types.Int)))},
	"SUBSTRING": {2, 3, "SUBSTRING(s, start [, length])", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) {
			return types.T{}, fmt.Sprintf("the first argument must be a string, got %s", args[0].Type())
		}
		for _, a := range args[1:] {
			if !kindOK(a, isInt) {
				return types.T{}, fmt.Sprintf("start and length must be integers, got %s", a.Type())
			}
		}
		return str, ""
	}},
	"REPLACE": {3, 3, "REPLACE(s, from, to)", all(isStr, "a string", fixed(str))},
	"REGEXP_EXTRACT": {2, 3, "REGEXP_EXTRACT(s, regex [, group])", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) || !kindOK(args[1], isStr) || len(args) == 3 && !kindOK(args[2], isInt) {
			return types.T{}, "expected a string, a regular expression and an integer group, got " + describeTypes(args)
		}
		return str, ""
	}},
	"REGEXP_REPLACE": {3, 3, "REGEXP_REPLACE(s, regex, replacement)", all(isStr, "a string", fixed(str))},
	"SPLIT_INDEX": {3, 3, "SPLIT_INDEX(s, separator, index) with index from 0", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], isStr) || !kindOK(args[1], isStr) || !kindOK(args[2], isInt) {
			return types.T{}, "expected a string, a separator string and an integer index, got " + describeTypes(args)
		}
		return str, ""
	}},
	"MD5":   {1, 1, "MD5(s)", all(isStr, "a string", fixed(str))},
	"ABS":   {1, 1, "ABS(n)", all(isNum, "a number", firstType)},
	"FLOOR": {1, 2, "FLOOR(n), or FLOOR(t TO unit) for a DATE, TIME or TIMESTAMP t, e.g. FLOOR(ts TO HOUR)", all(isNum, "a number", scale0Type)},
	"CEIL":  {1, 2, "CEIL(n), or CEIL(t TO unit) for a DATE, TIME or TIMESTAMP t, e.g. CEIL(ts TO DAY)", all(isNum, "a number", scale0Type)},
	"ROUND": {1, 2, "ROUND(n [, digits])", all(isNum, "a number", roundType)},
	"MOD":   {2, 2, "MOD(a, b)", all(isInt, "an integer", firstType)},
	"POWER": {2, 2, "POWER(a, b)", all(isNum, "a number", fixed(types.New(types.Double)))},
	"SQRT":  {1, 1, "SQRT(n)", all(isNum, "a number", fixed(types.New(types.Double)))},
	"LN":    {1, 1, "LN(n)", all(isNum, "a number", fixed(types.New(types.Double)))},
	"LOG10": {1, 1, "LOG10(n)", all(isNum, "a number", fixed(types.New(types.Double)))},
	"EXP":   {1, 1, "EXP(n)", all(isNum, "a number", fixed(types.New(types.Double)))},
	"DATE_FORMAT": {2, 2, "DATE_FORMAT(timestamp, 'yyyy-MM-dd HH:mm')", func(args []Expr) (types.T, string) {
		if !kindOK(args[0], func(k types.Kind) bool { return k.IsTemporal() || k.IsString() }) || !kindOK(args[1], isStr) {
			return types.T{}, "expected a timestamp and a format string, got " + describeTypes(args)
		}
		return str, ""
	}},
	"UNIX_TIMESTAMP":    {0, 2, "UNIX_TIMESTAMP([string [, format]])", all(isStr, "a string", fixed(types.New(types.BigInt)))},
	"FROM_UNIXTIME":     {1, 2, "FROM_UNIXTIME(seconds [, format])", func(args []Expr) (types.T, string) { return str, "" }},
	"PROCTIME":          {0, 0, "PROCTIME() is the processing time attribute", func([]Expr) (types.T, string) { return types.TimestampLTZOf(3).NotNull(), "" }},
	"CURRENT_TIMESTAMP": {0, 0, "CURRENT_TIMESTAMP", func([]Expr) (types.T, string) { return types.TimestampLTZOf(3).NotNull(), "" }},
	"NOW":               {0, 0, "NOW()", func([]Expr) (types.T, string) { return types.TimestampLTZOf(3).NotNull(), "" }},
	"CURRENT_WATERMARK": {1, 1, "CURRENT_WATERMARK(rowtime)", func(a []Expr) (types.T, string) {
		// As in Flink: the argument is an event-time attribute, whose type
		// the result takes.
		if c, ok := a[0].(*Column); !ok || c.Time != RowTime {
			return types.T{}, "the argument must be an event-time attribute (a column with a WATERMARK that the query passes through)"
		}
		return a[0].Type().WithNullable(true), ""
	}},
	"EXTRACT":       {2, 2, "EXTRACT(HOUR FROM ts)", nil},
	"TIMESTAMPDIFF": {3, 3, "TIMESTAMPDIFF(SECOND, ts1, ts2)", nil},
	"TIMESTAMPADD":  {3, 3, "TIMESTAMPADD(DAY, 1, ts)", nil},
	"YEAR":          {1, 1, "YEAR(date)", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"QUARTER":       {1, 1, "QUARTER(date)", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"MONTH":         {1, 1, "MONTH(date)", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"WEEK":          {1, 1, "WEEK(date) is the ISO-8601 week, 1 to 53", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"DAYOFYEAR":     {1, 1, "DAYOFYEAR(date)", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"DAYOFMONTH":    {1, 1, "DAYOFMONTH(date)", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"DAYOFWEEK":     {1, 1, "DAYOFWEEK(date) is 1 (Sunday) to 7 (Saturday)", all(isTemporal, "a date or timestamp", fixed(types.New(types.BigInt)))},
	"HOUR":          {1, 1, "HOUR(ts)", all(isTemporal, "a time", fixed(types.New(types.BigInt)))},
	"MINUTE":        {1, 1, "MINUTE(ts)", all(isTemporal, "a time", fixed(types.New(types.BigInt)))},
	"SECOND":        {1, 1, "SECOND(ts)", all(isTemporal, "a time", fixed(types.New(types.BigInt)))},
	"HASH_CODE":     {1, 1, "HASH_CODE(x)", func([]Expr) (types.T, string) { return types.New(types.Int), "" }},
}

// aggregates maps aggregate names to their result typing.
var aggregates = map[string]func(args []Expr) (types.T, string){
	"COUNT": func([]Expr) (types.T, string) { return types.New(types.BigInt).NotNull(), "" },
	"SUM": func(a []Expr) (types.T, string) {
		if len(a) != 1 || !kindOK(a[0], isNum) {
			return types.T{}, "SUM takes one numeric argument"
		}
		t := a[0].Type()
		switch {
		case t.Kind.IsIntegral():
			return types.New(types.BigInt), ""
		case t.Kind == types.Decimal:
			return types.DecimalOf(types.MaxDecimalPrecision, t.Scale), ""
		}
		return t.WithNullable(true), ""
	},
	"AVG": func(a []Expr) (types.T, string) {
		if len(a) != 1 || !kindOK(a[0], isNum) {
			return types.T{}, "AVG takes one numeric argument"
		}
		if t := a[0].Type(); t.Kind == types.Decimal {
			// Flink's findAvgAggType: DECIMAL(38, max(6, s)), the quotient
			// of the sum by a BIGINT count.
			return types.DecimalOf(types.MaxDecimalPrecision, max(6, t.Scale)), ""
		}
		return a[0].Type().WithNullable(true), ""
	},
	// Flink's (Calcite's) statistical aggregates: the argument's type for
	// numbers other than DECIMAL (the result truncated to an integer
	// type, as Flink's), a DOUBLE for a DECIMAL.
	"STDDEV_POP":  statAgg("STDDEV_POP"),
	"STDDEV_SAMP": statAgg("STDDEV_SAMP"),
	"VAR_POP":     statAgg("VAR_POP"),
	"VAR_SAMP":    statAgg("VAR_SAMP"),
	"MIN":         minMax,
	"MAX":         minMax,
	"FIRST_VALUE": oneArg,
	"LAST_VALUE":  oneArg,
	// WINDOW_FINALITY() and WINDOW_VERSION() (streamsql's, #17) fold
	// nothing: a window aggregate fills them in as it emits each row (see
	// IsWindowMeta).
	"WINDOW_FINALITY": noArgs("WINDOW_FINALITY", types.StringType().NotNull()),
	"WINDOW_VERSION":  noArgs("WINDOW_VERSION", types.New(types.BigInt).NotNull()),
	// ARRAY_AGG(x): the values in arrival order, NULLs kept (Flink's
	// default, RESPECT NULLS); NULL for no rows.
	"ARRAY_AGG": func(a []Expr) (types.T, string) {
		if len(a) != 1 {
			return types.T{}, "ARRAY_AGG takes one argument"
		}
		el := a[0].Type()
		if el.Kind == types.Null {
			return types.T{}, "ARRAY_AGG cannot take an untyped NULL (CAST it)"
		}
		return types.ArrayOf(el.WithNullable(true)).WithNullable(true), ""
	},
	// ArrayAggFiltered is ARRAY_AGG(x) FILTER (WHERE c), which the planner
	// gives as this over CASE WHEN c THEN ROW(x) END: a NULL (a row c
	// leaves out) is skipped, a ROW gives its field, NULL or not.
	ArrayAggFiltered: func(a []Expr) (types.T, string) {
		if len(a) != 1 || a[0].Type().Kind != types.Row || a[0].Type().NumFields() != 1 {
			return types.T{}, "internal: " + ArrayAggFiltered + " takes a ROW of one field"
		}
		return types.ArrayOf(a[0].Type().Fields()[0].Type.WithNullable(true)).WithNullable(true), ""
	},
	// JSON_OBJECTAGG and JSON_ARRAYAGG (Flink's JsonObjectAggFunction and
	// JsonArrayAggFunction): the planner gives them ROW(key, JSON_STRING(v))
	// and ROW(JSON_STRING(v)) (a NULL row is one FILTER leaves out) and
	// their ON NULL behaviour, 'NULL' or 'ABSENT', as a constant.
	"JSON_OBJECTAGG": jsonAgg(2),
	"JSON_ARRAYAGG":  jsonAgg(1),
	"LISTAGG": func(a []Expr) (types.T, string) {
		if len(a) < 1 || len(a) > 2 {
			return types.T{}, "LISTAGG takes an expression and an optional separator"
		}
		if !kindOK(a[0], isStr) {
			// As Flink: LISTAGG concatenates strings; CAST others.
			return types.T{}, fmt.Sprintf("LISTAGG takes a string, not %s (CAST it to STRING)", a[0].Type())
		}
		if len(a) == 2 {
			if c, ok := a[1].(*Const); !ok || !isStringConst(c) {
				return types.T{}, "LISTAGG's separator must be a string literal"
			}
		}
		return str.WithNullable(true), ""
	},
}

func jsonAgg(fields int) func(a []Expr) (types.T, string) {
	return func(a []Expr) (types.T, string) {
		if len(a) != 2 || a[0].Type().Kind != types.Row || a[0].Type().NumFields() != fields {
			return types.T{}, "internal: a JSON aggregate takes a ROW and its ON NULL behaviour"
		}
		if c, ok := a[1].(*Const); !ok || !isStringConst(c) {
			return types.T{}, "internal: a JSON aggregate's ON NULL behaviour is not a constant"
		}
		for _, f := range a[0].Type().Fields() {
			if !f.Type.Kind.IsString() && f.Type.Kind != types.Null {
				return types.T{}, "internal: a JSON aggregate takes strings"
			}
		}
		return types.StringType().NotNull(), ""
	}
}

func statAgg(name string) func(a []Expr) (types.T, string) {
	return func(a []Expr) (types.T, string) {
		if len(a) != 1 || !kindOK(a[0], isNum) {
			return types.T{}, name + " takes one numeric argument"
		}
		if k := a[0].Type().Kind; k == types.Decimal || k == types.Null {
			// Flink's is a DECIMAL(38, max(6, s)); the runtime's DECIMAL
			// holds 18 digits, too few for the square of a DECIMAL(10, 2).
			return types.New(types.Double), ""
		}
		return a[0].Type().WithNullable(true), ""
	}
}

func minMax(a []Expr) (types.T, string) {
	if len(a) != 1 {
		return types.T{}, "takes one argument"
	}
	if t := a[0].Type(); t.IsNested() {
		return types.T{}, "cannot take " + t.String() + " values: ARRAY, MAP and ROW values have no order"
	}
	return a[0].Type().WithNullable(true), ""
}

func oneArg(a []Expr) (types.T, string) {
	if len(a) != 1 {
		return types.T{}, "takes one argument"
	}
	return a[0].Type().WithNullable(true), ""
}

func noArgs(name string, t types.T) func([]Expr) (types.T, string) {
	return func(a []Expr) (types.T, string) {
		if len(a) != 0 {
			return types.T{}, name + "() takes no arguments"
		}
		return t, ""
	}
}

// IsWindowMeta reports whether name (upper case) is WINDOW_FINALITY or
// WINDOW_VERSION: aggregates without arguments whose value a window
// aggregate gives each row it emits ('PRELIMINARY', 'UPDATED' or 'FINAL';
// 1, 2, ... per window and group key), not a fold of the rows.
func IsWindowMeta(name string) bool { return name == "WINDOW_FINALITY" || name == "WINDOW_VERSION" }

// ArrayAggFiltered is the internal aggregate of ARRAY_AGG(x) FILTER (WHERE
// c); its name has a space, so that no query can call it.
const ArrayAggFiltered = "ARRAY_AGG FILTERED"

// IsAggregate reports whether name (upper case) is an aggregate function.
func IsAggregate(name string) bool { _, ok := aggregates[name]; return ok }

// AggregateType returns the result type of aggregate name over args, or a
// message saying why the arguments do not fit.
func AggregateType(name string, args []Expr) (types.T, string) {
	f, ok := aggregates[name]
	if !ok {
		return types.T{}, "unknown aggregate " + name
	}
	return f(args)
}

// FunctionNames lists every scalar and aggregate function, sorted.
func FunctionNames() []string {
	var out []string
	for n := range functions {
		out = append(out, n)
	}
	for n := range aggregates {
		if n != ArrayAggFiltered { // internal: no one can call it by name
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func isStringConst(c *Const) bool {
	_, ok := c.V.(string)
	return ok && c.T.Kind.IsString()
}
