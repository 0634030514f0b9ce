package exec

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The connector contract. A connector's runtime lives in its own package
// (connectors/filesystem, connectors/datagen, ...) and registers a factory
// here from init; the binary links the ones it imports. The model is
// Benthos's input: connect, read a batch, close.

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
}

// Spec is what a factory gets: the table, the columns to read or write,
// and the job's settings.
type Spec struct {
	Table    *catalog.Table
	Schema   []Column
	Settings map[string]string
	// BaseDir resolves relative paths (the job file's directory).
	BaseDir string
	// Stdout and Stderr are where console connectors (print) write; nil
	// means the process's own.
	Stdout, Stderr io.Writer
}

// SourceFactory creates a source for a table. It checks the table (its
// options, its format, its column types) and refuses what its runtime
// cannot do, but connects nothing, opens nothing and starts nothing: Open
// does. CheckConnectors calls factories to check a job without running it
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
		panic("exec: source registered twice: " + connector)
	}
	sources[connector] = f
}

// RegisterSink makes a connector writable. It panics on a duplicate.
func RegisterSink(connector string, f SinkFactory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := sinks[connector]; dup {
		panic("exec: sink registered twice: " + connector)
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

// SourceSchema is the columns a source produces for a table: physical and
// metadata columns, in table order (computed columns are left out).
func SourceSchema(t *catalog.Table) []Column {
	var out []Column
	for _, c := range t.Columns {
		if c.Expr != nil {
			continue
		}
		out = append(out, Column{Name: c.Name, Type: c.Type, MetadataKey: c.MetadataKey})
	}
	return out
}

// SinkSchema is the columns a sink writes: its persisted columns.
func SinkSchema(t *catalog.Table) []Column {
	var out []Column
	for _, c := range t.Columns {
		if c.Persisted() {
			out = append(out, Column{Name: c.Name, Type: c.Type, MetadataKey: c.MetadataKey})
		}
	}
	return out
}
