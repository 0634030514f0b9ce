package datagen

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

// fakeClock stands still unless a Sleep moves it.
type fakeClock struct {
	now    time.Time
	slept  time.Duration
	sleeps int
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.now = c.now.Add(d)
	c.slept += d
	c.sleeps++
	return nil
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newSource(t *testing.T, clock Clock, cols, opts string) *Source {
	t.Helper()
	spec := conntest.SourceSpec(t, "CREATE TABLE g ("+cols+") WITH ('connector' = 'datagen'"+opts+")", "")
	s, err := NewSource(spec, clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// readAll reads until io.EOF, checking batch sizes.
func readAll(t *testing.T, s connector.Source) row.Batch {
	t.Helper()
	var all row.Batch
	for range 1 << 20 {
		split, b, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return all
		}
		if err != nil {
			t.Fatal(err)
		}
		if split != 0 || len(b) == 0 || len(b) > MaxBatch {
			t.Fatalf("split %d, batch of %d", split, len(b))
		}
		all = append(all, b...)
	}
	t.Fatal("no io.EOF")
	return nil
}

const allCols = `b BOOLEAN, i INT, big BIGINT, d DOUBLE, dec DECIMAL(6, 2), s STRING, v VARCHAR(5), c CHAR(3), bs BYTES,
ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(0), day DATE`

func TestDeterministic(t *testing.T) {
	opts := ", 'number-of-rows' = '3000', 'seed' = '42', 'fields.ts.max-past' = '1 h'"
	a := readAll(t, newSource(t, &fakeClock{now: t0}, allCols, opts))
	b := readAll(t, newSource(t, &fakeClock{now: t0}, allCols, opts))
	c := readAll(t, newSource(t, &fakeClock{now: t0}, allCols, strings.Replace(opts, "42", "43", 1)))
	if len(a) != 3000 || len(b) != 3000 || len(c) != 3000 {
		t.Fatalf("rows: %d %d %d", len(a), len(b), len(c))
	}
	same := 0
	for i := range a {
		for j := range a[i].Vals {
			if !a[i].Vals[j].Equal(b[i].Vals[j]) {
				t.Fatalf("row %d column %d differs with the same seed: %v vs %v", i, j, a[i].Vals[j], b[i].Vals[j])
			}
		}
		if a[i].Vals[2].Equal(c[i].Vals[2]) {
			same++
		}
	}
	if same > 10 {
		t.Errorf("seeds 42 and 43 agree on %d of 3000 BIGINTs", same)
	}
}

func TestRandomBounds(t *testing.T) {
	clock := &fakeClock{now: t0}
	now := t0.UnixMilli()
	rows := readAll(t, newSource(t, clock, allCols+", n INT", `, 'number-of-rows' = '5000', 'seed' = '1',
		'fields.i.min' = '-3', 'fields.i.max' = '3', 'fields.d.min' = '0.5', 'fields.d.max' = '0.75',
		'fields.dec.min' = '-1.5', 'fields.dec.max' = '2.25', 'fields.s.length' = '8', 'fields.s.var-len' = 'true',
		'fields.bs.length' = '4', 'fields.ts.max-past' = '10 s', 'fields.n.null-rate' = '0.25'`))
	if clock.sleeps != 0 {
		t.Errorf("a bounded source without a rate slept %d times", clock.sleeps)
	}
	seen := map[int64]bool{}
	nulls, trues, maxLen := 0, 0, 0
	for _, r := range rows {
		v := r.Vals
		if v[0].Bool() {
			trues++
		}
		if i := v[1].Int(); i < -3 || i > 3 {
			t.Fatalf("INT %d outside [-3, 3]", i)
		} else {
			seen[i] = true
		}
		if d := v[3].Float(); d < 0.5 || d > 0.75 {
			t.Fatalf("DOUBLE %v outside [0.5, 0.75]", d)
		}
		if dec := v[4].Int(); dec < -150 || dec > 225 {
			t.Fatalf("DECIMAL %d outside [-1.50, 2.25]", dec)
		}
		s := v[5].Str()
		if len(s) < 1 || len(s) > 8 || strings.Trim(s, "0123456789abcdef") != "" {
			t.Fatalf("STRING %q", s)
		}
		maxLen = max(maxLen, len(s))
		if len(v[6].Str()) != 5 || len(v[7].Str()) != 3 || len(v[8].Str()) != 4 {
			t.Fatalf("lengths: %q %q %q", v[6].Str(), v[7].Str(), v[8].Str())
		}
		if ts := v[9].Int(); ts > now || ts < now-10000 {
			t.Fatalf("TIMESTAMP %d not within 10 s before %d", ts, now)
		}
		if v[10].Int() != now || v[11].Int() != now/86400000 {
			t.Fatalf("TIMESTAMP_LTZ(0) %v, DATE %v", v[10], v[11])
		}
		if v[12].IsNull() {
			nulls++
		}
	}
	if len(seen) != 7 {
		t.Errorf("INT in [-3, 3] took %d values", len(seen))
	}
	if maxLen != 8 {
		t.Errorf("var-len strings reached length %d, want 8", maxLen)
	}
	if nulls < 1000 || nulls > 1500 {
		t.Errorf("null-rate 0.25 gave %d NULLs of 5000", nulls)
	}
	if trues < 2000 || trues > 3000 {
		t.Errorf("%d of 5000 booleans are true", trues)
	}
}

func TestSequence(t *testing.T) {
	rows := readAll(t, newSource(t, &fakeClock{now: t0}, "id BIGINT, name STRING, amount DECIMAL(5, 2)",
		`, 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2500',
		'fields.name.kind' = 'sequence', 'fields.name.start' = '10', 'fields.name.end' = '100000',
		'fields.amount.kind' = 'sequence', 'fields.amount.start' = '-5', 'fields.amount.end' = '999'`))
	if len(rows) != 1005 {
		t.Fatalf("got %d rows, want 1005 (the shortest sequence)", len(rows))
	}
	for i, r := range rows {
		if r.Vals[0].Int() != int64(i+1) || r.Vals[1].Str() != itoa(i+10) || r.Vals[2].Int() != int64(i-5)*100 {
			t.Fatalf("row %d: %v", i, r.Vals)
		}
	}
	// number-of-rows shorter than the sequence ends first.
	rows = readAll(t, newSource(t, &fakeClock{now: t0}, "id INT",
		`, 'number-of-rows' = '7', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '100'`))
	if len(rows) != 7 || rows[6].Vals[0].Int() != 6 {
		t.Errorf("rows: %v", rows)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestRate: 'rows-per-second' paces rows by the clock, without burst.
func TestRate(t *testing.T) {
	clock := &fakeClock{now: t0}
	s := newSource(t, clock, "id BIGINT", ", 'rows-per-second' = '1000', 'number-of-rows' = '5000'")
	rows := readAll(t, s)
	if len(rows) != 5000 {
		t.Fatalf("%d rows", len(rows))
	}
	// Row k is due at k ms; the last, 4999, at 4.999 s.
	if got := clock.now.Sub(t0); got != 4999*time.Millisecond {
		t.Errorf("5000 rows at 1000/s took %v, want 4.999s", got)
	}
	if clock.sleeps < 400 {
		t.Errorf("only %d sleeps: rows come in bursts", clock.sleeps)
	}

	// An unbounded source keeps going at its rate; one that falls far
	// behind catches up by at most a second's worth.
	clock = &fakeClock{now: t0}
	s = newSource(t, clock, "id BIGINT", ", 'rows-per-second' = '100'")
	n := 0
	for n < 300 {
		_, b, err := s.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
	}
	if got := clock.now.Sub(t0); got != 2990*time.Millisecond {
		t.Errorf("300 rows at 100/s took %v, want 2.99s", got)
	}
	clock.now = clock.now.Add(time.Hour)
	sleeps := clock.sleeps
	burst := 0
	for clock.sleeps == sleeps {
		_, b, err := s.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		burst += len(b)
	}
	if burst < 100 || burst > 102 {
		t.Errorf("after an hour's pause the source sent %d rows without waiting, want about 100", burst)
	}
	// A cancelled context interrupts the wait.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ cols, opts, want string }{
		{"b BOOLEAN", ", 'fields.b.kind' = 'sequence', 'fields.b.start' = '1', 'fields.b.end' = '2'", "needs a number or string column"},
		{"i INT", ", 'fields.j.min' = '1'", "'fields.j.min' names no column"},
		{"i TINYINT", ", 'fields.i.max' = '1000'", "does not fit TINYINT"},
		{"i INT", ", 'fields.i.min' = '1.5'", "must be a whole number"},
		{"d DECIMAL(3, 1)", ", 'fields.d.max' = '100'", "does not fit DECIMAL(3, 1)"},
		{"i TINYINT", ", 'fields.i.kind' = 'sequence', 'fields.i.start' = '1', 'fields.i.end' = '1000'", "does not fit TINYINT"},
	} {
		spec := conntest.SourceSpec(t, "CREATE TABLE g ("+c.cols+") WITH ('connector' = 'datagen'"+c.opts+")", "")
		if _, err := NewSource(spec, &fakeClock{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want %q", c.cols, c.opts, err, c.want)
		}
	}
}

func TestRegistered(t *testing.T) {
	f, ok := connector.LookupSource("datagen")
	if !ok {
		t.Fatal("datagen not registered")
	}
	src, err := f(conntest.SourceSpec(t, "CREATE TABLE g (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3')", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := time.Now().UnixMilli()
	rows := readAll(t, src)
	if len(rows) != 3 || rows[0].Vals[1].Int() < before-1000 {
		t.Errorf("rows %v", rows)
	}
	if err := src.Close(); err != nil {
		t.Error(err)
	}
}
