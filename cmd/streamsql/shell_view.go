package main

// How the shell shows a running SELECT, in the three result modes of the
// Flink SQL client ('sql-client.execution.result-mode'):
//
//	tableau    a bordered table whose rows scroll by, each change with its
//	           kind in an op column (+I, -U, +U, -D); the default, and the
//	           only mode when the shell is not on a terminal
//	changelog  one compact line per change: the op, then the values
//	table      the materialised result: every change is applied to a
//	           multiset of rows (+I and +U add a row, -U and -D remove one)
//	           and the table is redrawn in place
//
// On a terminal, a status line under the rows shows the changes received,
// the rows read, the watermark and the time, and is redrawn every 200 ms.

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Result modes.
const (
	modeTable     = "table"
	modeChangelog = "changelog"
	modeTableau   = "tableau"
)

// view renders one query's result.
type view struct {
	mu    sync.Mutex
	w     io.Writer
	mode  string
	tty   bool
	job   *exec.Job
	began time.Time
	stop  chan struct{}
	wg    sync.WaitGroup

	cols    []connector.Column
	widths  []int
	header  bool  // the tableau or changelog header has been printed
	changes int64 // changes received
	status  bool  // the status line is showing

	// table mode
	rows    [][]string
	updated int // where the last -U removed a row: its +U goes there; -1 none
	dirty   bool
	drawn   int // lines of the last drawing, above the status line
}

func newView(w io.Writer, mode string, tty bool) *view {
	return &view{w: w, mode: mode, tty: tty, stop: make(chan struct{}), updated: -1}
}

// sink is the connector.Sink of the query.
func (v *view) sink(cols []connector.Column) connector.Sink {
	v.cols = cols
	v.widths = make([]int, len(cols))
	for i, c := range cols {
		v.widths[i] = max(len(c.Name), typeWidth(c.Type))
	}
	return viewSink{v}
}

// typeWidth is the width of a column for values of type t, as Flink's
// tableau chooses it before any value is seen.
func typeWidth(t types.T) int {
	switch t.Kind {
	case types.Boolean:
		return 5
	case types.TinyInt:
		return 4
	case types.SmallInt:
		return 6
	case types.Int:
		return 11
	case types.BigInt:
		return 20
	case types.Float, types.Double:
		return 12
	case types.Decimal:
		return t.Precision + 2
	case types.Date:
		return 10
	case types.Time:
		return 8 + t.Precision + min(t.Precision, 1)
	case types.Timestamp, types.TimestampLTZ:
		return 19 + t.Precision + min(t.Precision, 1)
	case types.Char, types.Varchar:
		return min(max(t.Length, 4), 30)
	default: // binary, intervals, NULL: no fixed width
		return 20
	}
}

// maxCell is the widest a cell gets; longer values are cut with "...".
const maxCell = 30

func (v *view) format(r row.Row) []string {
	out := make([]string, len(v.cols))
	for i := range v.cols {
		if i >= len(r.Vals) {
			break
		}
		s := "<NULL>"
		if !r.Vals[i].IsNull() {
			s = eval.FormatValue(r.Vals[i], v.cols[i].Type)
		}
		s = strings.ReplaceAll(s, "\n", " ")
		if len(s) > max(v.widths[i], maxCell) {
			s = s[:max(v.widths[i], maxCell)-3] + "..."
		}
		out[i] = s
	}
	return out
}

// start begins the status line of a query on a terminal.
func (v *view) start(job *exec.Job) {
	v.job, v.began = job, time.Now()
	if !v.tty {
		return
	}
	v.mu.Lock()
	v.showStatus()
	v.mu.Unlock()
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-v.stop:
				return
			case <-t.C:
				v.mu.Lock()
				if v.mode == modeTable && v.dirty {
					// A redraw is best-effort: the next tick or finish draws
					// the table again, and finish reports a failed write.
					_ = v.drawTable(true)
				} else {
					v.clearStatus()
					v.showStatus()
				}
				v.mu.Unlock()
			}
		}
	}()
}

