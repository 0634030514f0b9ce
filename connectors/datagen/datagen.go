package datagen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/decimal"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func init() {
	connector.RegisterSource("datagen", func(spec connector.Spec) (connector.Source, error) { return NewSource(spec, SystemClock) })
}

// Clock is where a source gets the time, and how it waits (connector.Clock,
// shared with the other generating sources).
type Clock = connector.Clock

// SystemClock is the wall clock.
var SystemClock = connector.SystemClock

// MaxBatch is the most rows one Read returns.
const MaxBatch = 1024

// Source generates rows. See the package comment.
type Source struct {
	clock    Clock
	rnd      *mrand.Rand
	pcg      *mrand.PCG // rnd's state, for Position
	fields   []field
	width    int
	rate     float64 // rows per second; 0: unlimited
	batch    int
	left     int64 // rows still to generate; -1: unbounded
	emitted  int64
	start    time.Time
	needsNow bool
	hexBuf   []byte
}

type field struct {
	idx      int
	name     string
	t        types.T
	seq      bool
	cur, end int64   // sequence (unscaled for DECIMAL)
	min, max int64   // random integers and decimals
	fmin     float64 // random floats
	fmax     float64
	length   int
	varLen   bool
	maxPast  int64 // milliseconds
	nullRate float64
	// elems generate a nested value's parts: an ARRAY's element, a MAP's
	// key and value, a ROW's fields. Their options are those of the
	// column's path, as Flink's: fields.<col>.element.*, .key.*, .value.*,
	// .<field>.*; an ARRAY or a MAP has 'length' elements (3 by default).
	elems []field
}

// NewSource returns a datagen source for spec, using clock.
func NewSource(spec connector.Spec, clock Clock) (*Source, error) {
	if spec.Options == nil {
		return nil, errors.New("datagen: the table has no connector configuration")
	}
	c := spec.Options
	s := &Source{clock: clock, width: len(spec.Schema), left: -1}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("datagen: table %s: "+format, append([]any{spec.Table}, args...)...)
	}

	var seed uint64
	if c.Has("seed") {
		n, err := strconv.ParseInt(c.Get("seed"), 10, 64)
		if err != nil {
			return nil, fail("'seed' must be a whole number")
		}
		seed = uint64(n)
	} else {
		seed = mrand.Uint64()
	}
	s.pcg = mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	s.rnd = mrand.New(s.pcg)

	columns := make([]string, 0, len(spec.Schema))
	for i, col := range spec.Schema {
		if col.MetadataKey != "" {
			return nil, fail("datagen has no metadata, but column %s reads '%s'", col.Name, col.MetadataKey)
		}
		columns = append(columns, nestedNames(col.Name, col.Type)...)
		f, err := newField(c, i, col)
		if err != nil {
			return nil, fail("column %s: %w", col.Name, err)
		}
		if f.seq {
			if n := f.end - f.cur + 1; s.left < 0 || n < s.left {
				s.left = n
			}
		}
		if f.t.IsTemporal() && !f.seq || f.t.Kind.IsNested() {
			s.needsNow = true
		}
		s.fields = append(s.fields, f)
	}
	for _, k := range c.Keys() {
		rest, ok := strings.CutPrefix(k, "fields.")
		i := strings.LastIndexByte(rest, '.')
		if ok && i > 0 && !slices.Contains(columns, rest[:i]) {
			return nil, fail("option '%s' names no column (columns: %s)", k, strings.Join(columns, ", "))
		}
	}
	bounded := s.left >= 0
	if c.Has("number-of-rows") {
		n, err := strconv.ParseInt(c.Get("number-of-rows"), 10, 64)
		if err != nil || n < 0 {
			return nil, fail("'number-of-rows' must be a whole number")
		}
		if !bounded || n < s.left {
			s.left = n
		}
		bounded = true
	}
	rate, err := strconv.ParseFloat(c.Get("rows-per-second"), 64)
	if err != nil || rate < 0 {
		return nil, fail("'rows-per-second' must be a whole number")
	}
	if bounded && (!c.Has("rows-per-second") || rate == 0) {
		rate = 0 // as fast as possible
	}
	s.rate = rate
	s.batch = MaxBatch
	if rate > 0 {
		s.batch = int(min(max(rate/100, 1), MaxBatch))
	}
	return s, nil
}

