package oracle

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// node is a scalar or aggregate expression of a generated query. One
// struct for every operator keeps cloning, walking and shrinking simple;
// op says which it is:
//
//	col                   q.name
//	lit                   val, of type lt (nil val: a typed NULL)
//	+ - * / %             args[0] op args[1]
//	neg                   -args[0]
//	= <> < <= > >=        comparisons
//	IS DISTINCT FROM, IS NOT DISTINCT FROM   null-safe comparisons (never NULL)
//	and or not            logic
//	isnull notnull        args[0] IS [NOT] NULL
//	between               args[0] BETWEEN args[1] AND args[2]
//	in                    args[0] IN (args[1:]...)
//	like                  args[0] LIKE args[1] (a literal pattern)
//	case                  WHEN args[0] THEN args[1] ... ELSE args[len-1]
//	coalesce nullif abs   functions
//	floor ceil            FLOOR(args[0]), CEIL(args[0])
//	round                 ROUND(args[0], args[1]) (args[1] an INT literal)
//	upper lower charlen   string functions
//	substr                SUBSTRING(args[0], args[1], args[2])
//	replace               REPLACE(args[0], args[1], args[2]) (literal, non-empty from)
//	trim ltrim rtrim      TRIM(args[0]) ... (spaces)
//	concatws              CONCAT_WS(args[0], args[1:]...)
//	ifnull if             IFNULL(a, b), IF(cond, a, b)
//	hour minute second    HOUR(ts) ...; extract: EXTRACT(name FROM args[0]), name DAY HOUR MINUTE SECOND
//	concat                args[0] || args[1]
//	cast                  CAST(args[0] AS lt)
//	tsadd                 args[0] + INTERVAL 'ms/1000' SECOND
//	COUNT* COUNT SUM AVG MIN MAX   aggregates (distinct for DISTINCT)
//
// typecheck fills t (the model's type) and the bounds; rendering needs
// them.
type node struct {
	op       string
	args     []*node
	q, name  string
	val      value
	lt       typ
	distinct bool
	ms       int64
	// filter is an aggregate's FILTER (WHERE filter), or nil.
	filter *node

	// Derived by typecheck.
	t        typ
	mag      float64 // bound on the magnitude of numeric values
	minAbs   float64 // bound below on the magnitude of nonzero values (0: unknown)
	nullable bool
	hasAgg   bool
	// capped marks a DECIMAL whose type Flink's rules make wider than 38
	// digits (see commonCapped).
	capped bool
	// negZero marks a DOUBLE that can be -0.0 (see doc.go).
	negZero bool
}

func col(q, name string) *node            { return &node{op: "col", q: q, name: name} }
func lit(v value, t typ) *node            { return &node{op: "lit", val: v, lt: t} }
func call(op string, args ...*node) *node { return &node{op: op, args: args} }

func isAgg(op string) bool {
	switch op {
	case "COUNT*", "COUNT", "SUM", "AVG", "MIN", "MAX":
		return true
	}
	return false
}

func isCmp(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=", opDistinct, opNotDistinct:
		return true
	}
	return false
}

// The null-safe comparisons, written as in both SQLs.
const (
	opDistinct    = "IS DISTINCT FROM"
	opNotDistinct = "IS NOT DISTINCT FROM"
)

// isEquality reports whether op is an equality a join can take as a key.
func isEquality(op string) bool { return op == "=" || op == opNotDistinct }

func isArith(op string) bool {
	switch op {
	case "+", "-", "*", "/", "%":
		return true
	}
	return false
}

// clone copies the tree (derived fields included).
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.args = make([]*node, len(n.args))
	for i, a := range n.args {
		c.args[i] = a.clone()
	}
	c.filter = n.filter.clone()
	return &c
}

// scopeCol is a column visible to an expression.
type scopeCol struct {
	q, name  string
	t        typ
	mag      float64
	minAbs   float64
	nullable bool
	// time marks an event-time attribute (a time table's column, read
	// directly): interval joins and windows need one.
	time bool
	// padded marks a column of the NULL-padded side of an outer join.
	padded bool
	// negZero marks a DOUBLE that can be -0.0.
	negZero bool
	// base is the table column read, when the column is one (literals
	// are drawn from its domain).
	base *column
}

type scope struct {
	cols []scopeCol
	// card bounds the number of rows.
	card float64
}

func (s *scope) lookup(q, name string) *scopeCol {
	for i := range s.cols {
		if s.cols[i].q == q && s.cols[i].name == name {
			return &s.cols[i]
		}
	}
	return nil
}