// finish ends the view when the query has ended or was stopped. It returns
// the error of writing the final table or border, if any.
func (v *view) finish(stopped bool) error {
	close(v.stop)
	v.wg.Wait()
	v.mu.Lock()
	defer v.mu.Unlock()
	var err error
	if v.mode == modeTable {
		err = v.drawTable(false)
	} else {
		v.clearStatus()
		if v.mode == modeTableau && v.header {
			_, err = io.WriteString(v.w, v.border())
		}
	}
	what := "Received a total of " + plural(int(v.changes), "change")
	if v.mode == modeTable {
		what = fmt.Sprintf("%s in the result, from %s", plural(len(v.rows), "row"), plural(int(v.changes), "change"))
	}
	if stopped {
		fmt.Fprintf(v.w, "Query stopped. %s.\n", what)
	} else {
		fmt.Fprintf(v.w, "Query finished. %s.\n", what)
	}
	return err
}

// write takes a batch of changes: in table mode it applies them (a ticker
// redraws the table), in the other modes it prints them, and a failed write
// is returned so that the query stops.
func (v *view) write(rows row.Batch) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.changes += int64(len(rows))
	switch v.mode {
	case modeTable:
		for _, r := range rows {
			vals := v.format(r)
			switch r.Kind {
			case changelogmode.Insert:
				v.rows = append(v.rows, vals)
			case changelogmode.UpdateAfter:
				if i := v.updated; i >= 0 && i <= len(v.rows) {
					// The new row of an update takes the old one's place.
					v.rows = slices.Insert(v.rows, i, vals)
				} else {
					v.rows = append(v.rows, vals)
				}
				v.updated = -1
			case changelogmode.UpdateBefore:
				v.rows, v.updated = removeRow(v.rows, vals)
			case changelogmode.Delete:
				v.rows, _ = removeRow(v.rows, vals)
			}
		}
		v.dirty = true
		return nil
	default:
		var b strings.Builder
		if !v.header {
			v.header = true
			b.WriteString(v.headerText())
		}
		for _, r := range rows {
			v.line(&b, r.Kind.String(), v.format(r))
		}
		v.clearStatus()
		if _, err := io.WriteString(v.w, b.String()); err != nil {
			return err
		}
		v.showStatus()
		return nil
	}
}

// removeRow removes the first row equal to vals and says where it was
// (-1: nowhere).
func removeRow(rows [][]string, vals []string) ([][]string, int) {
	for i, r := range rows {
		if slices.Equal(r, vals) {
			return slices.Delete(rows, i, i+1), i
		}
	}
	return rows, -1
}

func (v *view) border() string {
	var b strings.Builder
	if v.mode == modeTableau {
		b.WriteString("+----")
	}
	for _, w := range v.widths {
		b.WriteString("+" + strings.Repeat("-", w+2))
	}
	b.WriteString("+\n")
	return b.String()
}

func (v *view) headerText() string {
	var b strings.Builder
	names := make([]string, len(v.cols))
	for i, c := range v.cols {
		names[i] = c.Name
	}
	switch v.mode {
	case modeChangelog:
		v.line(&b, "op", names)
	case modeTableau:
		b.WriteString(v.border())
		v.line(&b, "op", names)
		b.WriteString(v.border())
	default: // table
		b.WriteString(v.border())
		v.line(&b, "", names)
		b.WriteString(v.border())
	}
	return b.String()
}

// line writes one row: with borders in tableau and table modes, plain in
// changelog mode. Strings are left-aligned, numbers right-aligned.
func (v *view) line(b *strings.Builder, op string, vals []string) {
	switch v.mode {
	case modeChangelog:
		fmt.Fprintf(b, "%-2s", op)
		for i, s := range vals {
			b.WriteString("  ")
			b.WriteString(v.pad(i, s))
		}
		b.WriteString("\n")
		return
	case modeTableau:
		fmt.Fprintf(b, "| %2s ", op)
	}
	for i, s := range vals {
		b.WriteString("| " + v.pad(i, s) + " ")
	}
	b.WriteString("|\n")
}

func (v *view) pad(i int, s string) string {
	w := v.widths[i]
	if len(s) >= w {
		return s
	}
	if v.cols[i].Type.Kind.IsNumeric() {
		return strings.Repeat(" ", w-len(s)) + s
	}
	return s + strings.Repeat(" ", w-len(s))
}

