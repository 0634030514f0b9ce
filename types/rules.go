package types

// numericRank orders the numeric kinds for widening:
// TINYINT < SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE.
func numericRank(k Kind) int {
	switch k {
	case TinyInt:
		return 1
	case SmallInt:
		return 2
	case Int:
		return 3
	case BigInt:
		return 4
	case Decimal:
		return 5
	case Float:
		return 6
	case Double:
		return 7
	case Invalid, Boolean, Char, Varchar, Binary, Varbinary, Date, Time, Timestamp, TimestampLTZ,
		Interval, IntervalYM, Null, Array, Map, Row:
	}
	return 0
}

// asDecimal returns the precision and scale of an exact numeric type seen as
// a DECIMAL: an integer holds as many digits as its largest value.
func asDecimal(t T) (p, s int) {
	switch t.Kind {
	case TinyInt:
		return 3, 0
	case SmallInt:
		return 5, 0
	case Int:
		return 10, 0
	case BigInt:
		return 19, 0
	case Decimal:
		return t.Precision, t.Scale
	case Invalid, Boolean, Float, Double, Char, Varchar, Binary, Varbinary, Date, Time, Timestamp,
		TimestampLTZ, Interval, IntervalYM, Null, Array, Map, Row:
	}
	panic("types: asDecimal of " + t.String())
}

// adjustDecimal caps a derived DECIMAL at 38 digits the way Flink (and SQL
// Server) do: integer digits are kept, and the scale gives way, but not below
// min(scale, 6).
func adjustDecimal(p, s int) T {
	if p > MaxDecimalPrecision {
		intDigits := p - s
		s = max(MaxDecimalPrecision-intDigits, min(s, 6))
		p = MaxDecimalPrecision
	}
	return DecimalOf(p, s)
}

// Comparable reports whether values of types a and b can be compared with
// =, <>, <, <=, >, >=, BETWEEN and IN without an explicit CAST: numbers with
// numbers, character strings with character strings, byte strings with byte
// strings, and otherwise only the same kind. TIMESTAMP and TIMESTAMP_LTZ are
// not comparable with each other (the comparison would depend on the session
// time zone), nor is DATE with TIMESTAMP. NULL is comparable with everything.
//
// An ARRAY, MAP or ROW is comparable with a value of the same type apart
// from nullability and ROW field names (SameIgnoringNullDeep), and only
// with = and <> (see Orderable): two arrays are equal when they have the
// same length and equal elements in order, two maps when they have the
// same keys with equal values, two rows when their fields are equal.
func Comparable(a, b T) bool {
	if a.Kind == Invalid || b.Kind == Invalid {
		return false
	}
	switch {
	case a.Kind == Null || b.Kind == Null:
		return true
	case a.IsNested() || b.IsNested():
		return SameIgnoringNullDeep(a, b)
	case a.IsNumeric() && b.IsNumeric(),
		a.IsString() && b.IsString(),
		a.IsBinary() && b.IsBinary():
		return true
	}
	return a.Kind == b.Kind
}

