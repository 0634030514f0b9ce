package types

import (
	"math"
	"strconv"
)

// Kind is the root of a logical type: the type without its parameters and
// nullability.
type Kind uint8

// Kinds. The zero Kind is Invalid, so the zero T is recognisably "no type".
const (
	Invalid      Kind = iota
	Boolean           // BOOLEAN
	TinyInt           // TINYINT, 1 byte
	SmallInt          // SMALLINT, 2 bytes
	Int               // INT, 4 bytes
	BigInt            // BIGINT, 8 bytes
	Float             // FLOAT, 4-byte IEEE 754
	Double            // DOUBLE, 8-byte IEEE 754
	Decimal           // DECIMAL(p, s)
	Char              // CHAR(n), fixed length
	Varchar           // VARCHAR(n); STRING is VARCHAR(MaxLength)
	Binary            // BINARY(n), fixed length
	Varbinary         // VARBINARY(n); BYTES is VARBINARY(MaxLength)
	Date              // DATE
	Time              // TIME(p), without time zone
	Timestamp         // TIMESTAMP(p), without time zone
	TimestampLTZ      // TIMESTAMP_LTZ(p), with local time zone
	Interval          // INTERVAL DAY TO SECOND, kept in milliseconds
	IntervalYM        // INTERVAL YEAR TO MONTH, kept in months
	Null              // the type of the NULL literal
	Array             // ARRAY<T>
	Map               // MAP<K, V>
	Row               // ROW<f1 T1, f2 T2, ...>
)

// Limits and defaults, as in Flink.
const (
	// MaxLength is the largest length of a CHAR, VARCHAR, BINARY or
	// VARBINARY; STRING and BYTES have it.
	MaxLength = math.MaxInt32
	// MaxDecimalPrecision is the largest precision of a DECIMAL.
	MaxDecimalPrecision = 38
	// MaxTimePrecision is the largest fractional-second precision of TIME,
	// TIMESTAMP and TIMESTAMP_LTZ (nanoseconds).
	MaxTimePrecision = 9
	// DefaultTimestampPrecision is the precision of TIMESTAMP and
	// TIMESTAMP_LTZ written without one.
	DefaultTimestampPrecision = 6
	// DefaultDecimalPrecision is the precision of DECIMAL written without
	// one (its scale is then 0).
	DefaultDecimalPrecision = 10
	// IntervalPrecision is the fractional-second precision of a day-time
	// interval: streamsql keeps intervals in milliseconds.
	IntervalPrecision = 3
)

var kindNames = [...]string{
	Invalid:      "INVALID",
	Boolean:      "BOOLEAN",
	TinyInt:      "TINYINT",
	SmallInt:     "SMALLINT",
	Int:          "INT",
	BigInt:       "BIGINT",
	Float:        "FLOAT",
	Double:       "DOUBLE",
	Decimal:      "DECIMAL",
	Char:         "CHAR",
	Varchar:      "VARCHAR",
	Binary:       "BINARY",
	Varbinary:    "VARBINARY",
	Date:         "DATE",
	Time:         "TIME",
	Timestamp:    "TIMESTAMP",
	TimestampLTZ: "TIMESTAMP_LTZ",
	Interval:     "INTERVAL DAY TO SECOND",
	IntervalYM:   "INTERVAL YEAR TO MONTH",
	Null:         "NULL",
	Array:        "ARRAY",
	Map:          "MAP",
	Row:          "ROW",
}

// String returns the kind's SQL name without parameters, e.g. VARCHAR or
// TIMESTAMP_LTZ.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IsNumeric reports whether k is an integer, DECIMAL, FLOAT or DOUBLE.
func (k Kind) IsNumeric() bool { return k >= TinyInt && k <= Decimal }

// IsIntegral reports whether k is TINYINT, SMALLINT, INT or BIGINT.
func (k Kind) IsIntegral() bool { return k >= TinyInt && k <= BigInt }

// IsExactNumeric reports whether k is an integer or DECIMAL.
func (k Kind) IsExactNumeric() bool { return k.IsIntegral() || k == Decimal }

// IsApproximate reports whether k is FLOAT or DOUBLE.
func (k Kind) IsApproximate() bool { return k == Float || k == Double }

// IsString reports whether k is a character string (CHAR or VARCHAR).
func (k Kind) IsString() bool { return k == Char || k == Varchar }

// IsBinary reports whether k is a byte string (BINARY or VARBINARY).
func (k Kind) IsBinary() bool { return k == Binary || k == Varbinary }

// IsTimestamp reports whether k is TIMESTAMP or TIMESTAMP_LTZ: the kinds a
// time attribute (a watermarked column) can have.
func (k Kind) IsTimestamp() bool { return k == Timestamp || k == TimestampLTZ }

// IsTemporal reports whether k is DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ.
func (k Kind) IsTemporal() bool { return k == Date || k == Time || k.IsTimestamp() }

// IsNested reports whether k is ARRAY, MAP or ROW: a type with element
// types (see Elem, Key, Value and Fields).
func (k Kind) IsNested() bool { return k == Array || k == Map || k == Row }

// IsInterval reports whether k is a day-time or year-month interval.
func (k Kind) IsInterval() bool { return k == Interval || k == IntervalYM }

