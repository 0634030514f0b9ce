// Package state keeps the keyed state of streamsql's operators (interval,
// regular and temporal joins, group and window aggregates, the changelog
// normalize, the upsert materializer): an in-memory hot tier in front of Badger
// (github.com/dgraph-io/badger/v4), under a memory budget, with expiry by
// time bucket.
//
// # Shape
//
// A Store is one Badger database plus the hot tier of its tables; it
// belongs to one goroutine (one partition of a keyed operator: with N
// partitions, open N stores, e.g. in DIR/p0 … DIR/pN-1, each with budget/N).
// Open("") makes a fresh directory under the system's temporary directory
// that Close removes. Stores may share one Badger database instead
// (Options.Shared, a Shared: what `streamsql run` without --state-dir
// does for a job's stores), each store's keys under a prefix of its own
// ('s' and a 4-byte store number, before the layout below): Badger's
// memory (memtables, table builders, compactions) is per database, so a
// job pays it once rather than once per partition. A store in a shared
// database is still used from one goroutine; the database orders its
// stores' write batches against a DropPrefix (which blocks every write),
// and one store at a time gives back its mapped pages. Restore makes a
// store with a database of its own (its StreamWriter needs an empty one).
//
// A Table (Store.Table) is a namespace, one per operator input side: a
// multimap from a key (the encoded join or group key, passed as []byte so a
// lookup allocates nothing) to Records in insertion order. A Record is a
// row ([]row.Value) plus a small header the operators use as they like:
// Count, Matches, Time, Flags, and the Expiry the store acts on. Append
// adds a record; Scan visits a key's records, updating headers in place or
// removing records; Delete drops a key; Expire(upTo, fn) removes every
// record with Expiry <= upTo and hands each to fn first, in (Expiry, Seq)
// order, whichever tier it is in.
//
// The hot tier keeps a record's values in their encoding (see Encoding),
// one string per record, not the []row.Value it was given: a decoded input
// row's values usually alias larger buffers (the input line, a slab shared
// by a batch), and the encoding is about a fifth of their size. Scan and
// Expire decode the values for their callbacks into fresh memory (the
// strings alias the stored encoding, which never changes), so a callback
// may keep r.Vals.
//
// A Map (NewMap) is the one-value-per-key flavour for state that is an
// object (a group's accumulators): the hot tier holds the Go value itself
// and a Codec encodes it only when it spills or is flushed. A key's value
// may have timers besides its expiry (AddTimer): records without values
// of the same key, which Expire hands to fn like the key's own.
//
// # Tiers and the budget
//
// Every hot key costs an estimate of its memory (entry, key, records with
// the unused capacity of their slice, their encoded values), and the expiry
// buckets cost what they hold (their slices' capacity, each bucket's own
// memory, and the entry struct a stale bucket entry keeps alive after its
// key left the hot tier); the sum over a store's tables is MemBytes, and
// the model test checks it against a recount of what the tier holds. The budget comes from Options.MemoryBudget — the
// setting 'state.memory-budget', parsed by package settings ('256mb' is
// 256 MiB, Flink's units) — and defaults to 256 MiB. When MemBytes exceeds it, a
// clock (second-chance LRU) over all hot keys evicts the coldest down to
// 7/8 of the budget in one Badger WriteBatch, committed before the
// operation returns. Only keys changed since Badger last saw them are
// written; a key read back and not changed is dropped for free. A lookup
// of a key that is not hot consults an in-memory count of spilled keys by
// a 32-bit hash (12 to 19 bytes per spilled key, outside the budget but
// counted in the Go memory limit; a collision costs one Badger lookup that finds nothing) and goes to
// Badger only when the key may be there, so a new key never costs a disk
// read. A Scan of a cold key reads its records without making it hot
// (a join's probe changes nothing, and loading the key would evict
// another: a write for every read); when the callback changes or removes
// a record, or on any other access (Append to a cold key too), the key
// is loaded whole and becomes hot. Cold lookups share one Badger read
// transaction, ended after 1,024 reads and at each of the store's writes
// (so a read sees all of them). Results are the same with and without spill:
// the tests run random operations against a plain map with a 1-byte budget.
//
// # The Go memory limit
//
// While stores are open, and unless the user set GOMEMLIMIT, the Go memory
// limit is one and a half times the sum of their budgets plus, per Badger
// database, 40 MB and its two memtables (8 to 32 MB; its compaction buffers
// and memtables) plus 192 MB for the rest of the job plus 16 bytes per
// spilled key (the index of spilled keys, which grows with the state on
// disk), and at most three
// quarters of a container's memory limit (see memlimit.go): without it the
// collector lets the heap reach twice its live size whatever the budget. A
// store with no budget lifts the limit; closing the last store restores the
// previous one.
//
// # Expiry by bucket
//
// A record with an expiry (event time for an interval join: the watermark
// at which the row can have no more partners; processing time for a state
// TTL: last access + TTL) is listed in the in-memory bucket Expiry>>shift
// (the width, a power of two, from TableOptions.BucketWidth or
// Options.BucketWidth, default 1024); a heap orders the buckets, so Expire
// opens only the buckets that are due (and sorts the one that is partly
// due). Records moved to a later expiry within their bucket (a TTL
// refreshed on access) keep their entry and are requeued when it is
// reached. In Badger, each spilled record with an expiry has an index
// entry ordered by (expiry, seq): Expire reads the due prefix of that
// index a chunk of 4096 entries at a time, reads the keys each chunk
// names, and rewrites them without the due records before reading the
// next chunk (so expiring all of a large spilled state, as the end of the
// input does, holds one chunk in memory, not the state); it never scans
// the table. Every index entry names a record as the latest value of its
// key in Badger holds it (an entry whose record changes expiry or leaves
// while its key is hot is deleted at the start of the next batch), and it
// carries that value's record count n and latest expiry: Expire without a
// callback deletes a key with n = 1 whose latest expiry is due without
// reading it (a record-level blind delete: the interval join's inner
// sides, where most keys hold one row). An Expire without callback past
// the latest expiry ever written to Badger, in a table that never wrote a
// record without expiry there (the watermark at +inf at the end of a
// bounded input), drops the table's Badger data whole with one
// DropPrefix instead — unless a snapshot is being written: DropPrefix
// removes data an open read transaction still reads.
//
// # Badger layout and durability
//
//	'd' len(table) table key             -> uvarint(n) (uvarint(seq) record)*n [uvarint(len) value]
//	'x' len(table) table exp(8) seq(8)   -> maxexp(8) uvarint(n) key
//
// Badger runs small: two memtables of an eighth of its stores' budgets (4
// to 16 MB), 2 MB tables at every level, no block cache, no compression,
// one version, no fsync per write, its logger silenced. Its tables are
// memory-mapped, so the pages of tables it wrote or read count in the
// process's resident set (as file pages), beside the heap: on Linux a store
// gives them back with madvise(MADV_PAGEOUT), at most every second, after
// Badger writes or reads (resident_linux.go), so the files add what Badger
// touched since, not the whole spilled state; a page given back is read
// from the file again when Badger needs it. A table's index and bloom
// filter, at the end of its file (about 2 % of it), are not given back:
// every lookup that reaches the table reads them in place, and faulting
// them in again after each page-out read the disk around each fault.
//
// What is durable: Badger holds what was spilled and what Flush wrote.
// Flush writes every changed hot key and pending delete, then syncs, so
// right after Flush Badger holds exactly the tables' contents — the base of
// a checkpoint. Between Flushes, spills keep writing newer versions of the
// keys they evict, so after a crash the directory holds a mix of the last
// Flush and later spills, not a consistent snapshot. Close flushes when the
// directory was given (a clean shutdown keeps everything) unless it is
// scratch space (Options.Scratch: the state's durable copy is in
// checkpoints), and deletes it when Open made it. Reopening a directory finds every table cold: Len
// and the sequence numbers are restored by a scan of the table's keys.
//
// Snapshots (snapshot.go): Store.Snapshot, at a checkpoint barrier, writes
// nothing but the pending deletes: it opens a Badger read transaction (a
// view of the spilled state that later writes do not change) and marks the
// changed hot keys frozen, copy on write — a pass over the hot keys'
// pointers (about 0.1 s of CPU for 500k changed keys, where writing them to
// Badger took 5–6 s). Snapshot.WriteTo, from another goroutine while the
// operator goes on, encodes the frozen keys, sorts them, and writes them
// merged with the Badger view; the store's goroutine encodes a frozen key
// itself, first, before it changes it (or hands it out to be changed), so
// every key is written as it was at the barrier. A whole snapshot holds the
// data entries only (format version 2): the expiry index, as large as the
// data for a join's rows, is derived from the records' expiries and
// sequence numbers on restore, sorted, and checked (a sequence number twice
// in a table is corruption, refused before Badger's StreamWriter, which
// panics on keys out of order, sees it); version 1, which held the index,
// is still read. Restore fills a new
// directory from snapshots, keeping the keys of the key groups a partition
// owns (KeyGroup), so a job can restart at another parallelism: from one
// snapshot (the same parallelism) with Badger's StreamWriter, which builds
// its tables straight from the snapshot's sorted keys; from several, with
// a WriteBatch, the records getting new sequence numbers (seq*parts+part),
// unique in the store and in each key's order. A table of a store restored
// from one snapshot takes the counts Restore kept as it wrote its keys
// (records, next sequence number, cold keys, least expiry) instead of
// reading them all back as a reopened one does. Restore keeps the data
// entries it reads in the hot tier, instead of Badger, when a sample of the
// first says the whole state fits 7/8 of the budget (restore_hot.go): a
// state that fitted its budget before the stop is all in memory again
// after it, one that did not goes to Badger alone, and a table adopts its
// restored keys when the operator opens it (a snapshot before that is
// refused). While a restore runs, the Go memory limit counts its working
// set (memLimitRestore).
//
// Incremental snapshots: from its first snapshot on, a store keeps what
// changed since its last one — a flag on each changed hot key (listed),
// a set of the other changed keys (deleted, evicted after a change,
// changed in Badger by a cold expiry that left records), and each table's
// expiry horizon (the greatest upTo its Expires passed). A key an Expire
// emptied without other change since the last snapshot is in none of
// them: the horizon stands for it. Store.SnapshotChanges freezes the
// listed keys and writes the horizons and, for every changed key, its
// value at the barrier (the hot tier's, or Badger's in the read view) or a
// delete: the data entries only, in the order they were encoded (not
// sorted: Restore sorts the entries of a chain's deltas together).
// Restore drops from the values of the base and of each delta the records
// that a later delta's horizon passed (expireValue): an expiry costs the
// snapshot nothing, where a delete per key expired was a map insert, an
// entry written, and one read and sorted on restore. Restore applies a chain (a
// whole snapshot and its deltas, SnapshotPart.Deltas) in one merge, after
// reading and sorting every delta's entries: a key a delta names takes its
// last delta's value, and the index is derived from the merged data entries
// (a base of version 1: its index entries of such a key are dropped and
// the index entries of the delta's value derived from it). A table
// dropped whole (the cold expiry's DropPrefix) makes the next snapshot a
// whole one; so must the caller's after a snapshot it never wrote (its
// changes are gone from the store's sets).
//
// I/O and decoding errors are sticky: Store.Err returns the first, and an
// operator checks it once per batch.
//
// # Encoding
//
// AppendValues/DecodeValues and AppendRecord/DecodeRecord are the compact
// binary form of []row.Value and of a Record (a one-byte field mask, then
// only the non-zero header fields as varints; ints zig-zag varints, floats
// 8 bytes, strings length-prefixed). Decoding never panics on garbage
// (fuzzed), decodes into a reused slice, and allocates once per row for
// all its strings (DecodeValuesNoCopy: never, aliasing the input).
//
// # How the operators use it
//
// Interval join: one Table per side, BucketWidth near the watermark step.
// A row probes the other side with Scan(key) (checking the time bound on
// r.Time and the condition on r.Vals, setting a matched bit in r.Flags
// when that side is outer: an unchanged record stays clean, so a key read
// back for a probe is dropped again without a write), then, unless its
// expiry is already passed, Append(key, Record{Vals, Time: t, Expiry:
// t-lower or t+upper}). On a watermark w, an outer side's Expire(w, fn):
// fn emits the null-padded row when the matched bit is clear; an inner
// side's Expire(w, nil), which deletes spilled single-row keys unread.
//
// Regular join: one Table per side; Record.Count holds identical rows,
// Record.Matches the partner instances, Expiry = last write + the side's
// TTL (NoExpiry without TTL). Storing a row Finds the key's record with
// the identical row (Count++; Find compares encodings, decoding nothing
// else) before Appending; a retraction Finds it and decrements (or
// removes); a probe Scans the other side, updating Matches and Expiry on an
// outer side and leaving an inner side's records unchanged (clean). At the
// start of each batch, Expire(now, nil) frees expired rows.
//
// Changelog normalize: a Map from the primary key to the encoded last row
// (BytesCodec): Get, compare bytes with the new row's encoding, Put with
// expiry now + TTL (NoExpiry without TTL); Delete on a tombstone;
// Expire(now, nil) for the TTL.
//
// Upsert materializer: a Map from the sink key to the list of its live
// rows (encoded, with their encoded upsert keys when rows are matched by
// one): Get, change the list, Put with expiry now + TTL; Delete when the
// list empties; Expire(now, nil) for the TTL.
//
// Group aggregate: a Map from the group key to the group (its
// accumulators, with a Codec); Get, fold, Put with expiry access time +
// TTL; Delete when the group empties; Expire(now, nil) for the TTL.
//
// Window aggregate: a Map from (window, group key) to the group, expiring
// at the window's last millisecond; Expire(w, fn) emits what it releases.
// With allowed lateness the group's own expiry is that plus the lateness
// (its horizon), and a timer (AddTimer) at the window's last millisecond
// fires it: fn hears of the key twice, in that order, and marks the group
// fired the first time (a change kept in either tier).
package state
