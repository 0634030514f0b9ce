package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// Supported lists the type names FromAST accepts, in the form a hint shows
// them.
const Supported = "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), " +
	"CHAR(n), VARCHAR(n), STRING, BINARY(n), VARBINARY(n), BYTES, DATE, TIME(p), " +
	"TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<T>, MAP<K, V>, ROW<name T, ...>"

// foreign maps type names from other systems to what to write in Flink SQL.
var foreign = map[string]string{
	"BOOL":        "BOOLEAN",
	"TEXT":        "STRING",
	"LONGTEXT":    "STRING",
	"NVARCHAR":    "VARCHAR(n) or STRING",
	"VARCHAR2":    "VARCHAR(n) or STRING",
	"UUID":        "STRING",
	"JSON":        "STRING",
	"JSONB":       "STRING",
	"LONG":        "BIGINT",
	"INT64":       "BIGINT",
	"INT32":       "INT",
	"INT16":       "SMALLINT",
	"MEDIUMINT":   "INT",
	"FLOAT32":     "FLOAT",
	"FLOAT64":     "DOUBLE",
	"NUMBER":      "DECIMAL(p, s)",
	"MONEY":       "DECIMAL(p, s)",
	"DATETIME":    "TIMESTAMP(3)",
	"TIMESTAMPTZ": "TIMESTAMP_LTZ(3)",
	"BLOB":        "BYTES",
	"BYTEA":       "BYTES",
}

// intervalNames are the interval types FromAST accepts; none takes
// parameters, since streamsql keeps day-time intervals in milliseconds and
// year-month intervals in months.
var intervalNames = map[string]Kind{
	"INTERVAL DAY":              Interval,
	"INTERVAL DAY TO HOUR":      Interval,
	"INTERVAL DAY TO MINUTE":    Interval,
	"INTERVAL DAY TO SECOND":    Interval,
	"INTERVAL HOUR":             Interval,
	"INTERVAL HOUR TO MINUTE":   Interval,
	"INTERVAL HOUR TO SECOND":   Interval,
	"INTERVAL MINUTE":           Interval,
	"INTERVAL MINUTE TO SECOND": Interval,
	"INTERVAL SECOND":           Interval,
	"INTERVAL YEAR":             IntervalYM,
	"INTERVAL YEAR TO MONTH":    IntervalYM,
	"INTERVAL MONTH":            IntervalYM,
}

// FromAST converts a parsed type name to a T. On error it reports a
// diag.InvalidType diagnostic at t.Span() that says what is wrong and what is
// allowed, and returns false. Names are matched case-insensitively, with runs
// of spaces treated as one.
func FromAST(t *ast.TypeName, l *diag.List) (T, bool) {
	c := conv{t: t, l: l, name: strings.ToUpper(strings.Join(strings.Fields(t.Name), " "))}
	out, ok := c.convert()
	if !ok {
		return T{}, false
	}
	return out.WithNullable(!t.NotNull), true
}

type conv struct {
	t    *ast.TypeName
	l    *diag.List
	name string
}

func (c *conv) errorf(format string, args ...any) *diag.Diagnostic {
	return c.l.Errorf(diag.InvalidType, c.t.Span(), format, args...)
}

// written is the type as the user wrote it, parameters included.
func (c *conv) written() string {
	if !c.t.HasParams {
		return c.name
	}
	ps := make([]string, len(c.t.Params))
	for i, p := range c.t.Params {
		ps[i] = strconv.Itoa(p)
	}
	return c.name + "(" + strings.Join(ps, ", ") + ")"
}

