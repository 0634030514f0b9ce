package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

// Backoff is the wait before retry i (from 0) of a failed flush: i
// seconds, as Flink's JdbcOutputFormat sleeps 1000 * i ms. Tests shorten
// it.
var Backoff = func(i int) time.Duration { return time.Duration(i) * time.Second }

// Sink writes one database table. See the package comment.
type Sink struct {
	set    *settings
	schema []connector.Column
	key    []int // the DDL's primary key (schema indexes); nil: append-only
	enc    []encoder

	db       *sql.DB
	tableSQL string   // the quoted table
	cols     []string // the table's column names, in the DDL's order
	all      []int    // 0..len(schema)-1

	mu      sync.Mutex
	pending int            // rows taken since the last flush (Flink's batchCount)
	byKey   map[string]int // keyed: the buffer index of a key's change
	buf     []change       // keyed: one change per key; else the rows in order
	err     error          // a failed timed flush: the job fails with it
	acked   atomic.Int64   // rows whose flush committed
	stop    chan struct{}  // stops the flush timer
	done    sync.WaitGroup // the timer goroutine
	keyBuf  []byte
	closeMu sync.Once
}

// change is the last change of a key in the buffer: an upsert of row, or a
// delete of its key.
type change struct {
	r      row.Row
	delete bool
}

// NewSink returns the sink of spec.Table. It reads its options but does
// not connect: Open does, and checks the table.
func NewSink(spec connector.Spec) (*Sink, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	s := &Sink{set: set, schema: spec.Schema}
	s.key = sinkKey(spec)
	for i, c := range spec.Schema {
		s.enc = append(s.enc, newEncoder(set.d, c.Type))
		s.all = append(s.all, i)
	}
	return s, nil
}

// sinkKey maps the table's primary key to sink schema indexes.
func sinkKey(spec connector.Spec) []int {
	var key []int
	for _, name := range spec.PrimaryKey {
		for i, c := range spec.Schema {
			if c.Name == name {
				key = append(key, i)
			}
		}
	}
	return key
}

// Open connects, checks the table against the DDL and starts the flush
// timer.
func (s *Sink) Open(ctx context.Context) error {
	db, err := s.set.open()
	if err != nil {
		return s.set.fail(err)
	}
	s.db = db
	cctx, cancel := context.WithTimeout(ctx, s.set.timeout)
	defer cancel()
	t, err := describe(cctx, db, s.set.d, s.set.ref)
	if err != nil {
		return s.set.fail(err)
	}
	if s.cols, err = t.check(s.set.d, s.schema, s.key, true); err != nil {
		return s.set.fail(err)
	}
	s.tableSQL = s.set.d.table(t.schema, t.name)
	if s.key != nil {
		s.byKey = map[string]int{}
	}
	s.stop = make(chan struct{})
	if s.set.interval > 0 {
		s.done.Add(1)
		go s.timer(ctx)
	}
	return nil
}

// timer flushes every 'sink.buffer-flush.interval', as Flink's scheduled
// flush: a failure is kept and fails the next Write, Flush or Close.
func (s *Sink) timer(ctx context.Context) {
	defer s.done.Done()
	t := time.NewTicker(s.set.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			s.mu.Lock()
			if s.err == nil && s.pending > 0 {
				s.err = s.flushLocked(ctx)
			}
			s.mu.Unlock()
		}
	}
}

// Write buffers rows and flushes when 'sink.buffer-flush.max-rows' were
// taken since the last flush.
func (s *Sink) Write(ctx context.Context, rows row.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	for _, r := range rows {
		if s.key == nil {
			if r.Kind != changelogmode.Insert && r.Kind != changelogmode.UpdateAfter {
				return s.set.fail(fmt.Errorf("an append-only sink (the table has no PRIMARY KEY) got a %s row", r.Kind))
			}
			s.buf = append(s.buf, change{r: r})
		} else {
			// As Flink's TableBufferReducedStatementExecutor: +I and +U
			// upsert their key, -D and -U delete it; the last change wins.
			c := change{r: r, delete: r.Kind == changelogmode.Delete || r.Kind == changelogmode.UpdateBefore}
			s.keyBuf = encodeKey(s.keyBuf[:0], r, s.key)
			if i, ok := s.byKey[string(s.keyBuf)]; ok {
				s.buf[i] = c
			} else {
				s.byKey[string(s.keyBuf)] = len(s.buf)
				s.buf = append(s.buf, c)
			}
		}
		s.pending++
		if s.set.maxRows > 0 && s.pending >= s.set.maxRows {
			if err := s.flushLocked(ctx); err != nil {
				s.err = err
				return err
			}
		}
	}
	return nil
}