// T is a logical type. It is a comparable value: two types are the same
// exactly when they are ==. Build types with New and the XxxOf constructors;
// the zero T has kind Invalid.
//
// Which parameters a kind uses:
//
//	Decimal                              Precision (1..38), Scale (0..Precision)
//	Char, Varchar, Binary, Varbinary     Length (1..MaxLength)
//	Time, Timestamp, TimestampLTZ        Precision (0..9)
//	Interval                             Precision (always IntervalPrecision)
//	Array, Map, Row                      their element types (Elem, Key and Value, Fields)
//
// The others are zero. The element types of a nested type are held in an
// interned descriptor, so that T stays comparable and == stays type
// identity (nullability of the elements included).
type T struct {
	Kind
	Precision, Scale int
	Length           int
	// Nullable is true unless the column is declared NOT NULL. The NULL
	// type is always nullable.
	Nullable bool
	nest     *nested
}

// New returns the nullable type of kind k with Flink's defaults, as if it was
// written without parameters: DECIMAL(10, 0), CHAR(1), VARCHAR(1), BINARY(1),
// VARBINARY(1), TIME(0), TIMESTAMP(6), TIMESTAMP_LTZ(6). Use StringType for
// STRING and BytesType for BYTES.
func New(k Kind) T {
	t := T{Kind: k, Nullable: true}
	switch k {
	case Decimal:
		t.Precision = DefaultDecimalPrecision
	case Char, Varchar, Binary, Varbinary:
		t.Length = 1
	case Timestamp, TimestampLTZ:
		t.Precision = DefaultTimestampPrecision
	case Interval:
		t.Precision = IntervalPrecision
	case Invalid, Boolean, TinyInt, SmallInt, Int, BigInt, Float, Double, Date, Time, IntervalYM, Null,
		Array, Map, Row:
	}
	return t
}

// StringType returns STRING, that is VARCHAR(2147483647), nullable.
func StringType() T { return VarcharOf(MaxLength) }

// BytesType returns BYTES, that is VARBINARY(2147483647), nullable.
func BytesType() T { return VarbinaryOf(MaxLength) }

// DecimalOf returns DECIMAL(p, s), nullable. It does not check its
// arguments; FromAST does.
func DecimalOf(p, s int) T { return T{Kind: Decimal, Precision: p, Scale: s, Nullable: true} }

// CharOf returns CHAR(n), nullable.
func CharOf(n int) T { return T{Kind: Char, Length: n, Nullable: true} }

// VarcharOf returns VARCHAR(n), nullable.
func VarcharOf(n int) T { return T{Kind: Varchar, Length: n, Nullable: true} }

// BinaryOf returns BINARY(n), nullable.
func BinaryOf(n int) T { return T{Kind: Binary, Length: n, Nullable: true} }

// VarbinaryOf returns VARBINARY(n), nullable.
func VarbinaryOf(n int) T { return T{Kind: Varbinary, Length: n, Nullable: true} }

// TimeOf returns TIME(p), nullable.
func TimeOf(p int) T { return T{Kind: Time, Precision: p, Nullable: true} }

// TimestampOf returns TIMESTAMP(p), nullable.
func TimestampOf(p int) T { return T{Kind: Timestamp, Precision: p, Nullable: true} }

// TimestampLTZOf returns TIMESTAMP_LTZ(p), nullable.
func TimestampLTZOf(p int) T { return T{Kind: TimestampLTZ, Precision: p, Nullable: true} }

// WithNullable returns t with the given nullability. The NULL type stays
// nullable.
func (t T) WithNullable(nullable bool) T {
	t.Nullable = nullable || t.Kind == Null
	return t
}

// NotNull returns t declared NOT NULL.
func (t T) NotNull() T { return t.WithNullable(false) }

// SameIgnoringNull reports whether a and b are the same type apart from
// nullability.
func SameIgnoringNull(a, b T) bool {
	return a.WithNullable(true) == b.WithNullable(true)
}

// String prints t as Flink does: STRING, VARCHAR(10), DECIMAL(15, 2),
// TIMESTAMP(3), TIMESTAMP_LTZ(3), BYTES, INTERVAL DAY TO SECOND(3), with
// " NOT NULL" appended when t is not nullable.
func (t T) String() string {
	s := t.base()
	if !t.Nullable && t.Kind != Null && t.Kind != Invalid {
		s += " NOT NULL"
	}
	return s
}

func (t T) base() string {
	p := func(name string, n int) string { return name + "(" + strconv.Itoa(n) + ")" }
	switch t.Kind {
	case Decimal:
		return "DECIMAL(" + strconv.Itoa(t.Precision) + ", " + strconv.Itoa(t.Scale) + ")"
	case Char:
		return p("CHAR", t.Length)
	case Varchar:
		if t.Length == MaxLength {
			return "STRING"
		}
		return p("VARCHAR", t.Length)
	case Binary:
		return p("BINARY", t.Length)
	case Varbinary:
		if t.Length == MaxLength {
			return "BYTES"
		}
		return p("VARBINARY", t.Length)
	case Time:
		return p("TIME", t.Precision)
	case Timestamp:
		return p("TIMESTAMP", t.Precision)
	case TimestampLTZ:
		return p("TIMESTAMP_LTZ", t.Precision)
	case Interval:
		return p("INTERVAL DAY TO SECOND", t.Precision)
	case Array, Map, Row:
		return t.nestedString()
	case Invalid, Boolean, TinyInt, SmallInt, Int, BigInt, Float, Double, Date, IntervalYM, Null:
	}
	return t.Kind.String()
}
