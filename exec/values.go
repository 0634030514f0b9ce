package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
)

// values builds VALUES (row), … as a source of its own: its rows are
// computed once, here, and read in one batch; then it ends (a bounded,
// insert-only input without a watermark). Each VALUES of the plans is a
// source of its own, even when two are written alike.
func (b *builder) values(x *physical.Values, out collector) error {
	b.at = nil // sources hand their rows to the task
	rows := make(row.Batch, len(x.Rows))
	for i, r := range x.Rows {
		vals := make([]row.Value, len(r))
		for j, e := range r {
			f, err := b.compile(e)
			if err != nil {
				return fmt.Errorf("VALUES row %d: %w", i+1, err)
			}
			if vals[j], err = f(nil); err != nil {
				return fmt.Errorf("VALUES row %d, value %d: %w", i+1, j+1, err)
			}
		}
		rows[i] = row.Row{Vals: vals}
	}
	r := &sourceRunner{idx: len(b.job.sources), name: x.Name, src: &valuesSource{rows: rows},
		prepare: func(b row.Batch) (row.Batch, error) { return b, nil }, timeCol: -1,
		counters: b.counters(x.Name, &b.job.Sources), warn: b.job.warn, bounded: true, cp: &srcCP{id: x.ID}}
	b.scans[x.ID] = r.counters
	b.reads[x.ID] = len(b.job.sources)
	b.job.sources = append(b.job.sources, r)
	b.job.entry = append(b.job.entry, out)
	return nil
}

// valuesSource reads a VALUES's rows: all in one Read, then io.EOF. Its
// position is whether it has read them (a resumed job does not read them
// again).
type valuesSource struct {
	rows row.Batch
	done bool
}

// Open implements connector.Source.
func (s *valuesSource) Open(context.Context) error { return nil }

// Read implements connector.Source: the rows, then io.EOF.
func (s *valuesSource) Read(ctx context.Context) (int, row.Batch, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	if s.done {
		return 0, nil, io.EOF
	}
	s.done = true
	return 0, s.rows, nil
}

// Splits implements connector.Source.
func (s *valuesSource) Splits() int { return 1 }

// Close implements connector.Source.
func (s *valuesSource) Close() error { return nil }

// Position implements connector.Positioner: 1 once the rows are read.
func (s *valuesSource) Position() ([]byte, error) {
	var v uint64
	if s.done {
		v = 1
	}
	return binary.AppendUvarint(nil, v), nil
}

// Seek implements connector.Positioner.
func (s *valuesSource) Seek(pos []byte) error {
	v, n := binary.Uvarint(pos)
	if n <= 0 || v > 1 {
		return fmt.Errorf("VALUES: position %x is not one of this source's", pos)
	}
	s.done = v == 1
	return nil
}
