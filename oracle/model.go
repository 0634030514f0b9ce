package oracle

import (
	"fmt"
	"math"
)

// This file is the oracle's own model of Flink's types: what each column
// and expression of a generated query is, written from Flink's documented
// rules (LogicalTypeMerging) and independent of package types, so that a
// mistake there shows up as a difference here.

// kind is the root of a type the generator uses.
type kind uint8

const (
	kInt kind = iota + 1
	kBigint
	kDecimal
	kDouble
	kString
	kTimestamp
	kBool
)

// typ is a type of the model: a kind, and precision and scale for DECIMAL.
type typ struct {
	k    kind
	p, s int
}

var (
	tInt       = typ{k: kInt}
	tBigint    = typ{k: kBigint}
	tDouble    = typ{k: kDouble}
	tString    = typ{k: kString}
	tTimestamp = typ{k: kTimestamp}
	tBool      = typ{k: kBool}
)

func tDecimal(p, s int) typ { return typ{k: kDecimal, p: p, s: s} }

const maxPrecision = 38

func (t typ) numeric() bool {
	return t.k == kInt || t.k == kBigint || t.k == kDecimal || t.k == kDouble
}
func (t typ) integral() bool { return t.k == kInt || t.k == kBigint }
func (t typ) exact() bool    { return t.integral() || t.k == kDecimal }

// flink is the type as a job file spells it.
func (t typ) flink() string {
	switch t.k {
	case kInt:
		return "INT"
	case kBigint:
		return "BIGINT"
	case kDecimal:
		return fmt.Sprintf("DECIMAL(%d, %d)", t.p, t.s)
	case kDouble:
		return "DOUBLE"
	case kString:
		return "STRING"
	case kTimestamp:
		return "TIMESTAMP(3)"
	case kBool:
		return "BOOLEAN"
	}
	panic(fmt.Sprintf("oracle: unknown kind %d", t.k))
}

// pg is the type as PostgreSQL spells it.
func (t typ) pg() string {
	switch t.k {
	case kInt:
		return "integer"
	case kBigint:
		return "bigint"
	case kDecimal:
		return fmt.Sprintf("numeric(%d, %d)", t.p, t.s)
	case kDouble:
		return "double precision"
	case kString:
		return "text"
	case kTimestamp:
		return "timestamp(3)"
	case kBool:
		return "boolean"
	}
	panic(fmt.Sprintf("oracle: unknown kind %d", t.k))
}

func (t typ) String() string { return t.flink() }

// asDecimal sees an exact type as a DECIMAL: an INT holds 10 digits, a
// BIGINT 19.
func (t typ) asDecimal() (p, s int) {
	switch t.k {
	case kInt:
		return 10, 0
	case kBigint:
		return 19, 0
	case kDecimal:
		return t.p, t.s
	default:
	}
	panic("oracle: asDecimal of " + t.String())
}

// adjust caps a derived DECIMAL at 38 digits as Flink's
// adjustPrecisionScale does: integer digits are kept and the scale gives
// way, but not below min(scale, 6).
func adjust(p, s int) typ {
	if p <= maxPrecision {
		return tDecimal(p, s)
	}
	return tDecimal(maxPrecision, max(maxPrecision-(p-s), min(s, 6)))
}

// comparableTypes reports whether a = b is allowed without a CAST.
func comparableTypes(a, b typ) bool {
	if a.numeric() && b.numeric() {
		return true
	}
	return a.k == b.k
}

// common is the type both widen to (CASE, COALESCE, UNION, comparisons):
// Flink's findCommonType for the kinds of the model.
func common(a, b typ) (typ, bool) {
	if a == b {
		return a, true
	}
	if !a.numeric() || !b.numeric() {
		if a.k == b.k && a.k != kDecimal {
			return a, true
		}
		return typ{}, false
	}
	switch {
	case a.k == kDouble || b.k == kDouble:
		return tDouble, true
	case a.k == kDecimal || b.k == kDecimal:
		p1, s1 := a.asDecimal()
		p2, s2 := b.asDecimal()
		d := min(max(p1-s1, p2-s2), maxPrecision)
		s := min(max(s1, s2), maxPrecision-d)
		return tDecimal(d+s, s), true
	case a.k == kBigint || b.k == kBigint:
		return tBigint, true
	}
	return tInt, true
}

