package connector

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Source reads one table.
//
// The runtime calls Open once, then Read from a single goroutine until Read
// returns io.EOF (a bounded source is done) or the job stops (ctx is
// cancelled), then Close once, whatever happened.
type Source interface {
	// Open connects. An error stops the job before any row is read.
	Open(ctx context.Context) error
	// Read returns the next rows, in the order of the table's Schema
	// (physical and metadata columns; computed columns are added by the
	// runtime), all with kind +I for insert-only formats. Split says which
	// split (file, partition) they come from: watermarks are generated per
	// split. Read blocks until rows are available; it returns io.EOF at the
	// end of a bounded input. A *BadRowError reports rows that could not be
	// decoded: the rows returned with it are good and are kept.
	//
	// When ctx is done, Read returns promptly with ctx's error and loses
	// nothing: rows it did not return come from a later Read. The runtime
	// relies on this to wake a quiet source with a deadline (idleness,
	// watermark alignment).
	Read(ctx context.Context) (split int, rows row.Batch, err error)
	// Splits is the number of splits Read reports; the source's watermark
	// is the minimum over its splits that are not done and not idle.
	Splits() int
	// Close releases the connection. It is called once, after the last Read.
	Close() error
}

// SplitDoner is implemented by sources whose splits can end one by one
// (files): a finished split no longer holds the watermark back.
type SplitDoner interface {
	// DoneSplits returns the splits that have ended since the last call.
	DoneSplits() []int
}

// SplitPauser is implemented by sources that can stop fetching single
// splits (Kafka partitions), for watermark alignment: the runtime pauses the
// splits that are ahead of their group and resumes them when the group has
// caught up. Rows already fetched for a paused split may still be returned.
// The runtime calls both from the goroutine that calls Read.
type SplitPauser interface {
	PauseSplits(splits []int)
	ResumeSplits(splits []int)
}

// Buffered is implemented by sources that fetch ahead (Kafka): Buffered
// reports whether the next Read would return rows at once, from records
// already fetched, without waiting. The runtime then reads them into the
// same batch, so that a fetch holding several splits goes downstream as one
// batch followed by one watermark. Each Read must return a batch of its
// own: the runtime may append the next Read's rows to it. Called from the
// goroutine that calls Read.
type Buffered interface {
	Buffered() bool
}

// SplitMeter is implemented by sources that measure their reading per
// split, for metrics. Both methods may be called from any goroutine, at
// any time after Open returned, concurrently with Read: they read values
// Read keeps anyway and cost it nothing more.
type SplitMeter interface {
	// SplitBytes is how many bytes of input split has given so far: for
	// Kafka the keys and values of the records Read returned, for a file
	// the bytes of its lines.
	SplitBytes(split int) int64
	// SplitLag is how many records of split are not read yet (Kafka's
	// consumer lag: the partition's high watermark, as of the last fetch
	// that returned records, minus the offset of the next record Read
	// returns); false when it is not known.
	SplitLag(split int) (int64, bool)
}

// BadRowError describes input that could not be decoded. Where names the
// place precisely: FILE:LINE, or topic/partition/offset.
type BadRowError struct {
	Where string
	Err   error
	// Raw is the undecodable input, for a dead-letter destination.
	Raw []byte
}

func (e *BadRowError) Error() string { return fmt.Sprintf("%s: bad row: %v", e.Where, e.Err) }
func (e *BadRowError) Unwrap() error { return e.Err }

// Sink writes one table.
//
// The runtime calls Open once, Write for each batch in order, Flush when a
// consistent point is reached (end of input, or periodically), and Close
// once.
type Sink interface {
	Open(ctx context.Context) error
	// Write takes rows in the order of the sink's Schema. Kinds are those the
	// planner proved the sink accepts. An error stops the job: nothing after
	// it is acknowledged.
	Write(ctx context.Context, rows row.Batch) error
	// Flush makes everything written so far durable (or visible).
	Flush(ctx context.Context) error
	Close() error
}

// Acknowledger is implemented by sinks whose writes are confirmed later,
// by someone else (Kafka's brokers): Write hands rows over, and a row only
// counts as written (the summary's "rows written") once it has been
// acknowledged. The runtime reads Acknowledged after each Write, after
// Flush and after Close; it must be safe to call from any goroutine.
type Acknowledger interface {
	// Acknowledged is the number of rows acknowledged so far.
	Acknowledged() int64
}

