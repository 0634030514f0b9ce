package faker

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

func init() {
	connector.RegisterLookup("faker", func(spec connector.Spec, keys []int) (connector.LookupTable, error) {
		return NewLookup(spec, keys, SystemClock)
	})
}

// Lookup is a faker table as the dim side of a lookup join, as
// flink-faker's lookup function: every key asked for has exactly one row,
// made when it is asked, whose key columns are the key and whose other
// columns are generated from their expressions (with their null rates) as
// a scanned row's are. The table holds no rows of its own, so a lookup
// always finds one, different each time the key is asked again ('number-of-rows'
// and 'rows-per-second' apply to scans only).
type Lookup struct {
	src  *Source
	keys []int
	made int64
}

// NewLookup returns the lookup table of spec, looked up by the columns keys
// (indexes into spec.Schema), generating with clock's time for dates.
func NewLookup(spec connector.Spec, keys []int, clock Clock) (*Lookup, error) {
	src, err := NewSource(spec, clock)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("faker: table %s: a lookup needs key columns", spec.Table)
	}
	for _, k := range keys {
		if k < 0 || k >= src.width {
			return nil, fmt.Errorf("faker: table %s: lookup key column %d out of range", spec.Table, k)
		}
	}
	return &Lookup{src: src, keys: keys}, nil
}

// Open does nothing: there is nothing to connect to.
func (l *Lookup) Open(context.Context) error { return nil }

// Lookup returns one generated row per key.
func (l *Lookup) Lookup(ctx context.Context, keys [][]row.Value) (row.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := l.src
	s.g.now = s.clock.Now().UnixMilli()
	out := make(row.Batch, len(keys))
	vals := make([]row.Value, len(keys)*s.width)
	for i, key := range keys {
		v := vals[i*s.width : (i+1)*s.width : (i+1)*s.width]
		if err := s.generate(l.made, v); err != nil {
			return nil, err
		}
		l.made++
		for j, k := range l.keys {
			v[k] = key[j]
		}
		out[i] = row.Row{Kind: changelogmode.Insert, Vals: v}
	}
	return out, nil
}

// Close does nothing.
func (l *Lookup) Close() error { return nil }
