package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/types"

	// The file connector reads the generated inputs.
	_ "github.com/streamsql/streamsql/connectors/filesystem"
)

// jobSQL is the case as a streamsql job file: a CREATE TABLE per input
// (a file next to the job) and the query.
func (c *Case) jobSQL() string {
	var b strings.Builder
	for _, t := range c.tables {
		b.WriteString("CREATE TABLE " + t.name + " (")
		for i, col := range t.cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(col.name + " " + col.t.flink())
		}
		if t.timeCol >= 0 {
			fmt.Fprintf(&b, ", WATERMARK FOR %s AS %s - INTERVAL '%d' SECOND",
				t.cols[t.timeCol].name, t.cols[t.timeCol].name, t.delay/1000)
		}
		format := "json"
		if t.changelog {
			format = "debezium-json"
		}
		fmt.Fprintf(&b, ") WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = '%s');\n", t.file(), format)
	}
	c.q.flink(&b)
	b.WriteString(";\n")
	return b.String()
}

// writeFiles writes the job and its inputs into dir.
func (c *Case) writeFiles(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(c.jobSQL()), 0o644); err != nil {
		return err
	}
	for _, t := range c.tables {
		text := strings.Join(t.lines(), "\n")
		if text != "" {
			text += "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, t.file()), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// engineResult is what one run of streamsql gave.
type engineResult struct {
	cols []connector.Column
	// rows is the final table: the changelog applied.
	rows [][]row.Value
	// changes is how many changes the sink saw.
	changes int
	late    int64
}

// engineError is a run that did not get to an answer; class says where
// it stopped.
type engineError struct {
	class string // plan, run, changelog
	msg   string
}

func (e *engineError) Error() string { return e.class + ": " + e.msg }

// runEngine plans and runs the job in dir at a parallelism, collects the
// changelog of its query and applies it.
func runEngine(ctx context.Context, dir string, parallelism int) (*engineResult, error) {
	path := filepath.Join(dir, "job.sql")
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var base settings.Values
	base.Set("parallelism", strconv.Itoa(parallelism))
	j := frontend.CheckJobWith(diag.NewSource(path, string(text)), base)
	if j.Diags.HasErrors() {
		return nil, &engineError{"plan", j.Diags.Err().Error()}
	}
	var plans []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			plans = append(plans, p)
		}
	}
	if len(plans) != 1 {
		return nil, &engineError{"plan", fmt.Sprintf("want one query, got %d", len(plans))}
	}
	sink := &captureSink{}
	phys, err := planner.Lower(plans)
	if err != nil {
		return nil, &engineError{"plan", err.Error()}
	}
	job, err := exec.Build(ctx, phys, exec.Options{
		Settings:    j.Session.Settings,
		BaseDir:     dir,
		Parallelism: parallelism,
		Warn:        func(string) {},
		QuerySink: func(_ string, cols []connector.Column) connector.Sink {
			sink.cols = cols
			return sink
		},
	})
	if err != nil {
		return nil, &engineError{"plan", "build: " + err.Error()}
	}
	if err := job.Run(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, &engineError{"run", "the job did not finish: " + err.Error()}
		}
		return nil, &engineError{"run", err.Error()}
	}
	if sink.concurrent.Load() {
		return nil, &engineError{"changelog", "the query sink was written from two goroutines at once"}
	}
	res := &engineResult{cols: sink.cols, changes: len(sink.changes)}
	for _, c := range append(append([]*exec.Counters(nil), job.Sources...), job.Operators...) {
		res.late += c.Late.Load()
	}
	res.rows, err = applyChangelog(sink.changes, sink.cols)
	if err != nil {
		return nil, &engineError{"changelog", err.Error()}
	}
	return res, nil
}

// captureSink records a query's changelog.
type captureSink struct {
	cols       []connector.Column
	mu         sync.Mutex
	inflight   atomic.Int32
	concurrent atomic.Bool
	changes    []row.Row
}

// Open does nothing: the sink is memory.
func (s *captureSink) Open(context.Context) error { return nil }

// Write records the changes, and whether two goroutines wrote at once.
func (s *captureSink) Write(_ context.Context, rows row.Batch) error {
	if s.inflight.Add(1) > 1 {
		s.concurrent.Store(true)
	}
	defer s.inflight.Add(-1)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rows {
		s.changes = append(s.changes, row.Row{Kind: r.Kind, Vals: append([]row.Value(nil), r.Vals...)})
	}
	return nil
}

// Flush does nothing: the changes are kept as they come.
func (s *captureSink) Flush(context.Context) error { return nil }

// Close does nothing.
func (s *captureSink) Close() error { return nil }

// applyChangelog turns a changelog into the table it describes: +I and +U
// add a row, -U and -D take one back out. Taking out a row that is not
// there is an error: the changelog is wrong whatever the final table.
func applyChangelog(changes []row.Row, cols []connector.Column) ([][]row.Value, error) {
	type entry struct {
		vals []row.Value
		n    int
	}
	live := map[string]*entry{}
	var order []string
	for i, ch := range changes {
		k := valuesKey(ch.Vals)
		e := live[k]
		switch ch.Kind {
		case changelogmode.Insert, changelogmode.UpdateAfter:
			if e == nil {
				e = &entry{vals: ch.Vals}
				live[k] = e
				order = append(order, k)
			}
			e.n++
		case changelogmode.UpdateBefore, changelogmode.Delete:
			if e == nil || e.n == 0 {
				return nil, fmt.Errorf("change %d of %d, %s%s, retracts a row the query does not have",
					i+1, len(changes), ch.Kind, formatRow(ch.Vals, cols))
			}
			e.n--
		default:
			return nil, fmt.Errorf("change %d has kind %v", i+1, ch.Kind)
		}
	}
	var out [][]row.Value
	for _, k := range order {
		e := live[k]
		for ; e.n > 0; e.n-- {
			out = append(out, e.vals)
		}
	}
	return out, nil
}

func valuesKey(vals []row.Value) string {
	var b strings.Builder
	for _, v := range vals {
		b.WriteByte(byte(v.Kind()))
		b.WriteString(strconv.FormatInt(v.Int(), 36))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(len(v.Str())))
		b.WriteByte(':')
		b.WriteString(v.Str())
	}
	return b.String()
}

// formatRow prints engine values with their types, for reports.
func formatRow(vals []row.Value, cols []connector.Column) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		var t types.T
		if i < len(cols) {
			t = cols[i].Type
		}
		c, err := engineCell(v, t)
		if err != nil {
			parts[i] = v.String()
			continue
		}
		parts[i] = c.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

var errUnknownType = errors.New("a type the oracle does not compare")