// CommonType returns the type that values of types a and b both widen to,
// for CASE, COALESCE, IN lists, UNION and comparisons. It reports false when
// there is none. The result is nullable when either input is.
//
//   - Numbers widen along TINYINT < SMALLINT < INT < BIGINT < DECIMAL < FLOAT
//     < DOUBLE. Two exact types where one is a DECIMAL give the DECIMAL that
//     holds both (integer digits and scale of the larger, at most 38 digits).
//   - CHAR(n) and CHAR(n) give CHAR(n); other character strings give
//     VARCHAR of the larger length (STRING if either is STRING). Byte
//     strings likewise.
//   - TIME, TIMESTAMP and TIMESTAMP_LTZ take the larger precision, within
//     the same kind only.
//   - NULL merges into the other type, made nullable.
func CommonType(a, b T) (T, bool) {
	if a.Kind == Invalid || b.Kind == Invalid {
		return T{}, false
	}
	if a.Kind == Null {
		return b.WithNullable(true), true
	}
	if b.Kind == Null {
		return a.WithNullable(true), true
	}
	nullable := a.Nullable || b.Nullable
	var r T
	switch {
	case a.IsNested() || b.IsNested():
		if !SameIgnoringNullDeep(a, b) {
			return T{}, false
		}
		r = mergeNullable(a, b)
	case a.IsNumeric() && b.IsNumeric():
		r = commonNumeric(a, b)
	case a.IsString() && b.IsString():
		if a.Kind == Char && b.Kind == Char && a.Length == b.Length {
			r = a
		} else {
			r = VarcharOf(max(a.Length, b.Length))
		}
	case a.IsBinary() && b.IsBinary():
		if a.Kind == Binary && b.Kind == Binary && a.Length == b.Length {
			r = a
		} else {
			r = VarbinaryOf(max(a.Length, b.Length))
		}
	case a.Kind != b.Kind:
		return T{}, false
	default:
		r = a
		r.Precision = max(a.Precision, b.Precision)
	}
	return r.WithNullable(nullable), true
}

// ComparisonType returns the type in which a value of type a and one of
// type b are compared by =, <>, <, <=, > and >=, and false when they are
// not Comparable. It is the type both sides of an equi-join key are cast to,
// so that a join matches exactly the pairs a WHERE clause's = would keep.
//
// It is CommonType, except for numbers, which compare mathematically:
//
//   - A FLOAT or DOUBLE on either side compares as DOUBLE (FLOAT with INT
//     too: 16777217 is not the FLOAT 16777216).
//   - Two exact types compare as the DECIMAL (or wider integer) that holds
//     both, with the larger scale even where CommonType gives way to stay
//     within 38 digits: a comparison never rounds.
func ComparisonType(a, b T) (T, bool) {
	if !Comparable(a, b) {
		return T{}, false
	}
	if !a.IsNumeric() || !b.IsNumeric() {
		return CommonType(a, b)
	}
	nullable := a.Nullable || b.Nullable
	if a.Kind.IsApproximate() || b.Kind.IsApproximate() {
		return New(Double).WithNullable(nullable), true
	}
	r := commonNumeric(a, b)
	if r.Kind == Decimal {
		p1, s1 := asDecimal(a)
		p2, s2 := asDecimal(b)
		s := max(s1, s2)
		r = DecimalOf(min(max(p1-s1, p2-s2)+s, MaxDecimalPrecision), s)
	}
	return r.WithNullable(nullable), true
}

func commonNumeric(a, b T) T {
	switch {
	case a.Kind == Double || b.Kind == Double:
		return New(Double)
	case a.Kind == Float || b.Kind == Float:
		return New(Float)
	case a.Kind == Decimal || b.Kind == Decimal:
		// Flink's LogicalTypeMerging: the integer digits of the wider
		// (at most 38), then as much of the larger scale as still fits
		// in 38 digits. Unlike arithmetic (adjustDecimal), no minimum
		// scale is kept: a common type never loses integer digits.
		p1, s1 := asDecimal(a)
		p2, s2 := asDecimal(b)
		d := min(max(p1-s1, p2-s2), MaxDecimalPrecision)
		s := min(max(s1, s2), MaxDecimalPrecision-d)
		return DecimalOf(d+s, s)
	case numericRank(a.Kind) >= numericRank(b.Kind):
		return New(a.Kind)
	default:
		return New(b.Kind)
	}
}

