package faker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func init() {
	connector.RegisterSource("faker", func(spec connector.Spec) (connector.Source, error) { return NewSource(spec, SystemClock) })
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
	table   string
	clock   Clock
	seed    uint64
	pcg     *mrand.PCG
	g       gen
	fields  []field
	width   int
	rate    float64 // rows per second; 0: unlimited
	batch   int
	left    int64 // rows still to generate; -1: unbounded
	emitted int64
	start   time.Time
}

type field struct {
	idx  int
	name string
	t    types.T
	// e is the expression; of a MAP column, the keys' and the values'.
	e        []*Expr
	nullRate float64
	// length is the elements of an ARRAY, the entries of a MAP.
	length int
}

// NewSource returns a faker source for spec, using clock.
func NewSource(spec connector.Spec, clock Clock) (*Source, error) {
	if spec.Options == nil {
		return nil, errors.New("faker: the table has no connector configuration")
	}
	c := spec.Options
	s := &Source{table: spec.Table, clock: clock, width: len(spec.Schema), left: -1}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("faker: table %s: "+format, append([]any{spec.Table}, args...)...)
	}
	if c.Has("seed") {
		n, err := strconv.ParseInt(c.Get("seed"), 10, 64)
		if err != nil {
			return nil, fail("'seed' must be a whole number")
		}
		s.seed = uint64(n)
	} else {
		s.seed = mrand.Uint64()
	}
	s.pcg = mrand.NewPCG(s.seed, 0)
	s.g = gen{f: gofakeit.NewFaker(s.pcg, false), r: mrand.New(s.pcg)}
	for i, col := range spec.Schema {
		if col.MetadataKey != "" {
			return nil, fail("faker has no metadata, but column %s reads '%s'", col.Name, col.MetadataKey)
		}
		p := "fields." + col.Name + "."
		f := field{idx: i, name: col.Name, t: col.Type, length: 1}
		exprs := []string{"expression"}
		if col.Type.Kind == types.Map {
			exprs = []string{"key.expression", "value.expression"}
		}
		for _, x := range exprs {
			if !c.Has(p + x) {
				return nil, fail("column %s has no '%s%s' (every column needs one, as in flink-faker)", col.Name, p, x)
			}
			e, err := Parse(c.Get(p + x))
			if err != nil {
				return nil, fail("column %s: %w", col.Name, err)
			}
			f.e = append(f.e, e)
		}
		if v := c.Get(p + "null-rate"); v != "" {
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r < 0 || r > 1 {
				return nil, fail("'%snull-rate' must be between 0 and 1", p)
			}
			f.nullRate = r
		}
		scalar := func(t types.T) bool {
			k := t.Kind
			return k.IsString() || k.IsNumeric() || k.IsTemporal() || k == types.Boolean
		}
		switch k := col.Type.Kind; {
		case k == types.Array && scalar(col.Type.Elem()):
		case k == types.Map && scalar(col.Type.Key()) && scalar(col.Type.Value()):
		case scalar(col.Type):
		default:
			return nil, fail("column %s: faker cannot generate %s values", col.Name, col.Type)
		}
		if v := c.Get(p + "length"); v != "" {
			n, err := strconv.Atoi(v)
			switch {
			case err != nil || n < 1:
				return nil, fail("'%slength' must be a whole number of at least 1", p)
			case n != 1 && col.Type.Kind != types.Array && col.Type.Kind != types.Map:
				return nil, fail("'%slength' is for ARRAY and MAP columns; column %s is %s", p, col.Name, col.Type)
			}
			f.length = n
		}
		s.fields = append(s.fields, f)
	}
	// Options naming no column, or a computed one, are not read here: the
	// catalog refuses the first and warns about the second
	// (connectors.checkFakerColumns).
	bounded := false
	if c.Has("number-of-rows") {
		n, err := strconv.ParseInt(c.Get("number-of-rows"), 10, 64)
		if err != nil || n < 0 {
			return nil, fail("'number-of-rows' must be a whole number")
		}
		s.left, bounded = n, true
	}
	rate, err := strconv.ParseFloat(c.Get("rows-per-second"), 64)
	if err != nil || rate < 0 {
		return nil, fail("'rows-per-second' must be a whole number")
	}
	if bounded && !c.Has("rows-per-second") {
		rate = 0 // as fast as possible
	}
	s.rate = rate
	s.batch = MaxBatch
	if rate > 0 {
		s.batch = int(min(max(rate/100, 1), MaxBatch))
	}
	return s, nil
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
		if behind := now.Sub(s.due(s.emitted)); behind > time.Second {
			s.start = s.start.Add(behind - time.Second)
		}
		if wait := s.due(s.emitted + int64(n) - 1).Sub(now); wait > 0 {
			if err := s.clock.Sleep(ctx, wait); err != nil {
				return 0, nil, err
			}
		}
	}
	s.g.now = s.clock.Now().UnixMilli()
	batch := make(row.Batch, n)
	vals := make([]row.Value, n*s.width)
	for i := range batch {
		v := vals[i*s.width : (i+1)*s.width : (i+1)*s.width]
		if err := s.generate(s.emitted+int64(i), v); err != nil {
			return 0, nil, err
		}
		batch[i] = row.Row{Kind: changelogmode.Insert, Vals: v}
	}
	s.emitted += int64(n)
	if s.left > 0 {
		s.left -= int64(n)
	}
	return 0, batch, nil
}

