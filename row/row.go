package row

import (
	"math"
	"strconv"

	"github.com/streamsql/streamsql/changelogmode"
)

// Kind is how a Value is stored.
type Kind uint8

// Value kinds.
const (
	Null Kind = iota
	Int
	Float
	Str
)

// Value is one scalar. The zero Value is NULL.
type Value struct {
	k Kind
	i int64
	s string
}

// NullValue is NULL.
var NullValue = Value{}

// IntValue returns an integer-encoded value (integers, booleans, decimals,
// times, intervals: see the package comment).
func IntValue(i int64) Value { return Value{k: Int, i: i} }

// BoolValue returns a BOOLEAN value.
func BoolValue(b bool) Value {
	if b {
		return Value{k: Int, i: 1}
	}
	return Value{k: Int}
}

// FloatValue returns a FLOAT or DOUBLE value.
func FloatValue(f float64) Value { return Value{k: Float, i: int64(math.Float64bits(f))} }

// StrValue returns a string or bytes value.
func StrValue(s string) Value { return Value{k: Str, s: s} }

// Kind is the storage kind.
func (v Value) Kind() Kind { return v.k }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.k == Null }

// Int returns the integer encoding (0 for NULL).
func (v Value) Int() int64 { return v.i }

// Bool returns the boolean (false for NULL).
func (v Value) Bool() bool { return v.k == Int && v.i != 0 }

// Float returns the float (0 for NULL).
func (v Value) Float() float64 {
	if v.k != Float {
		return 0
	}
	return math.Float64frombits(uint64(v.i))
}

// Str returns the string ("" for NULL).
func (v Value) Str() string { return v.s }

// Equal reports whether two values are identical (NULL equals NULL here:
// this is identity for state lookups, not SQL's =).
func (v Value) Equal(w Value) bool { return v.k == w.k && v.i == w.i && v.s == w.s }

// Compare orders values of the same kind: -1, 0 or 1. NULL sorts first.
func (v Value) Compare(w Value) int {
	if v.k != w.k {
		if v.k < w.k {
			return -1
		}
		return 1
	}
	switch v.k {
	case Int:
		switch {
		case v.i < w.i:
			return -1
		case v.i > w.i:
			return 1
		}
	case Float:
		a, b := v.Float(), w.Float()
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
	case Str:
		switch {
		case v.s < w.s:
			return -1
		case v.s > w.s:
			return 1
		}
	case Null:
	}
	return 0
}

// String renders the raw encoding, for debugging; use Format for SQL text.
func (v Value) String() string {
	switch v.k {
	case Int:
		return strconv.FormatInt(v.i, 10)
	case Float:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case Str:
		return strconv.Quote(v.s)
	case Null:
	}
	return "NULL"
}

// Row is one change: its kind and its values.
type Row struct {
	Kind changelogmode.Kind
	Vals []Value
}

// Insert returns a +I row of vals.
func Insert(vals ...Value) Row { return Row{Kind: changelogmode.Insert, Vals: vals} }

// Batch is a slice of rows handed from one operator to the next. A receiver
// must not keep the slice after the call returns; it may keep the rows'
// value slices, which are never reused by the sender.
type Batch []Row

// The range of time values streamsql reads and writes: years 1 to 9999,
// UTC, in milliseconds since the epoch. The formats accept no other time,
// and event time (watermarks, windows) stays inside it.
const (
	// MinMillis is 0001-01-01 00:00:00.000.
	MinMillis = -62135596800000
	// MaxMillis is 9999-12-31 23:59:59.999.
	MaxMillis = 253402300799999
)