func (c *conv) convert() (T, bool) {
	switch c.name {
	case "BOOLEAN":
		return c.plain(Boolean, "")
	case "TINYINT":
		return c.plain(TinyInt, "Flink SQL integers have no display width; write TINYINT")
	case "SMALLINT":
		return c.plain(SmallInt, "Flink SQL integers have no display width; write SMALLINT")
	case "INT", "INTEGER":
		return c.plain(Int, "Flink SQL integers have no display width; write INT")
	case "BIGINT":
		return c.plain(BigInt, "Flink SQL integers have no display width; write BIGINT")
	case "FLOAT", "REAL":
		return c.plain(Float, "FLOAT takes no precision; use DOUBLE for 8 bytes or DECIMAL(p, s) for exact values")
	case "DOUBLE", "DOUBLE PRECISION":
		return c.plain(Double, "DOUBLE takes no precision; use DECIMAL(p, s) for exact values")
	case "DATE":
		return c.plain(Date, "")
	case "STRING":
		if _, ok := c.plain(Varchar, "write VARCHAR(n) for a string of at most n characters, or STRING"); !ok {
			return T{}, false
		}
		return StringType(), true
	case "BYTES":
		if _, ok := c.plain(Varbinary, "write VARBINARY(n) for at most n bytes, or BYTES"); !ok {
			return T{}, false
		}
		return BytesType(), true
	case "CHAR", "CHARACTER":
		return c.length(Char)
	case "VARCHAR":
		return c.length(Varchar)
	case "BINARY":
		return c.length(Binary)
	case "VARBINARY":
		return c.length(Varbinary)
	case "DECIMAL", "DEC", "NUMERIC":
		return c.decimal()
	case "TIME", "TIME WITHOUT TIME ZONE":
		return c.precision(Time, 0)
	case "TIMESTAMP", "TIMESTAMP WITHOUT TIME ZONE":
		return c.precision(Timestamp, DefaultTimestampPrecision)
	case "TIMESTAMP_LTZ", "TIMESTAMP WITH LOCAL TIME ZONE":
		return c.precision(TimestampLTZ, DefaultTimestampPrecision)
	case "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_TZ":
		c.errorf("%s is not supported (Flink does not support it either)", c.name).
			WithHint("use TIMESTAMP_LTZ(3) for an instant in time, or TIMESTAMP(3) for a wall-clock date and time")
		return T{}, false
	case "ARRAY", "MAP", "ROW":
		return c.nested()
	case "MULTISET", "RAW":
		c.errorf("%s types are not supported by streamsql", c.name).
			WithHint("supported types: %s", Supported)
		return T{}, false
	}
	if k, ok := intervalNames[c.name]; ok {
		if c.t.HasParams {
			c.errorf("%s takes no parameters in streamsql, got %s", c.name, c.written()).
				WithHint("day-time intervals are kept in milliseconds; write %s", c.name)
			return T{}, false
		}
		return New(k), true
	}
	d := c.errorf("unknown data type %s", c.name)
	if instead, ok := foreign[c.name]; ok {
		d.WithHint("write %s", instead)
	} else {
		d.WithHint("supported types: %s", Supported)
	}
	return T{}, false
}

// plain converts a type without parameters.
func (c *conv) plain(k Kind, hint string) (T, bool) {
	if c.t.HasParams {
		d := c.errorf("%s takes no parameters, got %s", c.name, c.written())
		if hint != "" {
			d.WithHint("%s", hint)
		}
		return T{}, false
	}
	return New(k), true
}

// length converts CHAR, VARCHAR, BINARY and VARBINARY: one optional length
// in 1..MaxLength, default 1.
func (c *conv) length(k Kind) (T, bool) {
	t := New(k)
	switch ps := c.t.Params; {
	case !c.t.HasParams:
		return t, true
	case len(ps) != 1:
		c.errorf("%s takes one parameter, the length, got %s", c.name, c.written())
		return T{}, false
	case ps[0] < 1 || ps[0] > MaxLength:
		d := c.errorf("%s length must be between 1 and %d, got %d", c.name, MaxLength, ps[0])
		if k == Varchar && ps[0] > MaxLength {
			d.WithHint("write STRING for a string of any length")
		}
		return T{}, false
	default:
		t.Length = ps[0]
		return t, true
	}
}