// ctx is what typecheck needs besides the scope.
type ctx struct {
	sc *scope
	// agg: the expression is a select item or HAVING of an aggregate
	// select; group lists the columns it groups by.
	agg   bool
	group []*node
	inAgg bool
}

func (c ctx) grouped(q, name string) bool {
	for _, g := range c.group {
		if g.op == "col" && g.q == q && g.name == name {
			return true
		}
	}
	return false
}

type checkErr string

func (e checkErr) Error() string { return string(e) }

func fail(format string, args ...any) error { return checkErr(fmt.Sprintf(format, args...)) }

// typecheck derives n's type and bounds in c, and refuses what the
// generator must not produce (a type error, a possible overflow, a
// possible division by zero, an aggregate where none may be).
func (n *node) typecheck(c ctx) error {
	if isAgg(n.op) && (c.inAgg || !c.agg) {
		return fail("an aggregate nested or outside an aggregate select")
	}
	for _, a := range n.args {
		cc := c
		if isAgg(n.op) {
			if c.inAgg {
				return fail("nested aggregate")
			}
			if !c.agg {
				return fail("aggregate outside an aggregate select")
			}
			cc.inAgg = true
		}
		if err := a.typecheck(cc); err != nil {
			return err
		}
	}
	if n.filter != nil {
		if !isAgg(n.op) {
			return fail("FILTER on %s, not an aggregate", n.op)
		}
		cc := c
		cc.inAgg = true
		if err := n.filter.typecheck(cc); err != nil {
			return err
		}
		if n.filter.t.k != kBool {
			return fail("FILTER of %s", n.filter.t)
		}
	}
	n.hasAgg = isAgg(n.op)
	n.nullable = false
	n.minAbs = 0
	n.capped = false
	n.negZero = false
	for _, a := range n.args {
		n.hasAgg = n.hasAgg || a.hasAgg
		n.nullable = n.nullable || a.nullable
		n.negZero = n.negZero || a.negZero
	}
	arg := func(i int) *node { return n.args[i] }
	switch {
	case n.op == "col":
		sc := c.sc.lookup(n.q, n.name)
		if sc == nil {
			return fail("no column %s.%s", n.q, n.name)
		}
		if c.agg && !c.inAgg && !c.grouped(n.q, n.name) {
			return fail("column %s.%s is not grouped", n.q, n.name)
		}
		n.t, n.mag, n.minAbs, n.nullable, n.negZero = sc.t, sc.mag, sc.minAbs, sc.nullable, sc.negZero
	case n.op == "lit":
		n.t, n.nullable = n.lt, n.val == nil
		n.mag = litMag(n.val, n.lt)
		n.minAbs = n.mag
	case isArith(n.op):
		a, b := arg(0), arg(1)
		t, ok := arith(n.op, a.t, b.t)
		if !ok {
			return fail("%s %s %s", a.t, n.op, b.t)
		}
		n.t = t
		n.capped = arithCapped(n.op, a.t, b.t)
		switch n.op {
		case "+", "-":
			n.mag = a.mag + b.mag
		case "*":
			n.mag = a.mag * b.mag
			if a.minAbs > 0 && b.minAbs > 0 {
				n.minAbs = a.minAbs * b.minAbs
			}
		case "/", "%":
			if b.minAbs <= 0 {
				return fail("divisor may be zero")
			}
			if t.integral() || n.op == "%" {
				if !t.integral() {
					return fail("%% of %s", t)
				}
				n.mag = a.mag
			} else {
				n.mag = a.mag / b.minAbs
				if t.k == kDecimal && b.mag > 1e6 {
					return fail("divisor too large for the result's scale")
				}
			}
		}
		if n.mag > limit(t) {
			return fail("%s may overflow %s", n.op, t)
		}
		// Operands are converted to the result type first.
		if a.mag > limit(t) || b.mag > limit(t) {
			return fail("operand may overflow %s", t)
		}
	case n.op == "neg":
		if !arg(0).t.numeric() {
			return fail("-%s", arg(0).t)
		}
		n.t, n.mag, n.minAbs = arg(0).t, arg(0).mag, arg(0).minAbs
	case isCmp(n.op):
		if !comparableTypes(arg(0).t, arg(1).t) {
			return fail("%s %s %s", arg(0).t, n.op, arg(1).t)
		}
		if arg(0).t.k == kBool {
			return fail("boolean comparison")
		}
		n.t = tBool
		if n.op == opDistinct || n.op == opNotDistinct {
			n.nullable = false
		}
	case n.op == "and" || n.op == "or" || n.op == "not":
		for _, a := range n.args {
			if a.t.k != kBool {
				return fail("%s of %s", n.op, a.t)
			}
		}
		n.t = tBool
	case n.op == "isnull" || n.op == "notnull":
		n.t, n.nullable = tBool, false
	case n.op == "between" || n.op == "in":
		for _, a := range n.args[1:] {
			if !comparableTypes(arg(0).t, a.t) || a.t.k == kBool {
				return fail("%s %s %s", arg(0).t, n.op, a.t)
			}
		}
		n.t = tBool
	case n.op == "like":
		if arg(0).t.k != kString || arg(1).op != "lit" || arg(1).t.k != kString {
			return fail("like needs a string and a literal pattern")
		}
		n.t = tBool
	case n.op == "case" || n.op == "coalesce":
		vals := n.args
		if n.op == "case" {
			if len(n.args)%2 != 1 {
				return fail("case arity")
			}
			vals = nil
			for i := 0; i+1 < len(n.args); i += 2 {
				if arg(i).t.k != kBool {
					return fail("WHEN %s", arg(i).t)
				}
				vals = append(vals, arg(i+1))
			}
			vals = append(vals, n.args[len(n.args)-1])
		}
		t := vals[0].t
		n.mag, n.nullable = 0, false
		n.minAbs = math.Inf(1)
		for _, v := range vals {
			n.capped = n.capped || commonCapped(t, v.t)
			var ok bool
			if t, ok = common(t, v.t); !ok {
				return fail("%s of %s and %s", n.op, t, v.t)
			}
			n.mag = math.Max(n.mag, v.mag)
			n.minAbs = math.Min(n.minAbs, v.minAbs)
			n.nullable = n.nullable || v.nullable
		}
		if n.op == "coalesce" {
			n.nullable = vals[len(vals)-1].nullable
		}
		if t.k == kBool {
			return fail("boolean %s", n.op)
		}
		n.t = t
	case n.op == "nullif":
		if !comparableTypes(arg(0).t, arg(1).t) || arg(0).t.k == kBool {
			return fail("nullif of %s and %s", arg(0).t, arg(1).t)
		}
		n.t, n.mag, n.nullable = arg(0).t, arg(0).mag, true
		if b := arg(1); b.op == "lit" && b.val != nil && b.mag == 0 {
			// NULLIF(x, 0) is never zero: a safe divisor.
			n.minAbs = nonzeroMin(arg(0))
		}
	case n.op == "abs":
		if !arg(0).t.numeric() {
			return fail("abs of %s", arg(0).t)
		}
		n.t, n.mag, n.minAbs = arg(0).t, arg(0).mag, arg(0).minAbs
	case n.op == "floor" || n.op == "ceil":
		a := arg(0)
		if !a.t.numeric() {
			return fail("%s of %s", n.op, a.t)
		}
		// Flink's DECIMAL_SCALE_0: DECIMAL(p, s) gives DECIMAL(p, 0).
		n.t, n.mag = a.t, a.mag+1
		if a.t.k == kDecimal {
			n.t = tDecimal(a.t.p, 0)
		}
	case n.op == "round":
		a, d := arg(0), arg(1)
		if !a.t.exact() || d.op != "lit" || d.t.k != kInt || d.val == nil {
			return fail("ROUND of %s by %s", a.t, d.t)
		}
		r := int(d.val.(int64))
		n.t, n.mag = a.t, a.mag*1.1+math.Pow10(max(-r, 0))
		if a.t.k == kDecimal {
			n.t = roundType(a.t, r)
		}
	case n.op == "upper" || n.op == "lower":
		if arg(0).t.k != kString {
			return fail("%s of %s", n.op, arg(0).t)
		}
		n.t = tString
	case n.op == "charlen":
		if arg(0).t.k != kString {
			return fail("char_length of %s", arg(0).t)
		}
		n.t, n.mag = tInt, 100
	case n.op == "substr":
		if arg(0).t.k != kString || arg(1).op != "lit" || arg(2).op != "lit" ||
			arg(1).t.k != kInt || arg(2).t.k != kInt {
			return fail("substring arguments")
		}
		n.t = tString
	case n.op == "concat":
		if arg(0).t.k != kString || arg(1).t.k != kString {
			return fail("%s || %s", arg(0).t, arg(1).t)
		}
		n.t = tString
	case n.op == "replace":
		if arg(0).t.k != kString || arg(1).op != "lit" || arg(2).op != "lit" || arg(1).t.k != kString ||
			arg(2).t.k != kString || arg(1).val == nil || arg(2).val == nil || arg(1).val.(string) == "" {
			// Java's replace of "" inserts between every character,
			// PostgreSQL's does nothing.
			return fail("REPLACE arguments")
		}
		n.t = tString
	case n.op == "trim" || n.op == "ltrim" || n.op == "rtrim":
		if arg(0).t.k != kString {
			return fail("%s of %s", n.op, arg(0).t)
		}
		n.t = tString
	case n.op == "concatws":
		for _, a := range n.args {
			if a.t.k != kString {
				return fail("CONCAT_WS of %s", a.t)
			}
		}
		// NULL arguments are skipped; only a NULL separator gives NULL.
		n.t, n.nullable = tString, arg(0).nullable
	case n.op == "ifnull" || n.op == "if":
		vals := n.args
		if n.op == "if" {
			if arg(0).t.k != kBool {
				return fail("IF of %s", arg(0).t)
			}
			vals = n.args[1:]
		}
		t, ok := common(vals[0].t, vals[1].t)
		if !ok || t.k == kBool {
			return fail("%s of %s and %s", n.op, vals[0].t, vals[1].t)
		}
		n.capped = commonCapped(vals[0].t, vals[1].t)
		n.t, n.mag, n.minAbs = t, math.Max(vals[0].mag, vals[1].mag), math.Min(vals[0].minAbs, vals[1].minAbs)
		n.nullable = vals[1].nullable || n.op == "if" && vals[0].nullable
	case n.op == "hour" || n.op == "minute" || n.op == "second" || n.op == "extract":
		if arg(0).t.k != kTimestamp {
			return fail("%s of %s", n.op, arg(0).t)
		}
		n.t, n.mag = tBigint, 60
	case n.op == "cast":
		from, to := arg(0).t, n.lt
		switch {
		case from.numeric() && to.numeric():
			if arg(0).mag > limit(to) {
				return fail("cast may overflow %s", to)
			}
			if to.k == kDecimal && (from.k == kDouble || from.k == kDecimal && from.s > to.s ||
				arg(0).mag >= math.Pow10(to.p-to.s)) {
				// Rounding and precision overflow on a cast differ
				// between systems: only widening casts are generated.
				return fail("narrowing cast to %s", to)
			}
			if to.integral() && !from.integral() {
				return fail("cast of %s to %s truncates", from, to)
			}
		case from.exact() && to.k == kString:
		default:
			return fail("cast of %s to %s", from, to)
		}
		n.t, n.mag, n.minAbs = to, arg(0).mag, arg(0).minAbs
	case n.op == "tsadd":
		if arg(0).t.k != kTimestamp {
			return fail("timestamp + interval of %s", arg(0).t)
		}
		n.t = tTimestamp
	case isAgg(n.op):
		switch n.op {
		case "COUNT*":
			n.t, n.mag, n.nullable = tBigint, c.sc.card, false
		case "COUNT":
			n.t, n.mag, n.nullable = tBigint, c.sc.card, false
		default:
			a := arg(0)
			if (n.op == "SUM" || n.op == "AVG") && !a.t.numeric() {
				return fail("%s of %s", n.op, a.t)
			}
			if a.t.k == kBool {
				return fail("%s of BOOLEAN", n.op)
			}
			n.t = aggType(n.op, a.t)
			n.mag, n.nullable = a.mag, true
			if n.op == "SUM" {
				n.mag = a.mag * c.sc.card
				if n.mag > limit(n.t) || n.mag > limit(a.t) {
					return fail("SUM may overflow")
				}
			}
		}
	default:
		return fail("unknown operator %q", n.op)
	}
	if n.t.numeric() && n.mag > limit(n.t) {
		return fail("%s may overflow %s", n.op, n.t)
	}
	switch {
	case n.t.k != kDouble, n.op == "abs", n.op == "COUNT", n.op == "COUNT*":
		n.negZero = false
	case n.op == "*", n.op == "/", n.op == "neg", n.op == "ceil", n.op == "lit" && n.val != nil && n.val.(float64) == 0:
		n.negZero = true
	}
	if isAgg(n.op) && n.distinct && len(n.args) > 0 && n.args[0].negZero {
		return fail("DISTINCT over a DOUBLE that can be -0.0")
	}
	return nil
}

