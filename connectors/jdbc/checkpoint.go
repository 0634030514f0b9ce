package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
)

// Checkpoints (connector.SinkCheckpointer). A sink of a table with a
// PRIMARY KEY takes part: at a checkpoint barrier it writes its buffer
// (one committed transaction, retried as any flush) before the barrier is
// acknowledged, so every change before the checkpoint is in the table when
// the checkpoint completes. Its state holds nothing but a version: the
// table is not cut back on resume. It does not need to be: the job resumes
// from the checkpoint's positions and state and writes again the changes
// that came after it, and upserts and deletes by key are idempotent, so
// each key the lost run wrote after the checkpoint is written again, in
// the input's order, and the table ends as an uninterrupted run leaves it
// (in between, a key may hold what the lost run wrote). A table without a
// key only inserts, and a replay would insert its rows twice: that sink
// does not implement connector.SinkCheckpointer, and a job with one runs
// without checkpoints (as Flink's JDBC sink, at-least-once).

// sinkStateVersion versions a sink's state in a checkpoint.
const sinkStateVersion = 1

type sinkState struct {
	V int `json:"v"`
}

// keyedSink is the sink of a table with a primary key.
type keyedSink struct{ *Sink }

// Checkpoint writes the buffer; a failure (after the retries) fails the
// checkpoint and the job.
func (s keyedSink) Checkpoint(ctx context.Context) ([]byte, error) {
	if s.db == nil {
		return nil, fmt.Errorf("jdbc: Checkpoint before Open")
	}
	if err := s.Flush(ctx); err != nil {
		return nil, err
	}
	return json.Marshal(sinkState{V: sinkStateVersion})
}

// Resume opens the sink as Open does: nothing is cut back (see above).
func (s keyedSink) Resume(ctx context.Context, state []byte) error {
	var st sinkState
	if err := json.Unmarshal(state, &st); err != nil || st.V != sinkStateVersion {
		return s.set.fail(fmt.Errorf("the checkpoint's sink state %q is not one this streamsql writes", state))
	}
	return s.Open(ctx)
}