// encodeKey appends a key's values in a form equal exactly when the keys
// are equal as SQL's = (and the database) compares them: -0.0 is 0.0.
func encodeKey(b []byte, r row.Row, key []int) []byte {
	for _, k := range key {
		b = row.AppendKey(b, r.Vals[k])
	}
	return b
}

// Flush writes what the buffer holds.
func (s *Sink) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.pending == 0 {
		return nil
	}
	s.err = s.flushLocked(ctx)
	return s.err
}

// Acknowledged is the number of rows taken whose flush committed.
func (s *Sink) Acknowledged() int64 { return s.acked.Load() }

// Close stops the timer, flushes what is left (as Flink's close does) and
// closes the connection.
func (s *Sink) Close() error {
	var err error
	s.closeMu.Do(func() {
		if s.stop != nil {
			close(s.stop)
			s.done.Wait()
		}
		s.mu.Lock()
		if s.err == nil && s.pending > 0 && s.db != nil {
			ctx, cancel := context.WithTimeout(context.Background(), s.set.timeout)
			s.err = s.flushLocked(ctx)
			cancel()
		}
		err = s.err
		s.mu.Unlock()
		if s.db != nil {
			if cerr := s.db.Close(); err == nil {
				err = cerr
			}
		}
	})
	return err
}

// flushLocked writes the buffer in one transaction, retrying as Flink does:
// 'sink.max-retries' more attempts after the first, waiting Backoff(i)
// before attempt i+1. The buffer is kept until an attempt commits.
func (s *Sink) flushLocked(ctx context.Context) error {
	var err error
	for i := 0; i <= s.set.retries; i++ {
		if err = s.attempt(ctx); err == nil {
			s.acked.Add(int64(s.pending))
			s.pending = 0
			s.buf = s.buf[:0]
			if s.byKey != nil {
				clear(s.byKey)
			}
			return nil
		}
		if ctx.Err() != nil {
			return s.set.fail(fmt.Errorf("writing %d buffered rows: %w", len(s.buf), err))
		}
		if i == s.set.retries {
			break
		}
		select {
		case <-ctx.Done():
			return s.set.fail(fmt.Errorf("writing %d buffered rows: %w", len(s.buf), err))
		case <-time.After(Backoff(i)):
		}
	}
	return s.set.fail(fmt.Errorf("writing %d buffered rows failed %d times ('sink.max-retries' = %d): %w",
		len(s.buf), s.set.retries+1, s.set.retries, err))
}

// attempt writes the buffer once, in a transaction: nothing of a failed
// attempt stays in the table.
func (s *Sink) attempt(ctx context.Context) (err error) {
	ctx, cancel := context.WithTimeout(ctx, s.set.timeout)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if s.key == nil {
		if err := s.execRows(ctx, tx, s.buf, s.all, func(n int) string { return s.set.d.insert(s.tableSQL, s.cols, n) }); err != nil {
			return err
		}
		return tx.Commit()
	}
	var ups, dels []change
	for _, c := range s.buf {
		if c.delete {
			dels = append(dels, c)
		} else {
			ups = append(ups, c)
		}
	}
	keyCols := make([]string, len(s.key))
	for i, k := range s.key {
		keyCols[i] = s.cols[k]
	}
	if err := s.execRows(ctx, tx, dels, s.key, func(n int) string { return s.set.d.delete(s.tableSQL, keyCols, n) }); err != nil {
		return err
	}
	if err := s.execRows(ctx, tx, ups, s.all, func(n int) string { return s.set.d.upsert(s.tableSQL, s.cols, s.key, n) }); err != nil {
		return err
	}
	return tx.Commit()
}

// execRows runs stmt(n) for chunks of n rows, with the values of cols of
// each row as parameters.
func (s *Sink) execRows(ctx context.Context, tx *sql.Tx, rows []change, cols []int, stmt func(n int) string) error {
	per := rowsPerStatement(len(cols))
	var params []any
	var full string // the statement of a full chunk, made once
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		params = params[:0]
		for _, c := range chunk {
			params = args(params, s.enc, c.r, cols)
		}
		q := full
		if len(chunk) < per || q == "" {
			q = stmt(len(chunk))
			if len(chunk) == per {
				full = q
			}
		}
		if _, err := tx.ExecContext(ctx, q, params...); err != nil {
			return explain(err)
		}
	}
	return nil
}

// explain adds what the database's error means for the sink when it is
// about a value (the row itself is not shown: it may hold personal data).
func explain(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (no answer within 'connection.max-retry-timeout')", err)
	}
	if strings.Contains(err.Error(), "cannot affect row a second time") {
		return fmt.Errorf("%w (internal: two changes of one key in one statement)", err)
	}
	return err
}
