package formattest

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func col(name string, t types.T) connector.Column { return connector.Column{Name: name, Type: t} }

// Schema has a column of every type the formats read (every integer, FLOAT
// and DOUBLE, DECIMAL at the ends of precision and scale, CHAR, VARCHAR,
// STRING, BINARY, BYTES, DATE, TIME and TIMESTAMP at several precisions,
// TIMESTAMP_LTZ, both intervals), two NOT NULL columns, and a metadata
// column (which a format leaves NULL).
func Schema() []connector.Column {
	return []connector.Column{
		col("b", types.New(types.Boolean)),
		col("i8", types.New(types.TinyInt)),
		col("i16", types.New(types.SmallInt)),
		col("i32", types.New(types.Int)),
		col("i64", types.New(types.BigInt)),
		col("f", types.New(types.Float)),
		col("d", types.New(types.Double)),
		col("dec", types.DecimalOf(10, 2)),
		col("dec0", types.DecimalOf(5, 0)),
		col("dec18", types.DecimalOf(18, 18)),
		col("dec38", types.DecimalOf(38, 4)),
		col("ch", types.CharOf(3)),
		col("vc", types.VarcharOf(8)),
		col("s", types.StringType()),
		col("bin", types.BinaryOf(4)),
		col("by", types.BytesType()),
		col("day", types.New(types.Date)),
		col("tod0", types.TimeOf(0)),
		col("tod", types.TimeOf(3)),
		col("ts0", types.TimestampOf(0)),
		col("ts1", types.TimestampOf(1)),
		col("ts", types.TimestampOf(3)),
		col("ts9", types.TimestampOf(9)),
		col("ltz", types.TimestampLTZOf(3)),
		col("ltz0", types.TimestampLTZOf(0)),
		col("iv", types.T{Kind: types.Interval, Precision: types.IntervalPrecision, Nullable: true}),
		col("ym", types.New(types.IntervalYM)),
		col("nn", types.New(types.Int).NotNull()),
		col("nns", types.StringType().NotNull()),
		{Name: "meta", Type: types.New(types.BigInt), MetadataKey: "offset"},
	}
}

// NestedSchema is Schema with nested columns too (the json formats read
// them; csv does not): arrays of scalars, of NOT NULL strings and of rows,
// maps with string and integer keys (one with array values), and a row
// holding a row.
func NestedSchema() []connector.Column {
	s := Schema()
	meta := s[len(s)-1]
	inner := types.RowOf(types.Field{Name: "x", Type: types.StringType()}, types.Field{Name: "y", Type: types.DecimalOf(10, 2)})
	return append(s[:len(s)-1],
		col("arr", types.ArrayOf(types.New(types.Int))),
		col("arrs", types.ArrayOf(types.StringType().NotNull())),
		col("arrd", types.ArrayOf(types.New(types.Double))),
		col("m", types.MapOf(types.StringType(), types.TimestampOf(3))),
		col("mi", types.MapOf(types.New(types.BigInt).NotNull(), types.ArrayOf(types.DecimalOf(5, 1)))),
		col("r", types.RowOf(
			types.Field{Name: "a", Type: types.New(types.BigInt)},
			types.Field{Name: "b c", Type: types.New(types.Boolean).NotNull()},
			types.Field{Name: "inner", Type: inner})),
		col("ar", types.ArrayOf(inner)),
		meta)
}

// The range the formats read: years 1 to 9999, UTC.
var (
	MinMillis = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	MaxMillis = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC).UnixMilli()
	MinDay    = MinMillis / msPerDay
	MaxDay    = MaxMillis / msPerDay
)

const msPerDay = 86400000

// IntRange is the range of an integer kind (intervals are 64 bits).
func IntRange(k types.Kind) (lo, hi int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	default:
		return math.MinInt64, math.MaxInt64
	}
}

