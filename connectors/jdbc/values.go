package jdbc

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// encoder turns a value of a DDL type into a statement parameter. Numbers
// and booleans go as Go values; decimals, dates and times as their exact
// text, which both databases read into the column's type (pgx sends a
// string parameter in the text format), so no value passes through a
// float or a time zone on the way.
type encoder func(v row.Value) any

// supported says whether the connector can write and read type t.
func supported(t types.T) error {
	if t.Kind.IsInterval() {
		return fmt.Errorf("type %s cannot be read or written by the jdbc connector", t)
	}
	return nil
}

func newEncoder(d dialect, t types.T) encoder {
	switch {
	case t.Kind == types.Boolean:
		return func(v row.Value) any { return v.Bool() }
	case t.Kind.IsIntegral():
		return func(v row.Value) any { return v.Int() }
	case t.Kind == types.Float || t.Kind == types.Double:
		return func(v row.Value) any { return v.Float() }
	case t.Kind.IsString():
		return func(v row.Value) any { return v.Str() }
	case t.Kind.IsBinary():
		return func(v row.Value) any { return []byte(v.Str()) }
	case t.Kind == types.TimestampLTZ && d.name == "postgres":
		return func(v row.Value) any { return string(format.AppendText(nil, t, v)) + "+00" }
	}
	// DECIMAL, DATE, TIME, TIMESTAMP, and TIMESTAMP_LTZ on MySQL (the
	// session's time zone is UTC).
	return func(v row.Value) any { return string(format.AppendText(nil, t, v)) }
}

// args appends the parameters of the columns cols of r.
func args(out []any, enc []encoder, r row.Row, cols []int) []any {
	for _, c := range cols {
		v := r.Vals[c]
		if v.IsNull() {
			out = append(out, nil)
			continue
		}
		out = append(out, enc[c](v))
	}
	return out
}

// readExpr is the SELECT expression of a column of type t: the column as
// text, which ParseText reads exactly (timestamps with a time zone at UTC),
// or as is for byte strings.
func readExpr(d dialect, t types.T, col string) string {
	q := d.quote(col)
	if t.Kind.IsBinary() {
		return q
	}
	if d.name == "mysql" {
		return "CAST(" + q + " AS CHAR)"
	}
	if t.Kind == types.TimestampLTZ {
		return "(" + q + " AT TIME ZONE 'UTC')::text"
	}
	return q + "::text"
}

// decode reads a value selected with readExpr.
func decode(t types.T, v any) (row.Value, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return row.NullValue, nil
	case []byte:
		s = string(x)
	case string:
		s = x
	default:
		s = fmt.Sprint(x)
	}
	switch {
	case t.Kind.IsBinary():
		return row.StrValue(s), nil
	case t.Kind == types.Boolean:
		switch strings.ToLower(s) {
		case "t", "true", "1":
			return row.BoolValue(true), nil
		case "f", "false", "0":
			return row.BoolValue(false), nil
		}
		return row.NullValue, fmt.Errorf("%q is not a boolean", s)
	}
	// Timestamps come with up to microseconds; streamsql keeps
	// milliseconds (ParseText truncates, as it does for every input).
	return format.ParseText(t, s)
}