// drawTable redraws the materialised table in place (on a terminal), with
// the status line under it while the query runs; off a terminal it prints
// the final table once.
func (v *view) drawTable(running bool) error {
	v.dirty = false
	width, height := termSize(v.w)
	var b strings.Builder
	if v.tty {
		// Back to the top of the last drawing, and clear it.
		b.WriteString("\r")
		if v.drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", v.drawn)
		}
		b.WriteString("\x1b[J")
	}
	body := v.headerText()
	rows := v.rows
	more := 0
	if limit := height - 6; v.tty && running && len(rows) > limit {
		more = len(rows) - max(limit, 1)
		rows = rows[:max(limit, 1)]
	}
	var t strings.Builder
	t.WriteString(body)
	for _, r := range rows {
		v.line(&t, "", r)
	}
	t.WriteString(v.border())
	if more > 0 {
		fmt.Fprintf(&t, "(%d more rows)\n", more)
	}
	lines := strings.Split(strings.TrimSuffix(t.String(), "\n"), "\n")
	for _, l := range lines {
		if v.tty && len(l) >= width {
			l = l[:max(width-1, 1)]
		}
		b.WriteString(l + "\n")
	}
	v.drawn = len(lines)
	v.status = false
	if _, err := io.WriteString(v.w, b.String()); err != nil {
		return err
	}
	if running {
		v.showStatus()
	}
	return nil
}

// showStatus prints the status line, without a newline, on a terminal.
func (v *view) showStatus() {
	if !v.tty || v.job == nil {
		return
	}
	var read int64
	for _, s := range v.job.Sources {
		read += s.In.Load()
	}
	wm := exec.MinWatermark
	if len(v.job.Sinks) > 0 {
		wm = v.job.Sinks[0].Watermark.Load()
	}
	s := fmt.Sprintf("-- %s, %d rows read, watermark %s, %s -- Ctrl-C stops the query",
		plural(int(v.changes), "change"), read, exec.FormatMillis(wm), time.Since(v.began).Round(time.Second))
	if width, _ := termSize(v.w); len(s) >= width {
		s = s[:max(width-1, 1)]
	}
	// The status line is redrawn every tick: best-effort.
	_, _ = io.WriteString(v.w, "\r\x1b[K"+s)
	v.status = true
}

func (v *view) clearStatus() {
	if v.status {
		_, _ = io.WriteString(v.w, "\r\x1b[K") // best-effort, as showStatus
		v.status = false
	}
}

// termSize is the size of the terminal w writes to, or 80x24.
func termSize(w io.Writer) (width, height int) {
	if l, ok := w.(*lockedOut); ok {
		w = l.w
	}
	if f, ok := w.(*os.File); ok {
		if wd, ht, err := readline.GetSize(int(f.Fd())); err == nil && wd > 0 && ht > 0 {
			return wd, ht
		}
	}
	return 80, 24
}

// viewSink adapts a view to connector.Sink.
type viewSink struct{ v *view }

func (s viewSink) Open(context.Context) error { return nil }

func (s viewSink) Write(_ context.Context, rows row.Batch) error {
	return s.v.write(rows)
}

func (s viewSink) Flush(context.Context) error { return nil }
func (s viewSink) Close() error                { return nil }

// textTable prints small result tables (SHOW, DESCRIBE, SET) with borders,
// as the Flink SQL client does.
type textTable struct {
	header []string
	right  []bool // right-align this column
	min    []int  // the least width of a column, so that it does not jump
	rows   [][]string
}

func (t *textTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *textTable) write(w io.Writer) {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = len(h)
		if i < len(t.min) {
			widths[i] = max(widths[i], t.min[i])
		}
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	border := func() {
		for _, wd := range widths {
			b.WriteString("+" + strings.Repeat("-", wd+2))
		}
		b.WriteString("+\n")
	}
	line := func(cells []string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-len(c))
			if i < len(t.right) && t.right[i] {
				b.WriteString("| " + pad + c + " ")
			} else {
				b.WriteString("| " + c + pad + " ")
			}
		}
		b.WriteString("|\n")
	}
	border()
	line(t.header)
	border()
	for _, r := range t.rows {
		line(r)
	}
	border()
	fmt.Fprintf(&b, "%s in set\n", plural(len(t.rows), "row"))
	// Shell output, like the fmt.Fprint calls around the callers: a failed
	// write to the shell's own stdout has nowhere better to be reported.
	_, _ = io.WriteString(w, b.String())
}
