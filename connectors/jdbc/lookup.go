package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

// Lookup reads a table by key for a lookup join, as Flink's
// JdbcRowDataLookupFunction: one SELECT ... WHERE key IN (...) per probe
// batch (chunked), retried after a failure. See the package comment.
type Lookup struct {
	set     *settings
	schema  []connector.Column
	keys    []int // schema indexes of the key columns
	retries int   // 'lookup.max-retries'

	db    *sql.DB
	table string   // quoted
	exprs []string // the SELECT list
	kcols []string // the key columns' names in the table
	enc   []encoder
	vals  []any
	ptrs  []any
	full  string // the statement of a full chunk, made once
}

// NewLookup returns the lookup table of spec.Table, looked up by the
// columns keys (schema indexes); Open connects.
func NewLookup(spec connector.Spec, keys []int) (*Lookup, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("jdbc: table %s: a lookup needs at least one key column", spec.Table)
	}
	for _, k := range keys {
		if k < 0 || k >= len(spec.Schema) {
			return nil, fmt.Errorf("jdbc: table %s: lookup key %d is not a column", spec.Table, k)
		}
	}
	l := &Lookup{set: set, schema: spec.Schema, keys: keys}
	l.retries, _ = strconv.Atoi(spec.Options.Get("lookup.max-retries"))
	return l, nil
}

// Open connects and checks the table against the DDL, as the source does.
func (l *Lookup) Open(ctx context.Context) error {
	db, err := l.set.open()
	if err != nil {
		return l.set.fail(err)
	}
	l.db = db
	cctx, cancel := context.WithTimeout(ctx, l.set.timeout)
	defer cancel()
	t, err := describe(cctx, db, l.set.d, l.set.ref)
	if err != nil {
		return l.set.fail(err)
	}
	names, err := t.check(l.set.d, l.schema, nil, false)
	if err != nil {
		return l.set.fail(err)
	}
	l.table = l.set.d.table(t.schema, t.name)
	l.exprs = make([]string, len(l.schema))
	for i, c := range l.schema {
		l.exprs[i] = readExpr(l.set.d, c.Type, names[i])
	}
	l.enc = make([]encoder, len(l.schema))
	for _, k := range l.keys {
		l.kcols = append(l.kcols, names[k])
		l.enc[k] = newEncoder(l.set.d, l.schema[k].Type)
	}
	l.vals = make([]any, len(l.schema))
	l.ptrs = make([]any, len(l.schema))
	for i := range l.vals {
		l.ptrs[i] = &l.vals[i]
	}
	return nil
}

// keysPerQuery is how many keys one SELECT asks for at most (a variable
// for BenchmarkLookup, which compares sizes).
var keysPerQuery = 256

// Lookup queries the keys in chunks of keysPerQuery, each chunk retried
// 'lookup.max-retries' times after 0 s, 1 s, 2 s, ... (the pool drops a
// broken connection; the next attempt connects again).
func (l *Lookup) Lookup(ctx context.Context, keys [][]row.Value) (row.Batch, error) {
	var out row.Batch
	for start := 0; start < len(keys); start += keysPerQuery {
		chunk := keys[start:min(start+keysPerQuery, len(keys))]
		var err error
		for i := 0; ; i++ {
			var got row.Batch
			if got, err = l.query(ctx, chunk); err == nil {
				out = append(out, got...)
				break
			}
			if ctx.Err() != nil || i >= l.retries {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(Backoff(i)):
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, l.set.fail(fmt.Errorf("looking up %d keys: %w", len(chunk), err))
			}
			return nil, l.set.fail(fmt.Errorf("looking up %d keys failed %d times ('lookup.max-retries' = %d): %w",
				len(chunk), l.retries+1, l.retries, err))
		}
	}
	return out, nil
}

// query runs one SELECT for keys.
func (l *Lookup) query(ctx context.Context, keys [][]row.Value) (row.Batch, error) {
	ctx, cancel := context.WithTimeout(ctx, l.set.timeout)
	defer cancel()
	q := l.full
	if len(keys) < keysPerQuery || q == "" {
		q = l.set.d.selectAll(l.table, l.exprs, l.set.d.keyIn(l.kcols, len(keys)))
		if len(keys) == keysPerQuery {
			l.full = q
		}
	}
	params := make([]any, 0, len(keys)*len(l.keys))
	for _, k := range keys {
		for i, c := range l.keys {
			params = append(params, l.enc[c](k[i]))
		}
	}
	rows, err := l.db.QueryContext(ctx, q, params...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out row.Batch
	for rows.Next() {
		if err := rows.Scan(l.ptrs...); err != nil {
			return nil, err
		}
		vals := make([]row.Value, len(l.schema))
		for i, c := range l.schema {
			v, err := decode(c.Type, l.vals[i])
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
			vals[i] = v
		}
		out = append(out, row.Insert(vals...))
	}
	return out, rows.Err()
}

// Close ends the connection.
func (l *Lookup) Close() error {
	if l.db != nil {
		return l.db.Close()
	}
	return nil
}

// keyIn is the WHERE condition of rows keys: k IN (p, ...) for one key
// column, (k1, k2) IN ((p, p), ...) for several.
func (d dialect) keyIn(keyCols []string, rows int) string {
	var b strings.Builder
	if len(keyCols) == 1 {
		b.WriteString(d.quote(keyCols[0]))
		b.WriteString(" IN (")
		for r := range rows {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.placeholder(r + 1))
		}
		b.WriteByte(')')
		return b.String()
	}
	b.WriteByte('(')
	d.names(&b, keyCols)
	b.WriteString(") IN (")
	d.values(&b, rows, len(keyCols))
	b.WriteByte(')')
	return b.String()
}