// nonzeroMin is the least magnitude a nonzero value of n can have.
func nonzeroMin(n *node) float64 {
	switch {
	case n.t.integral():
		return 1
	case n.t.k == kDecimal && n.op == "col":
		return math.Pow10(-n.t.s)
	case n.t.k == kDouble && n.op == "col":
		return 0.125 // generated doubles are multiples of 1/8
	}
	return 0
}

func litMag(v value, t typ) float64 {
	switch x := v.(type) {
	case int64:
		if t.k == kDecimal {
			return math.Abs(float64(x)) / math.Pow10(t.s)
		}
		if t.k == kTimestamp {
			return 0
		}
		return math.Abs(float64(x))
	case float64:
		return math.Abs(x)
	}
	return 0
}

// flink renders n as streamsql reads it.
func (n *node) flink(b *strings.Builder) {
	w := func(s string) { b.WriteString(s) }
	if f := n.filter; f != nil {
		n.filter = nil
		n.flink(b)
		n.filter = f
		w(" FILTER (WHERE ")
		f.flink(b)
		w(")")
		return
	}
	a := func(i int) { n.args[i].flink(b) }
	switch {
	case n.op == "col":
		if n.q != "" {
			w(n.q + ".")
		}
		w(n.name)
	case n.op == "lit":
		w(flinkLit(n.val, n.lt))
	case isArith(n.op) || isCmp(n.op) || n.op == "and" || n.op == "or" || n.op == "concat":
		op := strings.ToUpper(n.op)
		if n.op == "concat" {
			op = "||"
		}
		w("(")
		a(0)
		w(" " + op + " ")
		a(1)
		w(")")
	case n.op == "neg":
		w("(-")
		a(0)
		w(")")
	case n.op == "not":
		w("(NOT ")
		a(0)
		w(")")
	case n.op == "isnull" || n.op == "notnull":
		w("(")
		a(0)
		if n.op == "isnull" {
			w(" IS NULL)")
		} else {
			w(" IS NOT NULL)")
		}
	case n.op == "between":
		w("(")
		a(0)
		w(" BETWEEN ")
		a(1)
		w(" AND ")
		a(2)
		w(")")
	case n.op == "in":
		w("(")
		a(0)
		w(" IN (")
		for i := 1; i < len(n.args); i++ {
			if i > 1 {
				w(", ")
			}
			a(i)
		}
		w("))")
	case n.op == "like":
		w("(")
		a(0)
		w(" LIKE ")
		a(1)
		w(")")
	case n.op == "case":
		w("CASE")
		for i := 0; i+1 < len(n.args); i += 2 {
			w(" WHEN ")
			a(i)
			w(" THEN ")
			a(i + 1)
		}
		w(" ELSE ")
		a(len(n.args) - 1)
		w(" END")
	case n.op == "cast":
		w("CAST(")
		a(0)
		w(" AS " + n.lt.flink() + ")")
	case n.op == "tsadd":
		w("(")
		a(0)
		w(fmt.Sprintf(" + INTERVAL '%d' SECOND)", n.ms/1000))
	case n.op == "extract":
		w("EXTRACT(" + n.name + " FROM ")
		a(0)
		w(")")
	case n.op == "COUNT*":
		w("COUNT(*)")
	default:
		name := map[string]string{"replace": "REPLACE", "trim": "TRIM", "ltrim": "LTRIM", "rtrim": "RTRIM",
			"concatws": "CONCAT_WS", "ifnull": "IFNULL", "if": "IF", "hour": "HOUR", "minute": "MINUTE",
			"second": "SECOND", "coalesce": "COALESCE", "nullif": "NULLIF", "abs": "ABS", "floor": "FLOOR",
			"ceil": "CEIL", "round": "ROUND", "upper": "UPPER",
			"lower": "LOWER", "charlen": "CHAR_LENGTH", "substr": "SUBSTRING"}[n.op]
		if name == "" {
			name = n.op // aggregates
		}
		w(name + "(")
		if n.distinct {
			w("DISTINCT ")
		}
		for i := range n.args {
			if i > 0 {
				w(", ")
			}
			a(i)
		}
		w(")")
	}
}