func newField(c connector.Options, idx int, col connector.Column) (field, error) {
	p := "fields." + col.Name + "."
	f := field{idx: idx, name: col.Name, t: col.Type, seq: c.Get(p+"kind") == "sequence"}
	if v := c.Get(p + "null-rate"); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r < 0 || r > 1 {
			return f, fmt.Errorf("'%snull-rate' must be between 0 and 1", p)
		}
		f.nullRate = r
	}
	f.length = 100
	if c.Has(p + "length") {
		n, err := strconv.Atoi(c.Get(p + "length"))
		if err != nil || n < 1 {
			return f, fmt.Errorf("'%slength' must be a whole number of at least 1", p)
		}
		f.length = n
	}
	if (col.Type.Kind == types.Char || col.Type.Kind == types.Binary) && !c.Has(p+"length") {
		f.length = col.Type.Length
	}
	if col.Type.Length > 0 && f.length > col.Type.Length {
		f.length = col.Type.Length
	}
	f.varLen = c.Get(p+"var-len") == "true"
	if d, ok := c.Duration(p + "max-past"); ok {
		f.maxPast = d.Milliseconds()
	}
	// num reads a bound in the column's encoding (unscaled for DECIMAL).
	num := func(key string, def int64) (int64, error) {
		if !c.Has(p + key) {
			return def, nil
		}
		v := strings.TrimSpace(c.Get(p + key))
		if col.Type.Kind == types.Decimal {
			return decimal.Parse(v, col.Type.Precision, col.Type.Scale)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("'%s%s' = '%s' must be a whole number for a %s column", p, key, v, col.Type.Kind)
		}
		return n, nil
	}
	lo, hi := typeRange(col.Type)
	var err error
	if f.seq {
		switch {
		case col.Type.IsIntegral(), col.Type.Kind == types.Decimal, col.Type.IsString():
		default:
			return f, fmt.Errorf("'%skind' = 'sequence' needs a number or string column, not %s", p, col.Type)
		}
		if !c.Has(p+"start") || !c.Has(p+"end") {
			return f, fmt.Errorf("'%skind' = 'sequence' needs '%sstart' and '%send'", p, p, p)
		}
		if col.Type.Kind == types.Decimal {
			// A DECIMAL sequence counts in whole units.
			if f.cur, err = num("start", 0); err == nil {
				f.end, err = num("end", 0)
			}
			if err == nil {
				unit := pow10(col.Type.Scale)
				f.cur, f.end = f.cur/unit, f.end/unit
			}
		} else {
			if f.cur, err = num("start", 0); err == nil {
				f.end, err = num("end", 0)
			}
			if err == nil && (f.cur < lo || f.end > hi) {
				err = fmt.Errorf("the sequence %d..%d does not fit %s", f.cur, f.end, col.Type.Kind)
			}
		}
		if err == nil && f.end < f.cur {
			err = fmt.Errorf("'%send' is below '%sstart'", p, p)
		}
		return f, err
	}
	switch col.Type.Kind {
	case types.Float, types.Double:
		f.fmin, f.fmax = 0, math.MaxFloat64
		if col.Type.Kind == types.Float {
			f.fmax = math.MaxFloat32
		}
		for _, b := range []struct {
			key string
			dst *float64
		}{{"min", &f.fmin}, {"max", &f.fmax}} {
			if c.Has(p + b.key) {
				if *b.dst, err = strconv.ParseFloat(strings.TrimSpace(c.Get(p+b.key)), 64); err != nil {
					return f, fmt.Errorf("'%s%s' must be a number", p, b.key)
				}
			}
		}
		if f.fmax < f.fmin {
			return f, fmt.Errorf("'%smax' is below '%smin'", p, p)
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Decimal, types.Interval, types.IntervalYM:
		if f.min, err = num("min", lo); err != nil {
			return f, err
		}
		if f.max, err = num("max", hi); err != nil {
			return f, err
		}
		if f.min < lo || f.max > hi {
			return f, fmt.Errorf("the range [%s, %s] does not fit %s", c.Get(p+"min"), c.Get(p+"max"), col.Type)
		}
		if f.max < f.min {
			return f, fmt.Errorf("'%smax' is below '%smin'", p, p)
		}
	case types.Boolean, types.Char, types.Varchar, types.Binary, types.Varbinary,
		types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
	case types.Array, types.Map, types.Row:
		if !c.Has(p + "length") {
			f.length = 3 // Flink's datagen: collections of 3 elements
		}
		for _, part := range nestedParts(col.Name, col.Type) {
			e, err := newField(c, 0, part)
			if err != nil {
				return f, err
			}
			f.elems = append(f.elems, e)
		}
	default:
		return f, fmt.Errorf("datagen cannot generate %s values", col.Type)
	}
	return f, nil
}