// ArithmeticResult returns the type of a op b for op one of + - * / %, and
// false when the operation is not defined for these types.
//
//   - Integers with integers give the wider integer (INT / INT is integer
//     division, as in Flink). A FLOAT or DOUBLE operand gives DOUBLE if
//     either is DOUBLE, else FLOAT.
//   - Otherwise, exact operands are seen as DECIMALs (an INT is
//     DECIMAL(10, 0)) and the result follows Flink's rules, capped at 38
//     digits: + and - give scale max(s1, s2) and one more integer digit than
//     the larger; * adds precisions and scales; / has scale max(6, s1+p2+1);
//     % has the smaller integer part.
//   - TIMESTAMP, TIMESTAMP_LTZ and DATE plus or minus an interval, and
//     interval plus a timestamp, keep the timestamp's type; TIME plus or
//     minus a day-time interval stays TIME. Intervals of the same kind add
//     and subtract, and multiply or divide by a number.
//   - A NULL operand takes the other operand's type.
//
// TIMESTAMP - TIMESTAMP is not defined: use TIMESTAMPDIFF.
func ArithmeticResult(op string, a, b T) (T, bool) {
	switch op {
	case "+", "-", "*", "/", "%":
	default:
		return T{}, false
	}
	if a.Kind == Invalid || b.Kind == Invalid || (a.Kind == Null && b.Kind == Null) {
		return T{}, false
	}
	nullable := a.Nullable || b.Nullable
	if a.Kind == Null {
		a = b
	} else if b.Kind == Null {
		b = a
	}
	var r T
	switch {
	case a.IsNumeric() && b.IsNumeric():
		r = numericArithmetic(op, a, b)
	case op == "+" && a.IsInterval() && (b.IsTimestamp() || b.Kind == Date):
		r = b
	case (op == "+" || op == "-") && (a.IsTimestamp() || a.Kind == Date) && b.IsInterval():
		r = a
	case (op == "+" || op == "-") && a.Kind == Time && b.Kind == Interval:
		r = a
	case op == "+" && a.Kind == Interval && b.Kind == Time:
		r = b
	case (op == "+" || op == "-") && a.IsInterval() && a.Kind == b.Kind:
		r = a
		r.Precision = max(a.Precision, b.Precision)
	case (op == "*" || op == "/") && a.IsInterval() && b.IsNumeric():
		r = a
	case op == "*" && a.IsNumeric() && b.IsInterval():
		r = b
	default:
		return T{}, false
	}
	return r.WithNullable(nullable), true
}

func numericArithmetic(op string, a, b T) T {
	if a.IsApproximate() || b.IsApproximate() {
		if a.Kind == Double || b.Kind == Double {
			return New(Double)
		}
		return New(Float)
	}
	if a.IsIntegral() && b.IsIntegral() {
		if numericRank(a.Kind) >= numericRank(b.Kind) {
			return New(a.Kind)
		}
		return New(b.Kind)
	}
	p1, s1 := asDecimal(a)
	p2, s2 := asDecimal(b)
	switch op {
	case "+", "-":
		s := max(s1, s2)
		return adjustDecimal(max(p1-s1, p2-s2)+s+1, s)
	case "*":
		return adjustDecimal(p1+p2, s1+s2)
	case "/":
		s := max(6, s1+p2+1)
		return adjustDecimal(p1-s1+s2+s, s)
	default: // "%"
		s := max(s1, s2)
		return adjustDecimal(max(min(p1-s1, p2-s2)+s, 1), s)
	}
}

// ImplicitCast reports whether a value of type from can be used where type
// to is expected without an explicit CAST, for example when it is inserted
// into a sink column: NULL goes anywhere, numbers widen along TINYINT <
// SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE, CHAR goes into VARCHAR
// and BINARY into VARBINARY, and a kind goes into itself whatever the
// parameters (lengths and precisions are adjusted at run time, as in Flink).
//
// An ARRAY, MAP or ROW goes into one of the same shape whose element types
// its own go into (ARRAY<INT> into ARRAY<BIGINT>).
//
// Nullability is not considered: writing a nullable value into a NOT NULL
// column is checked row by row. Unlike Flink, TIMESTAMP and TIMESTAMP_LTZ do
// not convert into each other implicitly, and timestamps do not narrow to
// DATE or TIME: those need a CAST.
func ImplicitCast(from, to T) bool {
	switch {
	case from.Kind == Invalid || to.Kind == Invalid:
		return false
	case from.Kind == Null:
		return true
	case from.IsNested() || to.IsNested():
		// Element by element (a sink's CAST converts them so).
		if !sameShape(from, to) {
			return false
		}
		ef, et := from.elemsOf(), to.elemsOf()
		for i := range ef {
			if !ImplicitCast(ef[i], et[i]) {
				return false
			}
		}
		return true
	case from.Kind == to.Kind:
		return true
	case from.IsNumeric() && to.IsNumeric():
		return numericRank(from.Kind) <= numericRank(to.Kind)
	case from.Kind == Char && to.Kind == Varchar,
		from.Kind == Binary && to.Kind == Varbinary:
		return true
	}
	return false
}

