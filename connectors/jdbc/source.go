package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

// batchRows is how many rows one Read returns at most.
const batchRows = 1024

// Source reads a table once. See the package comment.
type Source struct {
	set    *settings
	schema []connector.Column

	ctx     context.Context // Open's: the queries run in it
	db      *sql.DB
	queries []query // left to run, in order
	rows    *sql.Rows
	vals    []any
	ptrs    []any
	carry   row.Batch // rows read when a Read's ctx ended
}

type query struct {
	text string
	args []any
}

// NewSource returns the source of spec.Table; Open connects.
func NewSource(spec connector.Spec) (*Source, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	return &Source{set: set, schema: spec.Schema}, nil
}

// Open connects, checks the table against the DDL and plans the queries.
func (s *Source) Open(ctx context.Context) error {
	db, err := s.set.open()
	if err != nil {
		return s.set.fail(err)
	}
	s.db, s.ctx = db, ctx
	cctx, cancel := context.WithTimeout(ctx, s.set.timeout)
	defer cancel()
	t, err := describe(cctx, db, s.set.d, s.set.ref)
	if err != nil {
		return s.set.fail(err)
	}
	names, err := t.check(s.set.d, s.schema, nil, false)
	if err != nil {
		return s.set.fail(err)
	}
	exprs := make([]string, len(s.schema))
	for i, c := range s.schema {
		exprs[i] = readExpr(s.set.d, c.Type, names[i])
	}
	table := s.set.d.table(t.schema, t.name)
	p := s.set.partition
	if p == nil {
		s.queries = []query{{text: s.set.d.selectAll(table, exprs, "")}}
	} else {
		col := -1
		for j, dc := range t.cols {
			if dc.name == p.column || col < 0 && strings.EqualFold(dc.name, p.column) {
				col = j
			}
		}
		if col < 0 || intBytes(t.cols[col].dataType) == 0 && t.cols[col].dataType != "numeric" && t.cols[col].dataType != "decimal" {
			return s.set.fail(fmt.Errorf("'scan.partition.column' = '%s' is not an integer column of the table", p.column))
		}
		where := s.set.d.quote(t.cols[col].name) + " BETWEEN " + s.set.d.placeholder(1) + " AND " + s.set.d.placeholder(2)
		q := s.set.d.selectAll(table, exprs, where)
		for _, r := range ranges(p.lo, p.hi, p.num) {
			s.queries = append(s.queries, query{text: q, args: []any{r[0], r[1]}})
		}
	}
	s.vals = make([]any, len(s.schema))
	s.ptrs = make([]any, len(s.schema))
	for i := range s.vals {
		s.ptrs[i] = &s.vals[i]
	}
	return nil
}

// ranges splits [lo, hi] into n ranges of consecutive values whose sizes
// differ by at most one (fewer when there are fewer values than n).
func ranges(lo, hi, n int64) [][2]int64 {
	count := uint64(hi-lo) + 1
	if uint64(n) > count {
		n = int64(count)
	}
	size, big := count/uint64(n), count%uint64(n)
	var out [][2]int64
	start := lo
	for i := range uint64(n) {
		m := size
		if i < big {
			m++
		}
		end := start + int64(m-1)
		out = append(out, [2]int64{start, end})
		start = end + 1
	}
	return out
}

// Read returns the next rows; io.EOF after the last query's last row.
func (s *Source) Read(ctx context.Context) (int, row.Batch, error) {
	out := s.carry
	s.carry = nil
	for len(out) < batchRows {
		if err := ctx.Err(); err != nil {
			s.carry = out
			return 0, nil, err
		}
		if s.rows == nil {
			if len(s.queries) == 0 {
				if len(out) > 0 {
					return 0, out, nil
				}
				return 0, nil, io.EOF
			}
			q := s.queries[0]
			s.queries = s.queries[1:]
			rows, err := s.db.QueryContext(s.ctx, q.text, q.args...)
			if err != nil {
				return 0, nil, s.set.fail(err)
			}
			s.rows = rows
		}
		if !s.rows.Next() {
			err := s.rows.Err()
			s.rows.Close()
			s.rows = nil
			if err != nil {
				return 0, nil, s.set.fail(err)
			}
			continue
		}
		if err := s.rows.Scan(s.ptrs...); err != nil {
			return 0, nil, s.set.fail(err)
		}
		vals := make([]row.Value, len(s.schema))
		for i, c := range s.schema {
			v, err := decode(c.Type, s.vals[i])
			if err != nil {
				return 0, nil, s.set.fail(fmt.Errorf("column %s: %w", c.Name, err))
			}
			vals[i] = v
		}
		out = append(out, row.Insert(vals...))
	}
	return 0, out, nil
}

// Splits is 1: the ranges of a partitioned scan are read one after another.
func (s *Source) Splits() int { return 1 }

// Close ends the query and the connection.
func (s *Source) Close() error {
	if s.rows != nil {
		s.rows.Close()
	}
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

func init() {
	connector.RegisterSource("jdbc", func(spec connector.Spec) (connector.Source, error) { return NewSource(spec) })
	connector.RegisterSink("jdbc", func(spec connector.Spec) (connector.Sink, error) {
		s, err := NewSink(spec)
		if err != nil {
			return nil, err
		}
		if s.key != nil {
			return keyedSink{s}, nil // takes part in checkpoints (checkpoint.go)
		}
		return s, nil
	})
	connector.RegisterLookup("jdbc", func(spec connector.Spec, keys []int) (connector.LookupTable, error) {
		return NewLookup(spec, keys)
	})
}