// nestedParts are the parts of a nested column generated on their own,
// named by their option paths: col.element; col.key and col.value; a ROW's
// col.<field>.
func nestedParts(name string, t types.T) []connector.Column {
	switch t.Kind {
	case types.Array:
		return []connector.Column{{Name: name + ".element", Type: t.Elem()}}
	case types.Map:
		return []connector.Column{{Name: name + ".key", Type: t.Key()}, {Name: name + ".value", Type: t.Value()}}
	case types.Row:
		var out []connector.Column
		for _, fd := range t.Fields() {
			out = append(out, connector.Column{Name: name + "." + fd.Name, Type: fd.Type})
		}
		return out
	default:
		return nil
	}
}

// nestedNames are name and the option paths of its nested parts.
func nestedNames(name string, t types.T) []string {
	out := []string{name}
	for _, p := range nestedParts(name, t) {
		out = append(out, nestedNames(p.Name, p.Type)...)
	}
	return out
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// typeRange is the range of values of an integer-encoded type.
func typeRange(t types.T) (lo, hi int64) {
	switch t.Kind {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	case types.Decimal:
		if t.Precision < 19 {
			m := pow10(t.Precision) - 1
			return -m, m
		}
	default:
	}
	return math.MinInt64, math.MaxInt64
}

// Open starts the clock of the rate limit.
func (s *Source) Open(context.Context) error {
	s.start = s.clock.Now()
	return nil
}

// Splits is 1.
func (s *Source) Splits() int { return 1 }

// Read returns the next batch of rows, waiting for the rate limit; io.EOF
// once a bounded source has generated all its rows.
func (s *Source) Read(ctx context.Context) (int, row.Batch, error) {
	if s.left == 0 {
		return 0, nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	n := s.batch
	if s.left > 0 && int64(n) > s.left {
		n = int(s.left)
	}
	if s.rate > 0 {
		now := s.clock.Now()
		// Fallen behind by more than a second: do not burst to catch up.
		if behind := now.Sub(s.due(s.emitted)); behind > time.Second {
			s.start = s.start.Add(behind - time.Second)
		}
		if wait := s.due(s.emitted + int64(n) - 1).Sub(now); wait > 0 {
			if err := s.clock.Sleep(ctx, wait); err != nil {
				return 0, nil, err
			}
		}
	}
	batch := make(row.Batch, n)
	vals := make([]row.Value, n*s.width)
	for i := range batch {
		v := vals[i*s.width : (i+1)*s.width : (i+1)*s.width]
		s.generate(v)
		batch[i] = row.Row{Kind: changelogmode.Insert, Vals: v}
	}
	s.emitted += int64(n)
	if s.left > 0 {
		s.left -= int64(n)
	}
	return 0, batch, nil
}

// due is when row k (0-based) may be released.
func (s *Source) due(k int64) time.Time {
	return s.start.Add(time.Duration(float64(k) / s.rate * float64(time.Second)))
}

func (s *Source) generate(vals []row.Value) {
	var now int64
	if s.needsNow {
		now = s.clock.Now().UnixMilli()
	}
	r := s.rnd
	for k := range s.fields {
		f := &s.fields[k]
		if f.seq {
			v := f.cur
			f.cur++
			if f.nullRate > 0 && r.Float64() < f.nullRate {
				continue
			}
			switch {
			case f.t.IsString():
				vals[f.idx] = row.StrValue(strconv.FormatInt(v, 10))
			case f.t.Kind == types.Decimal:
				vals[f.idx] = row.IntValue(v * pow10(f.t.Scale))
			default:
				vals[f.idx] = row.IntValue(v)
			}
			continue
		}
		if f.nullRate > 0 && r.Float64() < f.nullRate {
			continue
		}
		vals[f.idx] = s.random(f, now)
	}
}

func (s *Source) random(f *field, now int64) row.Value {
	r := s.rnd
	switch f.t.Kind {
	case types.Array, types.Row:
		n := len(f.elems) // a ROW's fields
		if f.t.Kind == types.Array {
			n = f.length
		}
		vals := make([]row.Value, n)
		for i := range vals {
			e := &f.elems[0]
			if f.t.Kind == types.Row {
				e = &f.elems[i]
			}
			vals[i] = s.part(e, now)
		}
		return row.ListValue(vals)
	case types.Map:
		keys, vals := make([]row.Value, f.length), make([]row.Value, f.length)
		for i := range keys {
			keys[i], vals[i] = s.part(&f.elems[0], now), s.part(&f.elems[1], now)
		}
		return row.MapValue(keys, vals) // equal keys collapse, as in Flink's (a HashMap)
	case types.Boolean:
		return row.BoolValue(r.IntN(2) == 1)
	case types.Float, types.Double:
		x := r.Float64()
		v := f.fmin*(1-x) + f.fmax*x
		if f.t.Kind == types.Float {
			v = float64(float32(v))
		}
		return row.FloatValue(v)
	case types.Char, types.Varchar, types.Binary, types.Varbinary:
		n := f.length
		if f.varLen && n > 1 {
			n = 1 + r.IntN(n)
		}
		s.hexBuf = s.hexBuf[:0]
		for range n {
			if f.t.IsString() {
				s.hexBuf = append(s.hexBuf, "0123456789abcdef"[r.IntN(16)])
			} else {
				s.hexBuf = append(s.hexBuf, byte(r.UintN(256)))
			}
		}
		return row.StrValue(string(s.hexBuf))
	case types.Timestamp, types.TimestampLTZ, types.Date, types.Time:
		ms := now
		if f.maxPast > 0 {
			ms -= r.Int64N(f.maxPast + 1)
		}
		switch f.t.Kind {
		case types.Date:
			return row.IntValue(floorDiv(ms, 86400000))
		case types.Time:
			ms -= floorDiv(ms, 86400000) * 86400000
		default:
		}
		if f.t.Precision < 3 {
			unit := pow10(3 - f.t.Precision)
			ms = floorDiv(ms, unit) * unit
		}
		return row.IntValue(ms)
	default: // integers, decimals, intervals
		span := uint64(f.max-f.min) + 1
		if span == 0 {
			return row.IntValue(int64(r.Uint64()))
		}
		return row.IntValue(f.min + int64(r.Uint64N(span)))
	}
}

// part generates one part of a nested value: NULL at its null rate, else
// a random value.
func (s *Source) part(f *field, now int64) row.Value {
	if f.nullRate > 0 && s.rnd.Float64() < f.nullRate {
		return row.NullValue
	}
	return s.random(f, now)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Close does nothing.
func (s *Source) Close() error { return nil }
