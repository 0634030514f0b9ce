package connector

import "context"

// Checkpoints (package checkpoint, the runtime's barriers) need sources that
// can say where they are and go back there, and sinks that can make their
// output durable at a checkpoint and discard what came after it. Both are
// optional interfaces: a job whose connectors lack them runs, but cannot
// resume from a checkpoint.
//
// Positions and sink states are the connector's own bytes, stored in the
// checkpoint as they are; a connector versions its encoding and refuses one
// it does not know.

// Positioner is implemented by sources that can resume from a checkpoint.
type Positioner interface {
	// Position returns where the rows Read has returned so far end: a
	// source that Seeks to it returns exactly the rows after them. It is
	// called on Read's goroutine, between Reads (at a checkpoint barrier),
	// and once after Read returned io.EOF: the position of the ended
	// source, which every later checkpoint records (a resumed run Seeks
	// there and does not Read).
	Position() ([]byte, error)
	// Seek is called after Open and before the first Read when the job
	// resumes: Read then continues after pos. An error (the input no
	// longer has that position: a shorter file, an expired offset) stops
	// the job before anything is read, and says what is wrong.
	Seek(pos []byte) error
}

// CheckpointNotifier is implemented by sources that tell the outside world
// about progress once a checkpoint is complete (Kafka commits its offsets to
// 'properties.group.id', so lag tools see the job's progress; the
// checkpoint, not the group, is what a restart reads).
type CheckpointNotifier interface {
	// CheckpointComplete is called after the checkpoint holding pos (a
	// Position of this source) completed. It may be called from any
	// goroutine, concurrently with Read. An error is reported, not fatal.
	CheckpointComplete(ctx context.Context, pos []byte) error
}

// SinkCheckpointer is implemented by sinks whose output can be cut back to
// a checkpoint: exactly-once output across restarts.
type SinkCheckpointer interface {
	// Checkpoint makes every row written so far durable and returns what
	// Resume needs to come back to exactly this point. It is called on
	// Write's goroutine, between Writes (at a checkpoint barrier), and
	// once when the sink's input has ended, before its last Flush: the
	// state of the finished sink, which every later checkpoint records (a
	// resumed run Resumes it, writes nothing and Flushes).
	Checkpoint(ctx context.Context) ([]byte, error)
	// Resume is called instead of Open when the job resumes from a
	// checkpoint in which Checkpoint returned state: it opens the sink and
	// discards whatever was written after that checkpoint. An error (the
	// output is shorter than at the checkpoint) stops the job.
	Resume(ctx context.Context, state []byte) error
}

// SinkCommitter is implemented by sinks that commit in two phases (Kafka
// transactions): Checkpoint pre-commits what was written so far, and
// CheckpointComplete commits it once the checkpoint is complete, so that
// output becomes visible only when the job can no longer go back before it.
// Resume then commits what a crashed run pre-committed for the checkpoint
// and discards what it wrote after.
type SinkCommitter interface {
	// CheckpointComplete is called after the checkpoint in which Checkpoint
	// returned state completed. It may be called from any goroutine,
	// concurrently with Write. An error is reported; the sink itself fails
	// its next Write or Flush if the job must stop.
	CheckpointComplete(ctx context.Context, state []byte) error
}

// CheckpointRequirer is implemented by sinks that cannot work without
// checkpoints (an exactly-once Kafka sink commits when one completes).
type CheckpointRequirer interface {
	// NeedsCheckpoints says why, or returns "" when this sink does not
	// need them. A job that takes no checkpoints and has such a sink is
	// refused before anything is opened.
	NeedsCheckpoints() string
}

// SinkCheckpointing is implemented by sinks that act differently when the
// job takes checkpoints (the filesystem sink commits partitions only once
// the checkpoint that holds their rows completes). Checkpointing is called
// once, before Open or Resume.
type SinkCheckpointing interface {
	Checkpointing(on bool)
}

// SinkWatermarker is implemented by sinks that act on event time (the
// filesystem sink's partition-time commit trigger). Watermark is called on
// Write's goroutine when the watermark of the sink's input rises to wm:
// every row written before it has its place, and rows after it are late if
// their time is at or below wm. At the end of the input wm is
// math.MaxInt64, before the sink's final Checkpoint and Flush. An error
// stops the job.
type SinkWatermarker interface {
	Watermark(ctx context.Context, wm int64) error
}