func flinkLit(v value, t typ) string {
	if v == nil {
		return "CAST(NULL AS " + t.flink() + ")"
	}
	switch t.k {
	case kInt:
		return signed(strconv.FormatInt(v.(int64), 10))
	case kBigint:
		x := v.(int64)
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return "CAST(" + strconv.FormatInt(x, 10) + " AS BIGINT)"
		}
		return signed(strconv.FormatInt(x, 10))
	case kDecimal:
		return signed(decimalText(v.(int64), t.s))
	case kDouble:
		return signed(strconv.FormatFloat(v.(float64), 'E', -1, 64))
	case kString:
		return "'" + strings.ReplaceAll(v.(string), "'", "''") + "'"
	case kTimestamp:
		return "TIMESTAMP '" + tsText(v.(int64)) + "'"
	case kBool:
		if v.(bool) {
			return "TRUE"
		}
		return "FALSE"
	}
	panic("oracle: literal of " + t.String())
}

// signed puts a negative number in parentheses: -(x) reads the same in
// both systems.
func signed(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

// pgType is the PostgreSQL type a value of t is converted to inside an
// expression: numeric without a typmod for DECIMAL, so that PostgreSQL
// never rounds where the model does not say so.
func pgType(t typ) string {
	if t.k == kDecimal {
		return "numeric"
	}
	return t.pg()
}

// pgw is where the PostgreSQL text of a query is written. rename maps
// q.name to the expression that stands for it, where the PostgreSQL form
// of a join had to move a table's columns into a derived table (a FULL
// JOIN with conditions PostgreSQL cannot run as one, see rel.pg).
type pgw struct {
	strings.Builder
	rename map[string]string
	// fulls numbers the derived tables of rewritten FULL JOINs.
	fulls *int
}

// pgCmp renders n as an operand of a comparison in type t: like pgAs,
// but a DECIMAL is never rounded (a numeric compares exactly, as Flink
// compares two DECIMALs and as streamsql compares join keys).
func (n *node) pgCmp(b *pgw, t typ) {
	if n.t.k == kDecimal && t.k == kDecimal {
		n.pg(b)
		return
	}
	n.pgAs(b, t)
}

// pgAs renders n converted to t (nothing when it already is t).
func (n *node) pgAs(b *pgw, t typ) {
	if n.t.k == kDecimal && t.k == kDecimal && t.s < n.t.s {
		// A common type past 38 digits gives up scale: Flink rounds.
		b.WriteString("ROUND(" + b.sub(n) + fmt.Sprintf(", %d)", t.s))
		return
	}
	if n.t == t || n.t.k == kDecimal && t.k == kDecimal {
		n.pg(b)
		return
	}
	b.WriteString("CAST(")
	n.pg(b)
	b.WriteString(" AS " + pgType(t) + ")")
}

// pg renders n as PostgreSQL must compute it to give Flink's answer (the
// rules are in doc.go).
func (n *node) pg(b *pgw) {
	w := func(s string) { b.WriteString(s) }
	a := func(i int) { n.args[i].pg(b) }
	// filter is an aggregate's FILTER clause, written after each call.
	filter := ""
	if n.filter != nil {
		filter = " FILTER (WHERE " + b.sub(n.filter) + ")"
	}
	switch {
	case n.op == "col":
		if r, ok := b.rename[n.q+"."+n.name]; ok {
			w(r)
			return
		}
		if n.q != "" {
			w(n.q + ".")
		}
		w(n.name)
	case n.op == "lit":
		w(pgLit(n.val, n.lt))
	case isArith(n.op):
		x, y := n.args[0], n.args[1]
		switch n.t.k {
		case kDecimal:
			// Flink computes exactly and rounds the result to its type's
			// scale, half up; PostgreSQL's round is half away from zero,
			// the same. The operands are not rounded first.
			w("ROUND(" + b.numeric(x) + " " + n.op + " " + b.numeric(y) + fmt.Sprintf(", %d)", n.t.s))
		case kDouble:
			w("(")
			x.pgAs(b, tDouble)
			w(" " + n.op + " ")
			y.pgAs(b, tDouble)
			w(")")
		default:
			// Integer arithmetic: / truncates toward zero and % takes the
			// dividend's sign, in both.
			w("(")
			x.pgAs(b, n.t)
			w(" " + n.op + " ")
			y.pgAs(b, n.t)
			w(")")
		}
	case isCmp(n.op):
		x, y := n.args[0], n.args[1]
		ct, _ := common(x.t, y.t)
		w("(")
		x.pgCmp(b, ct)
		w(" " + n.op + " ")
		y.pgCmp(b, ct)
		w(")")
	case n.op == "and" || n.op == "or":
		w("(")
		a(0)
		w(" " + strings.ToUpper(n.op) + " ")
		a(1)
		w(")")
	case n.op == "concat":
		w("(")
		a(0)
		w(" || ")
		a(1)
		w(")")
	case n.op == "neg":
		w("(-")
		a(0)
		w(")")
	case n.op == "not":
		w("(NOT ")
		a(0)
		w(")")
	case n.op == "isnull" || n.op == "notnull":
		w("(")
		a(0)
		if n.op == "isnull" {
			w(" IS NULL)")
		} else {
			w(" IS NOT NULL)")
		}
	case n.op == "between":
		ct := n.args[0].t
		for _, x := range n.args[1:] {
			ct, _ = common(ct, x.t)
		}
		w("(")
		n.args[0].pgCmp(b, ct)
		w(" BETWEEN ")
		n.args[1].pgCmp(b, ct)
		w(" AND ")
		n.args[2].pgCmp(b, ct)
		w(")")
	case n.op == "in":
		ct := n.args[0].t
		for _, x := range n.args[1:] {
			ct, _ = common(ct, x.t)
		}
		w("(")
		n.args[0].pgCmp(b, ct)
		w(" IN (")
		for i := 1; i < len(n.args); i++ {
			if i > 1 {
				w(", ")
			}
			n.args[i].pgCmp(b, ct)
		}
		w("))")
	case n.op == "like":
		w("(")
		a(0)
		w(" LIKE ")
		a(1)
		w(")")
	case n.op == "case":
		w("CASE")
		for i := 0; i+1 < len(n.args); i += 2 {
			w(" WHEN ")
			a(i)
			w(" THEN ")
			n.args[i+1].pgAs(b, n.t)
		}
		w(" ELSE ")
		n.args[len(n.args)-1].pgAs(b, n.t)
		w(" END")
	case n.op == "coalesce":
		w("COALESCE(")
		for i, x := range n.args {
			if i > 0 {
				w(", ")
			}
			x.pgAs(b, n.t)
		}
		w(")")
	case n.op == "nullif":
		ct, _ := common(n.args[0].t, n.args[1].t)
		if ct == n.args[0].t {
			w("NULLIF(")
			a(0)
			w(", ")
			n.args[1].pgCmp(b, ct)
			w(")")
		} else {
			// NULLIF(x, y) is CASE WHEN x = y THEN NULL ELSE x END, with the
			// comparison in the common type and the result in x's.
			w("CASE WHEN ")
			n.args[0].pgCmp(b, ct)
			w(" = ")
			n.args[1].pgCmp(b, ct)
			w(" THEN NULL ELSE ")
			a(0)
			w(" END")
		}
	case n.op == "abs":
		w("ABS(")
		a(0)
		w(")")
	case n.op == "floor" || n.op == "ceil":
		// PostgreSQL's FLOOR of an integer is a double precision: through
		// numeric and back.
		if n.t.integral() {
			w("CAST(" + strings.ToUpper(n.op) + "(CAST(" + b.sub(n.args[0]) + " AS numeric)) AS " + n.t.pg() + ")")
		} else {
			w(strings.ToUpper(n.op) + "(" + b.sub(n.args[0]) + ")")
		}
	case n.op == "round":
		// PostgreSQL rounds a numeric half away from zero, as Java's
		// HALF_UP; an integer goes through numeric and back.
		if n.t.integral() {
			w("CAST(ROUND(CAST(" + b.sub(n.args[0]) + " AS numeric), " + b.sub(n.args[1]) + ") AS " + n.t.pg() + ")")
		} else {
			w("ROUND(" + b.sub(n.args[0]) + ", " + b.sub(n.args[1]) + ")")
		}
	case n.op == "upper" || n.op == "lower":
		w(strings.ToUpper(n.op) + "(")
		a(0)
		w(")")
	case n.op == "charlen":
		w("CHAR_LENGTH(")
		a(0)
		w(")")
	case n.op == "replace":
		w("REPLACE(" + b.sub(n.args[0]) + ", " + b.sub(n.args[1]) + ", " + b.sub(n.args[2]) + ")")
	case n.op == "trim" || n.op == "ltrim" || n.op == "rtrim":
		fn := map[string]string{"trim": "BTRIM", "ltrim": "LTRIM", "rtrim": "RTRIM"}[n.op]
		w(fn + "(" + b.sub(n.args[0]) + ", ' ')")
	case n.op == "concatws":
		w("CONCAT_WS(")
		for i, x := range n.args {
			if i > 0 {
				w(", ")
			}
			x.pg(b)
		}
		w(")")
	case n.op == "ifnull":
		w("COALESCE(")
		n.args[0].pgAs(b, n.t)
		w(", ")
		n.args[1].pgAs(b, n.t)
		w(")")
	case n.op == "if":
		w("CASE WHEN ")
		a(0)
		w(" THEN ")
		n.args[1].pgAs(b, n.t)
		w(" ELSE ")
		n.args[2].pgAs(b, n.t)
		w(" END")
	case n.op == "hour" || n.op == "minute" || n.op == "second" || n.op == "extract":
		// Flink's are whole numbers (SECOND drops the fraction);
		// PostgreSQL's EXTRACT is a numeric with it.
		unit := strings.ToUpper(n.op)
		if n.op == "extract" {
			unit = n.name
		}
		w("CAST(FLOOR(EXTRACT(" + unit + " FROM " + b.sub(n.args[0]) + ")) AS bigint)")
	case n.op == "substr":
		w("SUBSTRING(")
		a(0)
		w(" FROM ")
		a(1)
		w(" FOR ")
		a(2)
		w(")")
	case n.op == "cast":
		x := n.args[0]
		switch {
		case n.lt.k == kString && x.t.k == kDecimal:
			// Flink writes a DECIMAL with its type's scale (1.50);
			// PostgreSQL writes a numeric with the scale it carries.
			w(fmt.Sprintf("CAST(ROUND(%s, %d) AS text)", b.sub(x), x.t.s))
		case n.lt.k == kDecimal:
			w("ROUND(CAST(")
			a(0)
			w(fmt.Sprintf(" AS numeric), %d)", n.lt.s))
		default:
			w("CAST(")
			a(0)
			w(" AS " + pgType(n.lt) + ")")
		}
	case n.op == "tsadd":
		w("(")
		a(0)
		w(fmt.Sprintf(" + INTERVAL '%d' SECOND)", n.ms/1000))
	case n.op == "COUNT*":
		w("COUNT(*)" + filter)
	case n.op == "SUM" && n.t.integral():
		// PostgreSQL's SUM of a bigint is a numeric: back to an integer,
		// so that a division of it stays integer division.
		w("CAST(SUM(")
		if n.distinct {
			w("DISTINCT ")
		}
		a(0)
		w(")" + filter + " AS bigint)")
	case n.op == "COUNT" || n.op == "MIN" || n.op == "MAX" || n.op == "SUM":
		w(n.op + "(")
		if n.distinct {
			w("DISTINCT ")
		}
		a(0)
		w(")" + filter)
	case n.op == "AVG":
		d := ""
		if n.distinct {
			d = "DISTINCT "
		}
		x := b.sub(n.args[0])
		switch n.t.k {
		case kDecimal:
			w(fmt.Sprintf("ROUND(AVG(%s%s)%s, %d)", d, x, filter, n.t.s))
		case kDouble:
			w(fmt.Sprintf("AVG(%s%s)%s", d, x, filter))
		default:
			// AVG of integers is integer division of the sum by the count,
			// truncated toward zero (Java's long division).
			w(fmt.Sprintf("CAST(DIV(SUM(%s%s)%s, COUNT(%s%s)%s) AS bigint)", d, x, filter, d, x, filter))
		}
	default:
		panic("oracle: pg of " + n.op)
	}
}

// numeric renders an exact operand as a numeric, without rounding it.
func (b *pgw) numeric(n *node) string {
	if n.t.k == kDecimal {
		return b.sub(n)
	}
	return "CAST(" + b.sub(n) + " AS numeric)"
}

// sub renders n on its own, with b's renames.
func (b *pgw) sub(n *node) string {
	s := &pgw{rename: b.rename, fulls: b.fulls}
	n.pg(s)
	return s.String()
}

func pgLit(v value, t typ) string {
	if v == nil {
		return "CAST(NULL AS " + pgType(t) + ")"
	}
	switch t.k {
	case kInt:
		return "CAST(" + strconv.FormatInt(v.(int64), 10) + " AS integer)"
	case kBigint:
		return "CAST(" + strconv.FormatInt(v.(int64), 10) + " AS bigint)"
	case kDecimal:
		return "CAST(" + decimalText(v.(int64), t.s) + " AS numeric)"
	case kDouble:
		return "CAST(" + strconv.FormatFloat(v.(float64), 'E', -1, 64) + " AS double precision)"
	case kString:
		return "CAST('" + strings.ReplaceAll(v.(string), "'", "''") + "' AS text)"
	case kTimestamp:
		return "CAST('" + tsText(v.(int64)) + "' AS timestamp(3))"
	case kBool:
		if v.(bool) {
			return "TRUE"
		}
		return "FALSE"
	}
	panic("oracle: literal of " + t.String())
}