// CanCast reports whether CAST(x AS to) is allowed for x of type from. The
// rules are Flink's explicit casts:
//
//   - anything casts to CHAR and VARCHAR;
//   - character strings cast to every type but NULL;
//   - numbers cast to numbers and BOOLEAN, BOOLEAN casts to numbers;
//   - byte strings cast to byte strings;
//   - TIMESTAMP and TIMESTAMP_LTZ cast to each other, to DATE and to TIME;
//     DATE and TIME cast to both timestamp kinds;
//   - NULL casts to anything.
//
// Numbers do not cast to TIMESTAMP or TIMESTAMP_LTZ, nor back (use
// TO_TIMESTAMP_LTZ(x, 3) or TO_TIMESTAMP_LTZ(x, 0), and UNIX_TIMESTAMP, whose
// units are explicit). Intervals cast only to and from strings. Nullability
// is not considered.
func CanCast(from, to T) bool {
	f := from.Kind
	switch {
	case f == Invalid || to.Kind == Invalid:
		return false
	case f == Null:
		return true
	case to.Kind == Null:
		return false
	case f.IsNested() && to.IsString():
		return true
	case f.IsNested() || to.IsNested():
		if !sameShape(from, to) {
			return false
		}
		ef, et := from.elemsOf(), to.elemsOf()
		for i := range ef {
			if !CanCast(ef[i], et[i]) {
				return false
			}
		}
		return true
	case f == to.Kind:
		return true
	case to.IsString() || f.IsString():
		return true
	}
	switch to.Kind {
	case Boolean:
		return f.IsNumeric()
	case TinyInt, SmallInt, Int, BigInt, Decimal, Float, Double:
		return f.IsNumeric() || f == Boolean
	case Binary, Varbinary:
		return f.IsBinary()
	case Date:
		return f.IsTimestamp()
	case Time:
		return f.IsTimestamp()
	case Timestamp, TimestampLTZ:
		return f.IsTemporal()
	case Invalid, Char, Varchar, Interval, IntervalYM, Null, Array, Map, Row:
	}
	return false
}

// Orderable reports whether values of types a and b can be compared with <,
// <=, >, >=, BETWEEN, MIN, MAX and ORDER BY: Comparable types that are not
// ARRAY, MAP or ROW (Flink does not order those either).
func Orderable(a, b T) bool {
	return Comparable(a, b) && !a.IsNested() && !b.IsNested()
}

// mergeNullable is a (SameIgnoringNullDeep as b) made nullable wherever a
// or b is, at every level.
func mergeNullable(a, b T) T {
	if !a.IsNested() {
		return a.WithNullable(a.Nullable || b.Nullable)
	}
	ea, eb := a.elemsOf(), b.elemsOf()
	es := make([]T, len(ea))
	for i := range ea {
		es[i] = mergeNullable(ea[i], eb[i])
	}
	var r T
	switch a.Kind {
	case Array:
		r = ArrayOf(es[0])
	case Map:
		r = MapOf(es[0], es[1])
	default:
		fs := a.Fields()
		for i := range fs {
			fs[i].Type = es[i]
		}
		r = RowOf(fs...)
	}
	return r.WithNullable(a.Nullable || b.Nullable)
}
