package blackhole

import (
	"context"
	"sync/atomic"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

func init() {
	connector.RegisterSink("blackhole", func(connector.Spec) (connector.Sink, error) { return &Sink{}, nil })
}

// Sink discards rows.
type Sink struct{ rows atomic.Int64 }

// Open does nothing.
func (s *Sink) Open(context.Context) error { return nil }

// Write counts the rows and drops them.
func (s *Sink) Write(_ context.Context, rows row.Batch) error {
	s.rows.Add(int64(len(rows)))
	return nil
}

// Flush does nothing.
func (s *Sink) Flush(context.Context) error { return nil }

// Close does nothing.
func (s *Sink) Close() error { return nil }

// Checkpoint has nothing to make durable: the rows are gone. A blackhole
// takes part in checkpoints (connector.SinkCheckpointer), so a job writing
// to one is checkpointed like any other (what a checkpointed benchmark
// measures).
func (s *Sink) Checkpoint(context.Context) ([]byte, error) { return []byte("{}"), nil }

// Resume opens the sink: there is nothing written to cut back.
func (s *Sink) Resume(ctx context.Context, _ []byte) error { return s.Open(ctx) }

// Rows is the number of rows written so far; safe to call from any
// goroutine.
func (s *Sink) Rows() int64 { return s.rows.Load() }