// Column is a column of a source's or sink's schema.
type Column struct {
	Name string
	Type types.T
	// MetadataKey is set for metadata columns (the connector fills them).
	MetadataKey string
	// Unused is set, in a source's schema, for a column the plan never
	// reads (the planner's projection pruning): a decoder may leave it
	// NULL without converting its value, as Flink's projection push-down
	// does (a value of the wrong type there is then no error). The record
	// must still be well-formed.
	Unused bool
}

// Spec is what a factory gets: the table, its checked options, the columns
// to read or write, and where the job's relative paths and console output
// go. Connectors do not read the job's settings (package settings).
type Spec struct {
	// Table is the table's name, for messages.
	Table string
	// Connector is the table's 'connector' ("kafka", "upsert-kafka").
	Connector string
	// Format is the name of the table's format ('format', or Kafka's
	// 'value.format'); "" when it has none.
	Format string
	// Options are the table's WITH options as the planner checked them;
	// nil when the table has none.
	Options Options
	// PrimaryKey names the table's primary-key columns, in key order.
	PrimaryKey []string
	// PartitionKeys names the table's PARTITIONED BY columns, in order
	// (the filesystem connector writes and reads key=value/ directories).
	PartitionKeys []string
	// Schema is the columns read or written, in row order.
	Schema []Column
	// BaseDir resolves relative paths (the job file's directory).
	BaseDir string
	// Stdout and Stderr are where console connectors (print) write; nil
	// means the process's own.
	Stdout, Stderr io.Writer
}

// Options are a table's WITH options, checked against the connector's
// declaration (connectors.Config is the implementation): keys are spelled
// as in the DDL ('properties.group.id'), values are text.
type Options interface {
	// Has reports whether the option was given.
	Has(key string) bool
	// Get returns the option's value, or its declared default when it was
	// not given, or "".
	Get(key string) string
	// Keys returns the keys given, sorted.
	Keys() []string
	// Prefixed returns the options given under prefix, keyed by the rest
	// of their key: Prefixed("properties.") gives Kafka's client properties.
	Prefixed(prefix string) map[string]string
	// Duration returns a duration option (given or default), and false when
	// it has no value or is not a duration.
	Duration(key string) (time.Duration, bool)
}

// SourceFactory creates a source for a table. It checks the table (its
// options, its format, its column types) and refuses what its runtime
// cannot do, but connects nothing, opens nothing and starts nothing: Open
// does. exec.CheckConnectors calls factories to check a job without running it
// and drops what they make without closing it.
type SourceFactory func(spec Spec) (Source, error)

// SinkFactory creates a sink for a table, with SourceFactory's contract.
type SinkFactory func(spec Spec) (Sink, error)

var (
	regMu   sync.Mutex
	sources = map[string]SourceFactory{}
	sinks   = map[string]SinkFactory{}
)

// RegisterSource makes a connector readable. It panics on a duplicate.
func RegisterSource(connector string, f SourceFactory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := sources[connector]; dup {
		panic("connector: source registered twice: " + connector)
	}
	sources[connector] = f
}

// RegisterSink makes a connector writable. It panics on a duplicate.
func RegisterSink(connector string, f SinkFactory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := sinks[connector]; dup {
		panic("connector: sink registered twice: " + connector)
	}
	sinks[connector] = f
}

// LookupSource returns the factory for a connector.
func LookupSource(connector string) (SourceFactory, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	f, ok := sources[connector]
	return f, ok
}

// LookupSink returns the factory for a connector.
func LookupSink(connector string) (SinkFactory, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	f, ok := sinks[connector]
	return f, ok
}

// Registered lists the registered source and sink connectors.
func Registered() (srcs, snks []string) {
	regMu.Lock()
	defer regMu.Unlock()
	for k := range sources {
		srcs = append(srcs, k)
	}
	for k := range sinks {
		snks = append(snks, k)
	}
	sort.Strings(srcs)
	sort.Strings(snks)
	return srcs, snks
}
