package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
)

// The semantic tests are scripts: a job (its tables use the 'datagen'
// connector, which this test replaces by scripted input; or, for a changelog
// input, 'filesystem' with 'format' = 'debezium-json' and a path that no
// test registered with setData), then after a line
// "=== events" the input, one event a line, in the order it reaches the
// job:
//
//	o +I a, 2026-01-01 00:00:01, 10    a row for table o (values as text)
//	o -D a, 2026-01-01 00:00:01, 10    a retraction (changelog inputs)
//	o wm 2026-01-01 00:00:05           a watermark from table o
//	o end                              the end of o (final watermark, then end)
//	o idle                             o has gone idle (scan.watermark.idle-timeout)
//	o active                           o is active again
//	clock 5000                         processing time (ms) for state TTL
//
// The expected output is the changelog of the query's sink, one change a
// line, then the late-row counts of the operators that have any, then the
// warnings the job reported.

func TestSemantics(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if filepath.Base(path) == "valve" {
			t.Skip("testdata/valve is TestValve's")
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" {
				t.Fatalf("unknown command %q", d.Cmd)
			}
			out, err := runScript(d.Input)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

// scriptSource is a source whose rows the test pushes directly.
type scriptSource struct{}

func (scriptSource) Open(context.Context) error { return nil }
func (scriptSource) Read(context.Context) (int, row.Batch, error) {
	return 0, nil, io.EOF
}
func (scriptSource) Splits() int  { return 1 }
func (scriptSource) Close() error { return nil }

// captureSink records what a query emits.
type captureSink struct {
	cols  []connector.Column
	lines []string
}

func (s *captureSink) Open(context.Context) error { return nil }
func (s *captureSink) Write(_ context.Context, rows row.Batch) error {
	for _, r := range rows {
		parts := make([]string, len(r.Vals))
		for i, v := range r.Vals {
			parts[i] = eval.FormatValue(v, s.cols[i].Type)
		}
		s.lines = append(s.lines, fmt.Sprintf("%s[%s]", r.Kind, strings.Join(parts, ", ")))
	}
	return nil
}
func (s *captureSink) Flush(context.Context) error { return nil }
func (s *captureSink) Close() error                { return nil }

func runScript(input string) (string, error) {
	sql, events, ok := strings.Cut(input, "=== events\n")
	if !ok {
		return "", fmt.Errorf("no === events section")
	}
	src := diag.NewSource("job.sql", sql)
	j := frontend.CheckJob(src)
	if j.Diags.HasErrors() {
		return "", fmt.Errorf("the job has errors:\n%w", j.Diags.Err())
	}
	var plans []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			plans = append(plans, p)
		}
	}
	if len(plans) != 1 {
		return "", fmt.Errorf("want one query, got %d", len(plans))
	}
	var clock int64
	var sink *captureSink
	// Dead-letter files ('scan.late-rows.path', relative) land here and are
	// shown after the counts.
	deadDir, err := os.MkdirTemp("", "streamsql-script-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(deadDir)
	phys, err := planner.Lower(plans)
	if err != nil {
		return "", err
	}
	job, err := Build(context.Background(), phys, Options{
		BaseDir:  deadDir,
		Settings: j.Session.Settings,
		Clock:    func() int64 { return clock },
		QuerySink: func(_ string, cols []connector.Column) connector.Sink {
			sink = &captureSink{cols: cols}
			return sink
		},
		Warn:   func(string) {},
		Source: src,
	})
	if err != nil {
		return "", err
	}
	defer job.Close()
	// The script feeds the job's entries itself, in place of Run: it opens
	// the operators as Run would.
	if err := job.open(context.Background(), context.Background()); err != nil {
		return "", err
	}
	// Sources by table name (a table scanned twice gets the first).
	byName := map[string][]int{}
	for i, s := range job.sources {
		byName[s.name] = append(byName[s.name], i)
	}
	ended := map[int]bool{}
	var b strings.Builder
	seen := 0
	// VALUES sources go first, as a job reads them: their rows, then their
	// end (shown as the event "values").
	for i, s := range job.sources {
		v, ok := s.src.(*valuesSource)
		if !ok {
			continue
		}
		ended[i] = true
		entry := job.entry[i]
		if err := entry.push(v.rows); err != nil {
			return "", err
		}
		if err := entry.watermark(MaxWatermark); err != nil {
			return "", err
		}
		if err := entry.end(); err != nil {
			return "", err
		}
		if len(sink.lines) > seen {
			b.WriteString("values\n")
			for _, l := range sink.lines[seen:] {
				b.WriteString("  " + l + "\n")
			}
			seen = len(sink.lines)
		}
	}
	for n, line := range strings.Split(strings.TrimSpace(events), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 3)
		if fields[0] == "clock" {
			if _, err := fmt.Sscan(fields[1], &clock); err != nil {
				return "", fmt.Errorf("event %d: %w", n+1, err)
			}
			// Processing time moved: the timers due fire now (the runtime's
			// loops do it in Run; here one goroutine runs everything).
			if err := job.fireTimers(); err != nil {
				return "", fmt.Errorf("event %d (%s): %w", n+1, line, err)
			}
		} else {
			idx, ok := byName[fields[0]]
			if !ok {
				return "", fmt.Errorf("event %d: no source reads table %s", n+1, fields[0])
			}
			if err := scriptEvent(job, fields, idx, ended); err != nil {
				return "", fmt.Errorf("event %d (%s): %w", n+1, line, err)
			}
		}
		// Show what each event made the query emit, so the timing of
		// emissions is part of the expectation.
		if len(sink.lines) > seen {
			b.WriteString(line + "\n")
			for _, l := range sink.lines[seen:] {
				b.WriteString("  " + l + "\n")
			}
			seen = len(sink.lines)
		}
	}
	var lates []string
	for _, o := range job.Operators {
		if n := o.Late.Load(); n > 0 {
			lates = append(lates, fmt.Sprintf("late rows at %s: %d", o.Name, n))
		}
	}
	for _, o := range job.Operators {
		if n := o.LateUpdates.Load(); n > 0 {
			lates = append(lates, fmt.Sprintf("late updates at %s: %d", o.Name, n))
		}
	}
	for _, s := range job.Sources {
		if n := s.Late.Load(); n > 0 {
			lates = append(lates, fmt.Sprintf("late rows from %s: %d", s.Name, n))
		}
	}
	for _, o := range job.Operators {
		if n := o.NoTime.Load(); n > 0 {
			lates = append(lates, fmt.Sprintf("rows without time at %s: %d", o.Name, n))
		}
	}
	for _, s := range job.Sources {
		if n := s.NoTime.Load(); n > 0 {
			lates = append(lates, fmt.Sprintf("rows without time from %s: %d", s.Name, n))
		}
	}
	sort.Strings(lates)
	for _, l := range lates {
		b.WriteString(l + "\n")
	}
	for _, w := range job.Warnings() {
		b.WriteString("warning: " + w + "\n")
	}
	if err := job.Close(); err != nil {
		return "", err
	}
	dead, err := os.ReadDir(deadDir)
	if err != nil {
		return "", err
	}
	for _, f := range dead {
		text, err := os.ReadFile(filepath.Join(deadDir, f.Name()))
		if err != nil {
			return "", err
		}
		for _, l := range strings.Split(strings.TrimSpace(string(text)), "\n") {
			b.WriteString("dead letter " + f.Name() + ": " + l + "\n")
		}
	}
	for _, o := range job.Operators {
		if o.Spilled.Load() > 0 {
			b.WriteString("(state spilled to disk)\n")
			break
		}
	}
	if b.Len() == 0 {
		return "<no output>\n", nil
	}
	return b.String(), nil
}

