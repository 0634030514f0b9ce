package oracle

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"time"
)

// A value is one cell of a generated table: nil is NULL; int64 holds INT,
// BIGINT, DECIMAL (the unscaled value at the column's scale) and TIMESTAMP
// (milliseconds since the epoch); float64 holds DOUBLE; string holds
// STRING.
type value = any

// domain says how a column's values are drawn. Narrow domains (a handful
// of values) make join keys and group keys collide; wide ones make
// arithmetic and comparisons interesting.
type domain struct {
	narrow bool
	// nulls is the probability of NULL.
	nulls float64
}

type column struct {
	name string
	t    typ
	dom  domain
}

// mag is the largest magnitude of a column's values (a bound the
// generator keeps arithmetic within).
func (c column) mag() float64 {
	switch c.t.k {
	case kInt, kBigint, kDouble:
		switch {
		case c.dom.narrow:
			return 5
		case c.t.k == kBigint:
			return 1e13
		}
		return 1000
	case kDecimal:
		if c.dom.narrow {
			return math.Min(5, math.Pow10(c.t.p-c.t.s))
		}
		return math.Min(1000, math.Pow10(c.t.p-c.t.s))
	default:
	}
	return 0
}

// change is one record of a table's input: an insert of a new row (c), an
// update of a live row to new values (u), or a delete of one (d). Rows are
// named by id so that a shrunk changelog stays consistent.
type change struct {
	op   byte
	id   int
	vals []value
}

// table is a generated input table.
type table struct {
	name string
	cols []column
	// changelog tables are read as debezium-json; the others are json and
	// insert-only.
	changelog bool
	// timeCol is the index of the event-time column of a time table (-1
	// for none); its watermark lags the largest time seen by delay ms, and
	// the rows' disorder stays below it, so no row is late.
	timeCol int
	delay   int64
	changes []change
}

func (t *table) file() string { return t.name + ".json" }

// final is the table's contents after its changelog: the rows PostgreSQL
// gets.
func (t *table) final() [][]value {
	live := map[int][]value{}
	var order []int
	for _, c := range t.changes {
		switch c.op {
		case 'c':
			live[c.id] = c.vals
			order = append(order, c.id)
		case 'u':
			live[c.id] = c.vals
		case 'd':
			delete(live, c.id)
		}
	}
	var out [][]value
	for _, id := range order {
		if v, ok := live[id]; ok {
			out = append(out, v)
			delete(live, id)
		}
	}
	return out
}

// consistent drops the changes that no longer have their row (after
// shrinking removed an insert).
func consistentChanges(cs []change) []change {
	live := map[int]bool{}
	var out []change
	for _, c := range cs {
		switch c.op {
		case 'c':
			if live[c.id] {
				continue
			}
			live[c.id] = true
		case 'u':
			if !live[c.id] {
				continue
			}
		case 'd':
			if !live[c.id] {
				continue
			}
			delete(live, c.id)
		}
		out = append(out, c)
	}
	return out
}

// lines renders the table's input file: one JSON object per row, or one
// Debezium change event per change.
func (t *table) lines() []string {
	var out []string
	cur := map[int][]value{}
	for _, c := range t.changes {
		if !t.changelog {
			out = append(out, t.object(c.vals))
			continue
		}
		switch c.op {
		case 'c':
			out = append(out, fmt.Sprintf(`{"before":null,"after":%s,"op":"c"}`, t.object(c.vals)))
		case 'u':
			out = append(out, fmt.Sprintf(`{"before":%s,"after":%s,"op":"u"}`, t.object(cur[c.id]), t.object(c.vals)))
		case 'd':
			out = append(out, fmt.Sprintf(`{"before":%s,"after":null,"op":"d"}`, t.object(cur[c.id])))
		}
		cur[c.id] = c.vals
	}
	return out
}

func (t *table) object(vals []value) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range t.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", c.name, jsonValue(vals[i], c.t))
	}
	b.WriteByte('}')
	return b.String()
}