func (s *Source) due(k int64) time.Time {
	return s.start.Add(time.Duration(float64(k) / s.rate * float64(time.Second)))
}

// generate makes row k: its values depend only on the seed and k (and the
// clock, for dates), so a resumed source makes the rows the original would
// have made.
func (s *Source) generate(k int64, vals []row.Value) error {
	s.pcg.Seed(s.seed, uint64(k))
	for i := range s.fields {
		f := &s.fields[i]
		if f.nullRate > 0 && s.g.r.Float64() < f.nullRate {
			continue
		}
		v, err := s.value(f)
		if err != nil {
			return err
		}
		vals[f.idx] = v
	}
	return nil
}

// value generates the value of field f.
func (s *Source) value(f *field) (row.Value, error) {
	one := func(e *Expr, t types.T) (row.Value, error) {
		v, err := convert(e.eval(&s.g), t)
		if err != nil {
			return row.NullValue, fmt.Errorf("faker: table %s, column %s: %s gave %w", s.table, f.name, e.Text, err)
		}
		return v, nil
	}
	switch f.t.Kind {
	case types.Array:
		elems := make([]row.Value, f.length)
		for i := range elems {
			v, err := one(f.e[0], f.t.Elem())
			if err != nil {
				return row.NullValue, err
			}
			elems[i] = v
		}
		return row.ListValue(elems), nil
	case types.Map:
		keys, vals := make([]row.Value, f.length), make([]row.Value, f.length)
		for i := range keys {
			k, err := one(f.e[0], f.t.Key())
			if err != nil {
				return row.NullValue, err
			}
			v, err := one(f.e[1], f.t.Value())
			if err != nil {
				return row.NullValue, err
			}
			keys[i], vals[i] = k, v
		}
		// Entries with the same key are one, the last kept, as in
		// flink-faker's HashMap.
		return row.MapValue(keys, vals), nil
	default:
		return one(f.e[0], f.t)
	}
}

// convert gives a result the column's type: a time as a TIMESTAMP, DATE or
// TIME (or its text in a string column), text as CAST would read it.
func convert(r result, t types.T) (row.Value, error) {
	if r.isTime {
		ms := r.ms
		switch {
		case t.Kind == types.Date:
			return row.IntValue(floorDiv(ms, 86_400_000)), nil
		case t.Kind == types.Time:
			return row.IntValue(ms - floorDiv(ms, 86_400_000)*86_400_000), nil
		case t.Kind.IsTimestamp():
			return row.IntValue(ms), nil
		case t.Kind.IsString():
			r = result{s: time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")}
		default:
			return row.NullValue, fmt.Errorf("a time, which a %s column cannot hold", t)
		}
	}
	if t.Kind.IsString() {
		return eval.ParseValue(r.s, t)
	}
	v, err := eval.ParseValue(strings.TrimSpace(r.s), t)
	if err != nil {
		return row.NullValue, fmt.Errorf("'%s', which is not a %s", r.s, t)
	}
	return v, nil
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

// A faker source's position (connector.Positioner) is the rows generated
// and left, and the seed: row k depends only on the seed and k.
type position struct {
	V       int    `json:"v"`
	Emitted int64  `json:"emitted"`
	Left    int64  `json:"left"`
	Seed    uint64 `json:"seed"`
}

// Position returns the state after the last row Read returned.
func (s *Source) Position() ([]byte, error) {
	return json.Marshal(position{V: 1, Emitted: s.emitted, Left: s.left, Seed: s.seed})
}

// Seek continues after the position; the rate limit continues from there.
func (s *Source) Seek(pos []byte) error {
	var p position
	if err := json.Unmarshal(pos, &p); err != nil || p.V != 1 || p.Emitted < 0 {
		return fmt.Errorf("faker: the checkpoint's position %q is not one this streamsql writes", pos)
	}
	s.emitted, s.left, s.seed = p.Emitted, p.Left, p.Seed
	if s.rate > 0 {
		s.start = s.clock.Now().Add(-time.Duration(float64(s.emitted) / s.rate * float64(time.Second)))
	}
	return nil
}