// scriptEvent feeds one event of a script (fields: table, then what) to
// the entries of the sources idx that read the table.
func scriptEvent(job *Job, fields []string, idx []int, ended map[int]bool) error {
	for _, i := range idx {
		src := job.sources[i]
		entry := job.entry[i]
		var err error
		switch {
		case len(fields) >= 2 && fields[1] == "end":
			ended[i] = true
			if err = entry.watermark(MaxWatermark); err == nil {
				err = entry.end()
			}
		case len(fields) == 2 && (fields[1] == "idle" || fields[1] == "active"):
			err = entry.idle(fields[1] == "idle")
		case len(fields) == 3 && fields[1] == "wm":
			var ms int64
			if ms, err = eval.ParseTimestamp(fields[2]); err == nil {
				err = entry.watermark(ms)
			}
		case len(fields) == 3:
			var kind changelogmode.Kind
			if kind, err = changelogmode.ParseKind(fields[1]); err != nil {
				break
			}
			var r row.Row
			if r, err = parseRow(src, kind, fields[2]); err == nil {
				var b row.Batch
				if b, err = src.prepare(row.Batch{r}); err == nil {
					err = entry.push(b)
				}
			}
		default:
			err = fmt.Errorf("cannot read %q", strings.Join(fields, " "))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseRow reads comma-separated values for a source's schema.
func parseRow(src *sourceRunner, kind changelogmode.Kind, text string) (row.Row, error) {
	parts := strings.Split(text, ",")
	var schema []connector.Column
	schema = append(schema, sourceSchemas[src.name]...)
	if len(parts) != len(schema) {
		return row.Row{}, fmt.Errorf("table %s has %d columns to fill, got %d values", src.name, len(schema), len(parts))
	}
	vals := make([]row.Value, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if strings.EqualFold(p, "null") {
			continue
		}
		v, err := eval.ParseValue(p, schema[i].Type)
		if err != nil {
			return row.Row{}, err
		}
		vals[i] = v
	}
	return row.Row{Kind: kind, Vals: vals}, nil
}

// sourceSchemas is filled by the scripted factory (by table name).
var sourceSchemas = map[string][]connector.Column{}

func init() {
	connector.RegisterSource("datagen", func(s connector.Spec) (connector.Source, error) {
		sourceSchemas[s.Table] = s.Schema
		return scriptSource{}, nil
	})
}

func init() {
	// upsert-kafka tables read the rows registered for their topic
	// (setData("topic:NAME", rows)) or, without any, are scripted like
	// datagen.
	connector.RegisterSource("upsert-kafka", func(s connector.Spec) (connector.Source, error) {
		sliceMu.Lock()
		defer sliceMu.Unlock()
		if rows, ok := sliceData["topic:"+s.Options.Get("topic")]; ok {
			return &sliceSource{rows: append(row.Batch(nil), rows...), batch: 7}, nil
		}
		sourceSchemas[s.Table] = s.Schema
		return scriptSource{}, nil
	})
}