// decimal converts DECIMAL, DECIMAL(p) and DECIMAL(p, s).
func (c *conv) decimal() (T, bool) {
	ps := c.t.Params
	switch {
	case !c.t.HasParams:
		return New(Decimal), true
	case len(ps) < 1 || len(ps) > 2:
		c.errorf("%s takes a precision and an optional scale, got %s", c.name, c.written()).
			WithHint("write DECIMAL(p, s), for example DECIMAL(15, 2)")
		return T{}, false
	}
	p, s := ps[0], 0
	if len(ps) == 2 {
		s = ps[1]
	}
	if p < 1 || p > MaxDecimalPrecision {
		c.errorf("%s precision must be between 1 and %d, got %d", c.name, MaxDecimalPrecision, p)
		return T{}, false
	}
	if s < 0 || s > p {
		c.errorf("%s scale must be between 0 and the precision %d, got %d", c.name, p, s)
		return T{}, false
	}
	return DecimalOf(p, s), true
}

// precision converts TIME, TIMESTAMP and TIMESTAMP_LTZ: one optional
// fractional-second precision in 0..9.
func (c *conv) precision(k Kind, def int) (T, bool) {
	t := New(k)
	t.Precision = def
	ps := c.t.Params
	switch {
	case !c.t.HasParams:
		return t, true
	case len(ps) != 1:
		c.errorf("%s takes one parameter, the fractional-second precision, got %s", c.name, c.written()).
			WithHint("write %s(3) for milliseconds", k)
		return T{}, false
	case ps[0] < 0 || ps[0] > MaxTimePrecision:
		c.errorf("%s precision must be between 0 and %d, got %d", c.name, MaxTimePrecision, ps[0]).
			WithHint("%s", precisionHint(k))
		return T{}, false
	}
	t.Precision = ps[0]
	return t, true
}

func precisionHint(k Kind) string {
	return fmt.Sprintf("the precision counts fractional-second digits: %s(0) is seconds, (3) milliseconds, (6) microseconds, (9) nanoseconds", k)
}

// nested converts ARRAY<T>, MAP<K, V> and ROW<name T, ...>; every element
// type is converted (and its errors reported) before the result is built.
func (c *conv) nested() (T, bool) {
	want := map[string]int{"ARRAY": 1, "MAP": 2}[c.name]
	if c.t.HasParams || len(c.t.Elems) == 0 || want != 0 && len(c.t.Elems) != want ||
		c.name == "ROW" && len(c.t.FieldNames) != len(c.t.Elems) {
		c.errorf("%s needs its element types, as in %s", c.name,
			map[string]string{"ARRAY": "ARRAY<STRING>", "MAP": "MAP<STRING, BIGINT>", "ROW": "ROW<name STRING, price DECIMAL(10, 2)>"}[c.name])
		return T{}, false
	}
	elems := make([]T, len(c.t.Elems))
	ok := true
	for i, e := range c.t.Elems {
		t, eok := FromAST(e, c.l)
		elems[i] = t
		ok = ok && eok
	}
	if c.name == "ROW" {
		seen := map[string]bool{}
		for _, id := range c.t.FieldNames {
			if seen[id.Name] {
				c.l.Errorf(diag.InvalidType, id.Span(), "field %s appears twice in this ROW type", id.Name).
					WithHint("every field of a ROW needs its own name")
				ok = false
			}
			seen[id.Name] = true
		}
	}
	if !ok {
		return T{}, false
	}
	switch c.name {
	case "ARRAY":
		return ArrayOf(elems[0]), true
	case "MAP":
		return MapOf(elems[0], elems[1]), true
	}
	fs := make([]Field, len(elems))
	for i := range fs {
		fs[i] = Field{Name: c.t.FieldNames[i].Name, Type: elems[i]}
	}
	return RowOf(fs...), true
}
