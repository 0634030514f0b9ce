package connector

import (
	"context"
	"sort"

	"github.com/streamsql/streamsql/row"
)

// LookupTable is a table read by key, one probe batch at a time: the dim
// side of a lookup join (a processing-time temporal join, FOR SYSTEM_TIME
// AS OF a PROCTIME() column), as Flink's LookupTableSource and its
// LookupFunction. The runtime calls Open once, Lookup from one goroutine
// any number of times, and Close once, whatever happened; the runtime's
// cache, not the connector, decides when a key is asked again.
type LookupTable interface {
	// Open connects. An error stops the job before any row is read.
	Open(ctx context.Context) error
	// Lookup returns the table's current rows whose key columns (the
	// factory's keys, in that order) equal one of keys, as the database
	// compares them: in the order of the Spec's Schema, all +I, in no
	// particular order. A key is never NULL and keys are distinct. The
	// runtime matches each row to its key with streamsql's = and drops the
	// rows that equal none (a database's case-insensitive collation or
	// padded comparison matches more than = does). An error (after the
	// connector's own retries) stops the job.
	Lookup(ctx context.Context, keys [][]row.Value) (row.Batch, error)
	// Close releases the connection. It is called once, last.
	Close() error
}

// LookupFactory creates the lookup table of spec, looked up by the columns
// keys (indexes into spec.Schema), with SourceFactory's contract: it
// checks and refuses, and opens nothing.
type LookupFactory func(spec Spec, keys []int) (LookupTable, error)

var lookups = map[string]LookupFactory{}

// RegisterLookup makes a connector usable as the dim side of a lookup
// join. It panics on a duplicate.
func RegisterLookup(connector string, f LookupFactory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := lookups[connector]; dup {
		panic("connector: lookup registered twice: " + connector)
	}
	lookups[connector] = f
}

// FindLookup returns the lookup factory of a connector.
func FindLookup(connector string) (LookupFactory, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	f, ok := lookups[connector]
	return f, ok
}

// RegisteredLookups lists the connectors that can be looked up.
func RegisteredLookups() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var out []string
	for k := range lookups {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
