package oracle

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// cell is one value of a result in a form both systems' answers convert
// to: exact numbers as reduced fractions (1.50 and 1.5 are one number),
// DOUBLE as a float compared with a tolerance, strings as bytes,
// timestamps as milliseconds, booleans as t/f.
type cell struct {
	null    bool
	exact   string
	f       float64
	isFloat bool
}

func (c cell) String() string {
	switch {
	case c.null:
		return "NULL"
	case c.isFloat:
		return strconv.FormatFloat(c.f, 'g', -1, 64)
	}
	return c.exact
}

func ratCell(r *big.Rat) cell {
	if r.IsInt() {
		return cell{exact: r.Num().String()}
	}
	// A decimal with as many digits as it needs (an exact value of a
	// DECIMAL has a finite expansion).
	s := r.FloatString(40)
	s = strings.TrimRight(s, "0")
	return cell{exact: s}
}

// engineCell converts a streamsql value of type t.
func engineCell(v row.Value, t types.T) (cell, error) {
	if v.IsNull() {
		return cell{null: true}, nil
	}
	switch t.Kind {
	case types.Boolean:
		if v.Int() != 0 {
			return cell{exact: "t"}, nil
		}
		return cell{exact: "f"}, nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return cell{exact: strconv.FormatInt(v.Int(), 10)}, nil
	case types.Decimal:
		r := new(big.Rat).SetFrac(big.NewInt(v.Int()), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil))
		return ratCell(r), nil
	case types.Float, types.Double:
		return cell{f: v.Float(), isFloat: true}, nil
	case types.Char, types.Varchar:
		return cell{exact: "'" + v.Str() + "'"}, nil
	case types.Timestamp:
		return cell{exact: tsText(v.Int())}, nil
	default:
	}
	return cell{}, fmt.Errorf("%w: %s", errUnknownType, t)
}

// pgCell converts PostgreSQL's text of a value whose model type is t.
func pgCell(s *string, t typ) (cell, error) {
	if s == nil {
		return cell{null: true}, nil
	}
	switch t.k {
	case kBool:
		return cell{exact: map[string]string{"true": "t", "false": "f"}[*s]}, nil
	case kInt, kBigint, kDecimal:
		r, ok := new(big.Rat).SetString(*s)
		if !ok {
			return cell{}, fmt.Errorf("PostgreSQL gave %q for a %s", *s, t)
		}
		return ratCell(r), nil
	case kDouble:
		f, err := strconv.ParseFloat(*s, 64)
		if err != nil {
			return cell{}, fmt.Errorf("PostgreSQL gave %q for a DOUBLE", *s)
		}
		return cell{f: f, isFloat: true}, nil
	case kString:
		return cell{exact: "'" + *s + "'"}, nil
	case kTimestamp:
		tm, err := time.Parse("2006-01-02 15:04:05.999999999", *s)
		if err != nil {
			return cell{}, fmt.Errorf("PostgreSQL gave %q for a TIMESTAMP", *s)
		}
		return cell{exact: tsText(tm.UnixMilli())}, nil
	}
	return cell{}, fmt.Errorf("%w: %s", errUnknownType, t)
}

// sameFamily reports whether streamsql's type of an output column is the
// model's: the same kind of value, and for DECIMAL the same scale (the
// scale is visible in every sink: 1.5 and 1.50 are written differently).
// Integer types are one family: streamsql's SUM(INT) is BIGINT where
// Flink's is INT, a documented deviation.
func sameFamily(e types.T, m typ) bool {
	switch m.k {
	case kInt, kBigint:
		return e.Kind.IsIntegral()
	case kDecimal:
		return e.Kind == types.Decimal && e.Scale == m.s
	case kDouble:
		return e.Kind == types.Double
	case kString:
		return e.Kind.IsString()
	case kTimestamp:
		return e.Kind == types.Timestamp
	case kBool:
		return e.Kind == types.Boolean
	}
	return false
}

type result [][]cell

func rowString(r []cell) string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// exactKey is a row's exact cells (DOUBLEs left out).
func exactKey(r []cell) string {
	var b strings.Builder
	for _, c := range r {
		switch {
		case c.null:
			b.WriteString("\x00N")
		case c.isFloat:
			b.WriteString("\x00F")
		default:
			b.WriteString("\x00" + c.exact)
		}
	}
	return b.String()
}

// floatsClose compares DOUBLE cells: within 1e-9 relative or 1e-6
// absolute (sums that added and retracted fractions keep a residue).
func floatsClose(a, b []cell) bool {
	for i := range a {
		if !a[i].isFloat || a[i].null || b[i].null {
			continue
		}
		x, y := a[i].f, b[i].f
		switch {
		case x == y, math.IsNaN(x) && math.IsNaN(y):
			continue
		case math.IsInf(x, 0) || math.IsInf(y, 0):
			return false
		}
		d := math.Abs(x - y)
		if d > 1e-6 && d > 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}

// diff compares two multisets of rows; it returns the rows only in want
// (missing) and only in got (extra).
func diff(want, got result) (missing, extra result) {
	groups := map[string][][]cell{}
	for _, r := range got {
		k := exactKey(r)
		groups[k] = append(groups[k], r)
	}
	for _, r := range want {
		k := exactKey(r)
		g := groups[k]
		found := -1
		for i, x := range g {
			if floatsClose(r, x) {
				found = i
				break
			}
		}
		if found < 0 {
			missing = append(missing, r)
			continue
		}
		groups[k] = append(g[:found], g[found+1:]...)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		extra = append(extra, groups[k]...)
	}
	return missing, extra
}

// engineRows converts an engine result for comparison.
func engineRows(res *engineResult) (result, error) {
	var out result
	for _, vals := range res.rows {
		r := make([]cell, len(vals))
		for i, v := range vals {
			c, err := engineCell(v, res.cols[i].Type)
			if err != nil {
				return nil, err
			}
			r[i] = c
		}
		out = append(out, r)
	}
	return out, nil
}

func describeCols(cols []connector.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type.String()
	}
	return strings.Join(parts, ", ")
}

func sortedRows(r result) []string {
	out := make([]string, len(r))
	for i, x := range r {
		out[i] = rowString(x)
	}
	sort.Strings(out)
	return out
}