// arith is the type of a op b for op one of + - * / %.
func arith(op string, a, b typ) (typ, bool) {
	if !a.numeric() || !b.numeric() {
		return typ{}, false
	}
	if a.k == kDouble || b.k == kDouble {
		return tDouble, true
	}
	if a.integral() && b.integral() {
		if a.k == kBigint || b.k == kBigint {
			return tBigint, true
		}
		return tInt, true
	}
	p1, s1 := a.asDecimal()
	p2, s2 := b.asDecimal()
	switch op {
	case "+", "-":
		s := max(s1, s2)
		return adjust(max(p1-s1, p2-s2)+s+1, s), true
	case "*":
		// Flink's findMultiplicationDecimalType has p1 + p2 + 1; streamsql
		// (and FLINK-34376, which removes the +1) p1 + p2: the product
		// always fits. The two differ only where the result passes 38
		// digits, which capped reports.
		return adjust(p1+p2, s1+s2), true
	case "/":
		s := max(6, s1+p2+1)
		return adjust(p1-s1+s2+s, s), true
	case "%":
		s := max(s1, s2)
		return adjust(min(p1-s1, p2-s2)+s, s), true
	}
	return typ{}, false
}

// arithCapped reports whether a op b is a DECIMAL that Flink's rules
// would make wider than 38 digits, so that the scale gives way.
func arithCapped(op string, a, b typ) bool {
	if !a.exact() || !b.exact() || a.integral() && b.integral() {
		return false
	}
	p1, s1 := a.asDecimal()
	p2, s2 := b.asDecimal()
	switch op {
	case "+", "-":
		return max(p1-s1, p2-s2)+max(s1, s2)+1 > maxPrecision
	case "*":
		return p1+p2 > maxPrecision
	case "/":
		return p1-s1+s2+max(6, s1+p2+1) > maxPrecision
	}
	return false
}

// commonCapped reports whether the common type of a and b needs more
// than 38 digits: Flink's findCommonType then drops scale until the
// integer digits fit (DECIMAL(38, 0) for DECIMAL(38, 0) and
// DECIMAL(38, 4)), streamsql's CommonType keeps min(s, 6) of it.
func commonCapped(a, b typ) bool {
	if !a.exact() || !b.exact() || a.integral() && b.integral() {
		return false
	}
	p1, s1 := a.asDecimal()
	p2, s2 := b.asDecimal()
	return max(p1-s1, p2-s2)+max(s1, s2) > maxPrecision
}

// limit is the largest magnitude a value of t may reach in a generated
// query: INT and BIGINT must not overflow (Flink wraps, PostgreSQL fails),
// and a DECIMAL's unscaled value must fit streamsql's 64 bits with room to
// spare (streamsql keeps DECIMAL in an int64 and fails beyond 18 digits).
func limit(t typ) float64 {
	switch t.k {
	case kInt:
		return math.MaxInt32 / 2
	case kBigint:
		return math.MaxInt64 / 4
	case kDecimal:
		return 1e17 / math.Pow10(t.s)
	case kDouble:
		return 1e15
	default:
	}
	return math.Inf(1)
}

// roundType is the type of ROUND(DECIMAL(p, s), r): Flink's
// findRoundDecimalType (one more integer digit, as rounding may carry).
func roundType(t typ, r int) typ {
	switch {
	case r >= t.s:
		return t
	case r < 0:
		return tDecimal(min(maxPrecision, 1+t.p-t.s), 0)
	}
	return tDecimal(1+t.p-t.s+r, r)
}

// sumOfIntegers is the type of SUM over INT or BIGINT. Flink's SUM(INT) is
// INT; streamsql's is BIGINT, a deviation listed in issue #11 to settle.
// The values agree while nothing overflows (the magnitude bounds see to
// that), but the type reaches further: 0.5 / SUM(i) has scale 12 over an
// INT and 21 over a BIGINT. The model follows streamsql until the
// deviation is settled; if SUM(INT) becomes INT, this becomes arg.
var sumOfIntegers = tBigint

// aggType is the type of an aggregate over an argument of type arg.
func aggType(fn string, arg typ) typ {
	switch fn {
	case "COUNT":
		return tBigint
	case "SUM":
		switch {
		case arg.integral():
			return sumOfIntegers
		case arg.k == kDecimal:
			return tDecimal(maxPrecision, arg.s)
		}
		return arg
	case "AVG":
		if arg.k == kDecimal {
			// Flink: DECIMAL(38, max(6, s)) (findAvgAggType).
			return tDecimal(maxPrecision, max(6, arg.s))
		}
		return arg
	}
	return arg // MIN, MAX
}