// Unit is the step in milliseconds of a TIME or TIMESTAMP of precision p.
func Unit(p int) int64 {
	switch p {
	case 0:
		return 1000
	case 1:
		return 100
	case 2:
		return 10
	}
	return 1
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// InDomain says why v is not a value of type t ("" when it is). NULL is
// left to the caller (it depends on nullability).
func InDomain(t types.T, v row.Value) string {
	switch t.Kind {
	case types.Boolean:
		if v.Kind() != row.Int || v.Int() != 0 && v.Int() != 1 {
			return "not a boolean"
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Interval, types.IntervalYM:
		lo, hi := IntRange(t.Kind)
		if v.Kind() != row.Int || v.Int() < lo || v.Int() > hi {
			return "out of range"
		}
	case types.Float, types.Double:
		f := v.Float()
		if v.Kind() != row.Float {
			return "not a float"
		}
		if t.Kind == types.Float && !math.IsNaN(f) && float64(float32(f)) != f {
			return "not a 32-bit float"
		}
	case types.Decimal:
		if v.Kind() != row.Int {
			return "not an unscaled decimal"
		}
		if t.Precision < 19 {
			u := v.Int()
			if u < 0 {
				u = -u
			}
			if u < 0 || uint64(u) >= pow10(t.Precision) {
				return "more digits than the precision"
			}
		}
	case types.Char, types.Varchar:
		if v.Kind() != row.Str || !utf8.ValidString(v.Str()) {
			return "not UTF-8 text"
		}
	case types.Binary, types.Varbinary:
		if v.Kind() != row.Str {
			return "not bytes"
		}
	case types.Date:
		if v.Kind() != row.Int || v.Int() < MinDay || v.Int() > MaxDay {
			return "outside years 1..9999"
		}
	case types.Time:
		if v.Kind() != row.Int || v.Int() < 0 || v.Int() >= msPerDay || v.Int()%Unit(t.Precision) != 0 {
			return "not a time of day at the type's precision"
		}
	case types.Timestamp, types.TimestampLTZ:
		if v.Kind() != row.Int || v.Int() < MinMillis || v.Int() > MaxMillis || v.Int()%Unit(t.Precision) != 0 {
			return "not a timestamp in years 1..9999 at the type's precision"
		}
	case types.Array, types.Row:
		vals, err := row.DecodeList(nil, v.Str())
		if v.Kind() != row.Str || err != nil {
			return "not a nested list"
		}
		for k, e := range vals {
			var et types.T
			if t.Kind == types.Array {
				et = t.Elem()
			} else {
				if len(vals) != t.NumFields() {
					return "not as many fields as the row type"
				}
				et = t.Fields()[k].Type
			}
			if why := inDomainOrNull(et, e); why != "" {
				return why
			}
		}
	case types.Map:
		keys, vals, err := row.DecodeMap(nil, nil, v.Str())
		if v.Kind() != row.Str || err != nil {
			return "not a nested map"
		}
		for k := range keys {
			if keys[k].IsNull() || k > 0 && keys[k-1].Compare(keys[k]) >= 0 {
				return "map keys NULL, unsorted or repeated"
			}
			if why := inDomainOrNull(t.Key(), keys[k]); why != "" {
				return why
			}
			if why := inDomainOrNull(t.Value(), vals[k]); why != "" {
				return why
			}
		}
	default:
		return "a type the formats do not read"
	}
	return ""
}

func inDomainOrNull(t types.T, v row.Value) string {
	if v.IsNull() {
		if !t.Nullable {
			return "a NULL element of a NOT NULL type"
		}
		return ""
	}
	return InDomain(t, v)
}

// SameValue is row.Value.Equal, but with every NaN the same (a NaN's
// payload bits are not part of its value).
//
// Nested values (lists, see row.AppendList) are compared element by
// element the same way.
func SameValue(a, b row.Value) bool {
	if a.Kind() == row.Float && b.Kind() == row.Float && math.IsNaN(a.Float()) && math.IsNaN(b.Float()) {
		return true
	}
	if a.Equal(b) {
		return true
	}
	if a.Kind() != row.Str || b.Kind() != row.Str {
		return false
	}
	la, erra := row.DecodeList(nil, a.Str())
	lb, errb := row.DecodeList(nil, b.Str())
	if erra != nil || errb != nil || len(la) != len(lb) {
		return false
	}
	for i := range la {
		if !SameValue(la[i], lb[i]) {
			return false
		}
	}
	return true
}

// Gen builds values from a fuzzer's bytes; past their end it reads zeros,
// so that any input gives a row.
type Gen struct {
	Data []byte
	pos  int
}

// Byte returns the next byte.
func (g *Gen) Byte() byte {
	if g.pos >= len(g.Data) {
		return 0
	}
	b := g.Data[g.pos]
	g.pos++
	return b
}

func (g *Gen) uint64() uint64 {
	var u uint64
	for range 8 {
		u = u<<8 | uint64(g.Byte())
	}
	return u
}

// Within returns a value in [lo, hi]: an end, zero, or anything between.
func (g *Gen) Within(lo, hi int64) int64 {
	switch g.Byte() % 8 {
	case 0:
		return lo
	case 1:
		return hi
	case 2:
		if lo <= 0 && hi >= 0 {
			return 0
		}
		return lo
	}
	span := uint64(hi) - uint64(lo) + 1
	if span == 0 { // the whole int64 range
		return int64(g.uint64())
	}
	return lo + int64(g.uint64()%span)
}

// text returns up to 12 bytes, mostly the characters that matter to the
// formats: delimiters, quotes, escapes, line breaks, '#', blanks, the null
// literals, JSON punctuation, a multi-byte character, control characters.
func (g *Gen) text() string {
	const special = ",|;\t\"'\\\n\r# NUL\\N{}:[]é\x00\x01"
	n := int(g.Byte() % 13)
	var b strings.Builder
	for range n {
		c := g.Byte()
		if c < 128 {
			b.WriteByte(special[int(c)%len(special)])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Value returns a valid value of type t, or NULL (now and then, when t is
// nullable).
func (g *Gen) Value(t types.T) row.Value {
	if t.Nullable && g.Byte()%6 == 0 {
		return row.NullValue
	}
	switch t.Kind {
	case types.Boolean:
		return row.BoolValue(g.Byte()&1 != 0)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Interval, types.IntervalYM:
		lo, hi := IntRange(t.Kind)
		return row.IntValue(g.Within(lo, hi))
	case types.Float, types.Double:
		var f float64
		switch g.Byte() % 8 {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Inf(1 - 2*int(g.Byte()&1))
		case 2:
			f = math.Copysign(0, -1)
		default:
			f = math.Float64frombits(g.uint64())
		}
		if t.Kind == types.Float {
			f = float64(float32(f))
		}
		return row.FloatValue(f)
	case types.Decimal:
		if t.Precision >= 19 {
			return row.IntValue(g.Within(math.MinInt64, math.MaxInt64))
		}
		hi := int64(pow10(t.Precision) - 1) //nolint:gosec // precision < 19
		return row.IntValue(g.Within(-hi, hi))
	case types.Char, types.Varchar:
		return row.StrValue(strings.ToValidUTF8(g.text(), "\uFFFD"))
	case types.Binary, types.Varbinary:
		return row.StrValue(g.text())
	case types.Date:
		return row.IntValue(g.Within(MinDay, MaxDay))
	case types.Time:
		u := Unit(t.Precision)
		return row.IntValue(g.Within(0, msPerDay/u-1) * u)
	case types.Timestamp, types.TimestampLTZ:
		u := Unit(t.Precision)
		return row.IntValue(g.Within(MinMillis/u, MaxMillis/u) * u)
	case types.Array, types.Row:
		var vals []row.Value
		if t.Kind == types.Row {
			for _, f := range t.Fields() {
				vals = append(vals, g.Value(f.Type))
			}
		} else {
			for n := g.Byte() % 4; n > 0; n-- {
				vals = append(vals, g.Value(t.Elem()))
			}
		}
		return row.ListValue(vals)
	case types.Map:
		var keys, vals []row.Value
		for n := g.Byte() % 4; n > 0; n-- {
			k := g.Value(t.Key().NotNull())
			keys, vals = append(keys, k), append(vals, g.Value(t.Value()))
		}
		return row.MapValue(keys, vals)
	default:
		panic("formattest: no generator for " + t.String())
	}
}

// Row returns a row of schema: a value for each physical column, NULL for
// the others; its kind is +I, or any kind when kinds is set.
func (g *Gen) Row(schema []connector.Column, kinds bool) row.Row {
	r := row.Row{Kind: changelogmode.Insert, Vals: make([]row.Value, len(schema))}
	if kinds {
		r.Kind = []changelogmode.Kind{changelogmode.Insert, changelogmode.UpdateBefore, changelogmode.UpdateAfter, changelogmode.Delete}[g.Byte()%4]
	}
	for i := range schema {
		if schema[i].MetadataKey == "" {
			r.Vals[i] = g.Value(schema[i].Type)
		}
	}
	return r
}

// CSVReadBack is the row that Flink's csv format reads back from the record
// its writer makes of in, with null literal null (nullSet says whether the
// table sets one; without, NULL is written empty). text is the value's text
// as the writer writes it (format.AppendText). It is a model written from
// Flink's rules (Jackson's CsvParser compares every field with the null
// literal, quoted or not; CsvToRowDataConverters reads an empty field as the
// empty string for a string, the empty byte string, FALSE, and fails for other types),
// not from the decoder: a value whose text is the null literal (the empty
// string when the literal is empty) reads back NULL, and NULL written without
// a literal reads back as an empty field. ok is false when the record cannot
// be read back: a parse error, or NULL in a NOT NULL column. Metadata
// columns are kept as they are.
func CSVReadBack(schema []connector.Column, null string, nullSet bool, text func([]byte, types.T, row.Value) []byte, in row.Row) (out row.Row, ok bool) {
	out = row.Row{Kind: in.Kind, Vals: make([]row.Value, len(in.Vals))}
	for i := range schema {
		c := &schema[i]
		v := in.Vals[i]
		if c.MetadataKey != "" {
			out.Vals[i] = v
			continue
		}
		s := null
		if !v.IsNull() {
			s = string(text(nil, c.Type, v))
		}
		switch {
		case nullSet && s == null:
			if !c.Type.Nullable {
				return out, false
			}
			out.Vals[i] = row.NullValue
		case !v.IsNull():
			out.Vals[i] = v
		case c.Type.IsString(), c.Type.IsBinary():
			out.Vals[i] = row.StrValue("")
		case c.Type.Kind == types.Boolean:
			out.Vals[i] = row.BoolValue(false)
		default:
			return out, false
		}
	}
	return out, true
}