func jsonValue(v value, t typ) string {
	if v == nil {
		return "null"
	}
	switch t.k {
	case kInt, kBigint:
		return strconv.FormatInt(v.(int64), 10)
	case kDecimal:
		return decimalText(v.(int64), t.s)
	case kDouble:
		return strconv.FormatFloat(v.(float64), 'f', -1, 64)
	case kString:
		b, _ := json.Marshal(v.(string))
		return string(b)
	case kTimestamp:
		return strconv.Quote(tsText(v.(int64)))
	default:
	}
	panic("oracle: jsonValue of " + t.String())
}

// pgValue is v as a PostgreSQL literal of type t.
func pgValue(v value, t typ) string {
	if v == nil {
		return "NULL"
	}
	switch t.k {
	case kInt, kBigint:
		return strconv.FormatInt(v.(int64), 10)
	case kDecimal:
		return decimalText(v.(int64), t.s)
	case kDouble:
		return "'" + strconv.FormatFloat(v.(float64), 'g', -1, 64) + "'"
	case kString:
		return "'" + strings.ReplaceAll(v.(string), "'", "''") + "'"
	case kTimestamp:
		return "'" + tsText(v.(int64)) + "'"
	default:
	}
	panic("oracle: pgValue of " + t.String())
}

// decimalText writes an unscaled value with its scale: 150, 2 is 1.50.
func decimalText(u int64, s int) string {
	neg := u < 0
	if neg {
		u = -u
	}
	d := strconv.FormatInt(u, 10)
	if s > 0 {
		if len(d) <= s {
			d = strings.Repeat("0", s-len(d)+1) + d
		}
		d = d[:len(d)-s] + "." + d[len(d)-s:]
	}
	if neg {
		d = "-" + d
	}
	return d
}

func tsText(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// The event times of generated tables start here.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// genValue draws a value of column c.
func genValue(r *rand.Rand, c column) value {
	if c.dom.nulls > 0 && r.Float64() < c.dom.nulls {
		return nil
	}
	n := c.dom.narrow
	switch c.t.k {
	case kInt, kBigint:
		if n {
			return int64(r.Intn(5))
		}
		if c.t.k == kBigint && r.Intn(8) == 0 {
			// Values beyond INT's range, where they cannot meet arithmetic.
			return int64(r.Intn(2000)-1000) * 10_000_000_000
		}
		return int64(r.Intn(2001) - 1000)
	case kDecimal:
		unit := pow10i(c.t.s)
		if n {
			// 0, 0.5, 1, ... at the column's scale (halves only where the
			// scale has room for them).
			v := int64(r.Intn(9))
			if c.t.s == 0 {
				v = v / 2 * unit
			} else {
				v = v * unit / 2
			}
			// Within the type: DECIMAL(3, 3) holds nothing from 1 up.
			if lim := int64(c.mag()) * unit; c.t.p == c.t.s {
				v %= unit
			} else if v >= lim {
				v = lim - 1
			}
			return v
		}
		m := int64(c.mag()) * unit
		return r.Int63n(2*m-1) - (m - 1)
	case kDouble:
		if n {
			return float64(r.Intn(9)) / 2
		}
		return float64(r.Intn(16001)-8000) / 8
	case kString:
		if n {
			return []string{"a", "b", "c", "A", "é", ""}[r.Intn(6)]
		}
		const alphabet = "abcAB é0_%"
		var b strings.Builder
		for i := r.Intn(5); i > 0; i-- {
			// é is two bytes: pick runes, not bytes.
			rs := []rune(alphabet)
			b.WriteRune(rs[r.Intn(len(rs))])
		}
		return b.String()
	case kTimestamp:
		if n {
			return epoch + int64(r.Intn(4))*1000
		}
		return epoch + r.Int63n(3_600_000)
	default:
	}
	panic("oracle: genValue of " + c.t.String())
}

func pow10i(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}
