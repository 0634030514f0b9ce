package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/row"
)

func init() {
	connector.RegisterLookup("filesystem", func(spec connector.Spec, keys []int) (connector.LookupTable, error) {
		return NewLookup(spec, keys)
	})
}

// Lookup is a file read as the dim side of a lookup join, as Flink's
// filesystem lookup source: the whole file is read into memory, indexed by
// the join's key columns, and read again when a probe comes
// 'lookup.join.cache.ttl' (default 60 min) or more after it was last read.
// A bad line stops the job, or is skipped with
// '<format>.ignore-parse-errors' = 'true', as when the file is a source.
// Only insert-only formats: a changelog file has no current rows to look
// up without replaying it.
type Lookup struct {
	spec connector.Spec
	keys []int
	ttl  time.Duration
	skip bool
	// now is the clock (tests set it).
	now func() time.Time

	loaded time.Time
	index  map[string][]row.Row
	rows   int
	kbuf   []byte
}

// NewLookup returns the lookup table of spec, looked up by the columns keys
// (indexes into spec.Schema). It checks the options and the format but does
// not read the file: Open does.
func NewLookup(spec connector.Spec, keys []int) (*Lookup, error) {
	if spec.Format == "debezium-json" {
		return nil, fmt.Errorf("filesystem: table %s cannot be looked up with 'format' = 'debezium-json': a changelog file has no current rows to look up; use an insert-only format (json, csv)", spec.Table)
	}
	if _, err := NewSource(spec); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("filesystem: table %s: a lookup needs key columns", spec.Table)
	}
	ttl, err := connectors.ParseDuration(spec.Options.Get("lookup.join.cache.ttl"))
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: 'lookup.join.cache.ttl': %w", spec.Table, err)
	}
	skip := strings.EqualFold(spec.Options.Get(spec.Format+".ignore-parse-errors"), "true")
	return &Lookup{spec: spec, keys: keys, ttl: ttl, skip: skip, now: time.Now}, nil
}

// Open reads the file.
func (l *Lookup) Open(ctx context.Context) error { return l.load(ctx) }

// Rows is how many rows the last read of the file indexed.
func (l *Lookup) Rows() int { return l.rows }

// load reads the whole file into a new index.
func (l *Lookup) load(ctx context.Context) error {
	src, err := NewSource(l.spec)
	if err != nil {
		return err
	}
	if err := src.Open(ctx); err != nil {
		return err
	}
	defer src.Close()
	index := map[string][]row.Row{}
	n := 0
	for {
		_, b, err := src.Read(ctx)
		for _, r := range b {
			k, null := l.key(r.Vals)
			if null {
				continue // a NULL key equals nothing
			}
			index[k] = append(index[k], r)
			n++
		}
		var bad *connector.BadRowError
		switch {
		case errors.Is(err, io.EOF):
			l.index, l.rows, l.loaded = index, n, l.now()
			return nil
		case errors.As(err, &bad) && l.skip:
		case err != nil:
			return fmt.Errorf("lookup table %s: %w", l.spec.Table, err)
		}
	}
}

// key is the index key of the key columns of vals; null when one is NULL.
func (l *Lookup) key(vals []row.Value) (string, bool) {
	l.kbuf = l.kbuf[:0]
	for _, k := range l.keys {
		if vals[k].IsNull() {
			return "", true
		}
		l.kbuf = row.AppendKey(l.kbuf, vals[k])
	}
	return string(l.kbuf), false
}

// Lookup returns the rows of the file whose key columns equal one of keys,
// reading the file again first when it was read 'lookup.join.cache.ttl'
// ago or more.
func (l *Lookup) Lookup(ctx context.Context, keys [][]row.Value) (row.Batch, error) {
	if l.now().Sub(l.loaded) >= l.ttl {
		if err := l.load(ctx); err != nil {
			return nil, err
		}
	}
	var out row.Batch
	for _, k := range keys {
		l.kbuf = l.kbuf[:0]
		for _, v := range k {
			l.kbuf = row.AppendKey(l.kbuf, v)
		}
		out = append(out, l.index[string(l.kbuf)]...)
	}
	return out, nil
}

// Close drops the index.
func (l *Lookup) Close() error {
	l.index = nil
	return nil
}
