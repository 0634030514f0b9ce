package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
)

var reconcileCmd = &command{
	name:    "reconcile",
	summary: "compare what a sink holds with what the job computes, per key",
	help: `usage: streamsql reconcile [--sink NAME] [--format text|json] FILE.sql

Reconcile computes what the sink table NAME of the job in FILE.sql should
hold — the job's INSERT INTO NAME run over its inputs to their end, its
changes applied as the sink applies them (by PRIMARY KEY for an upsert
sink: the last row of each key) — and reads what the table holds now,
through its own connector as a source (a jdbc table, a file in json or
debezium-json, a Kafka topic read to 'scan.bounded.mode'), and compares
the two per key: the sink's PRIMARY KEY, or for a table without one the
whole row (counted: a row the table holds twice is one too many). Nothing
is written: the INSERT runs into memory only.

It prints each key that differs, in key order, with the rows on both sides:

  missing     the job computes the key, the table does not have it
  unexpected  the table has the key, the job does not compute it
  different   both have the key, with other rows (or more of them)

then the totals. The inputs of the INSERT must end (files, bounded reads);
every table the job reads is read again, as the job would.

Flags:
  --sink NAME          the table to reconcile; needed when the job writes
                       several
  --format text|json   text (the default) or one JSON object with the keys
                       that differ, their rows ({column: value}, values in
                       their text form, NULL as null) and the totals

Exit status:
  0  the table holds exactly what the job computes
  1  they differ
  2  usage error, FILE.sql could not be read or has errors, an input does
     not end, or the job or the read failed

Examples (from the repository's root):
  streamsql reconcile examples/ledger.sql
  streamsql reconcile --sink ledger --format json examples/ledger.sql
`,
	run: runReconcile,
}

func runReconcile(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	sinkName := fs.String("sink", "", "the sink table to reconcile")
	outFormat := fs.String("format", "text", "text or json")
	file, exit, done := oneFile(c, fs, args, stdout, stderr)
	if done {
		return exit
	}
	if *outFormat != "text" && *outFormat != "json" {
		return usageError(c, stderr, fmt.Sprintf("--format %s: want text or json", *outFormat))
	}
	fail := func(f string, a ...any) int {
		fmt.Fprintf(stderr, "streamsql reconcile: "+f+"\n", a...)
		return exitUsage
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fail("%v", err)
	}
	src := diag.NewSource(file, string(data))
	j := frontend.CheckJob(src)
	checkConnectors(j.Session.Plans, filepath.Dir(file), j.Diags)
	j.Diags.Sort()
	if j.Diags.HasErrors() {
		_ = diag.WriteText(stderr, j.Diags)
		return fail("%s has %s; nothing was compared", file, plural(j.Diags.Errors(), "error"))
	}
	// The INSERT to recompute.
	var inserts []*planner.Plan
	var names []string
	for _, p := range j.Session.Plans {
		if s, ok := p.Root.(*logical.Sink); ok && p.Explain == nil {
			if *sinkName == "" || s.Table.Name == *sinkName {
				inserts = append(inserts, p)
			}
			names = append(names, s.Table.Name)
		}
	}
	switch {
	case len(names) == 0:
		return fail("%s has no INSERT INTO: there is no sink to reconcile", file)
	case len(inserts) == 0:
		return usageError(c, stderr, fmt.Sprintf("--sink %s: the job writes %s", *sinkName, strings.Join(names, ", ")))
	case len(inserts) > 1 && *sinkName == "":
		return usageError(c, stderr, fmt.Sprintf("the job writes several tables (%s): name one with --sink", strings.Join(names, ", ")))
	case len(inserts) > 1:
		return fail("the job has %d INSERTs INTO %s; reconcile compares one INSERT's result", len(inserts), *sinkName)
	}
	plan := inserts[0]
	t := plan.Root.(*logical.Sink).Table
	cols := t.SinkColumns()
	keyCols := sinkKeyColumns(t, cols)
	upsert := t.Config != nil && t.Config.SinkMode() == connectors.Upsert

	opts := jobOptions(plan.Settings)
	opts.BaseDir, opts.Stderr = filepath.Dir(file), stderr
	opts.Warn = func(msg string) { fmt.Fprintf(stderr, "streamsql reconcile: warning: %s\n", msg) }
	ctx, stopped := onSignal(stderr)
	defer stopped()

	// What the job computes.
	want := newTableState(keyCols, upsert)
	if err := runInto(ctx, []*planner.Plan{plan}, opts, want); err != nil {
		return fail("computing %s: %v", t.Name, err)
	}
	// What the table holds: SELECT its columns through its connector.
	var sel strings.Builder
	sel.WriteString("\nSELECT ")
	for i, col := range cols {
		if i > 0 {
			sel.WriteString(", ")
		}
		sel.WriteString(ast.QuoteIdent(col.Name))
	}
	sel.WriteString(" FROM " + ast.QuoteIdent(t.Name) + ";\n")
	rj := frontend.CheckJob(diag.NewSource(file, string(data)+sel.String()))
	var last *planner.Plan
	if n := len(rj.Session.Plans); n > 0 {
		last = rj.Session.Plans[n-1]
	}
	if rj.Diags.HasErrors() || last == nil || last.Explain != nil {
		_ = diag.WriteText(stderr, rj.Diags)
		return fail("table %s cannot be read back through its connector '%s'", t.Name, t.Connector())
	}
	got := newTableState(keyCols, false)
	if err := runInto(ctx, []*planner.Plan{last}, opts, got); err != nil {
		return fail("reading %s: %v", t.Name, err)
	}
	if sig := stopped(); sig != nil {
		return exitSignal(sig)
	}
	rep := compareTables(t.Name, t.Connector(), cols, keyCols, want, got)
	if *outFormat == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep.json()); err != nil {
			return fail("%v", err)
		}
	} else {
		rep.text(stdout)
	}
	if rep.Missing+rep.Unexpected+rep.Different > 0 {
		return exitError
	}
	return exitOK
}

// sinkKeyColumns maps the table's primary key to indexes of cols; nil
// when it has none.
func sinkKeyColumns(t *catalog.Table, cols []connector.Column) []int {
	var key []int
	for _, k := range t.PrimaryKey {
		for i, c := range cols {
			if c.Name == t.Columns[k].Name {
				key = append(key, i)
			}
		}
	}
	return key
}

// runInto runs the plans (one INSERT or SELECT) to their end with the
// sink replaced by st: nothing is written anywhere. Every source must end.
func runInto(ctx context.Context, plans []*planner.Plan, opts exec.Options, st *tableState) error {
	phys, err := planner.Lower(plans)
	if err != nil {
		return err
	}
	for _, p := range phys {
		var unbounded []string
		physical.Walk(p.Root, func(n physical.Node) {
			if s, ok := n.(*physical.Source); ok && !s.Bounded {
				unbounded = append(unbounded, fmt.Sprintf("%s (%s)", s.TableName, s.Spec.Connector))
			}
		})
		if len(unbounded) > 0 {
			return fmt.Errorf("input %s does not end; reconcile needs inputs that do (files, or Kafka with 'scan.bounded.mode' = 'latest-offset')",
				strings.Join(unbounded, ", "))
		}
		// The INSERT's rows go to st, as a SELECT's go to its view.
		p.Root.Query = true
	}
	opts.QuerySink = func(string, []connector.Column) connector.Sink { return st }
	job, err := exec.Build(ctx, phys, opts)
	if err != nil {
		return err
	}
	return job.Run(ctx)
}

// tableState is the content of a table applied from a changelog: per key,
// its rows. With upsert set (an upsert sink), +I and +U replace the key's
// row and -D (or -U) deletes the key, as the sink does; otherwise every
// row counts: +I and +U add a row, -U and -D remove one equal row.
type tableState struct {
	key    []int // nil: the key is the whole row
	upsert bool
	rows   map[string][]row.Row
	order  []string // keys in first-seen order
	seen   map[string]bool
	scrap  []byte
}

func newTableState(key []int, upsert bool) *tableState {
	return &tableState{key: key, upsert: upsert && key != nil, rows: map[string][]row.Row{}, seen: map[string]bool{}}
}

func (s *tableState) Open(context.Context) error { return nil }

func (s *tableState) Write(_ context.Context, b row.Batch) error {
	for _, r := range b {
		s.scrap = appendKey(s.scrap[:0], r.Vals, s.key)
		k := string(s.scrap)
		vals := slices.Clone(r.Vals)
		rows := s.rows[k]
		if !s.seen[k] {
			s.seen[k] = true
			s.order = append(s.order, k)
		}
		add := r.Kind == changelogmode.Insert || r.Kind == changelogmode.UpdateAfter
		switch {
		case s.upsert && add:
			s.rows[k] = []row.Row{{Kind: changelogmode.Insert, Vals: vals}}
		case s.upsert:
			delete(s.rows, k)
		case add:
			s.rows[k] = append(rows, row.Row{Kind: changelogmode.Insert, Vals: vals})
		default:
			for i, have := range rows {
				if sameVals(have.Vals, r.Vals) {
					s.rows[k] = slices.Delete(rows, i, i+1)
					break
				}
			}
			if len(s.rows[k]) == 0 {
				delete(s.rows, k)
			}
		}
	}
	return nil
}

func (s *tableState) Flush(context.Context) error { return nil }
func (s *tableState) Close() error                { return nil }

// appendKey appends an encoding of vals (only the columns cols, or all)
// equal exactly when the values are equal as SQL's = compares them
// (row.AppendKey: -0.0 is 0.0).
func appendKey(b []byte, vals []row.Value, cols []int) []byte {
	if cols == nil {
		return row.AppendKey(b, vals...)
	}
	for _, c := range cols {
		b = row.AppendKey(b, vals[c])
	}
	return b
}

// sameVals compares rows' values as SQL's = does, NULL equal to NULL.
func sameVals(a, b []row.Value) bool {
	return slices.EqualFunc(a, b, func(x, y row.Value) bool {
		if x.Kind() == row.Float && y.Kind() == row.Float {
			var kx, ky [9]byte
			return string(row.AppendKey(kx[:0], x)) == string(row.AppendKey(ky[:0], y))
		}
		return x.Equal(y)
	})
}

// reconcileReport is the comparison of two tables.
type reconcileReport struct {
	Table, Connector               string
	cols                           []connector.Column
	keyCols                        []int
	Computed, Held                 int // keys
	Equal                          int
	Missing, Unexpected, Different int
	diffs                          []keyDiff
}

type keyDiff struct {
	kind      string // missing, unexpected, different
	key       []row.Value
	want, got []row.Row
}

// compareTables compares what the job computes (want) with what the
// table holds (got), key by key; the differences are listed in key order
// (values compared as row.Value.Compare does, NULL first), so that a
// report does not depend on the order the job's partitions ran in.
func compareTables(name, conn string, cols []connector.Column, keyCols []int, want, got *tableState) *reconcileReport {
	rep := &reconcileReport{Table: name, Connector: conn, cols: cols, keyCols: keyCols, Computed: len(want.rows), Held: len(got.rows)}
	keyOf := func(rows []row.Row) []row.Value {
		if keyCols == nil {
			return rows[0].Vals
		}
		var k []row.Value
		for _, c := range keyCols {
			k = append(k, rows[0].Vals[c])
		}
		return k
	}
	for _, k := range want.order {
		w, ok := want.rows[k]
		if !ok {
			continue
		}
		g, held := got.rows[k]
		switch {
		case !held:
			rep.Missing++
			rep.diffs = append(rep.diffs, keyDiff{kind: "missing", key: keyOf(w), want: w})
		case sameRows(w, g):
			rep.Equal++
		default:
			rep.Different++
			rep.diffs = append(rep.diffs, keyDiff{kind: "different", key: keyOf(w), want: w, got: g})
		}
	}
	for _, k := range got.order {
		g, ok := got.rows[k]
		if _, computed := want.rows[k]; !ok || computed {
			continue
		}
		rep.Unexpected++
		rep.diffs = append(rep.diffs, keyDiff{kind: "unexpected", key: keyOf(g), got: g})
	}
	slices.SortStableFunc(rep.diffs, func(a, b keyDiff) int {
		for i := range min(len(a.key), len(b.key)) {
			if c := a.key[i].Compare(b.key[i]); c != 0 {
				return c
			}
		}
		return len(a.key) - len(b.key)
	})
	return rep
}

// sameRows compares two lists of rows as multisets.
func sameRows(a, b []row.Row) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for i, y := range b {
			if !used[i] && sameVals(x.Vals, y.Vals) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (rep *reconcileReport) value(i int, v row.Value) string {
	if v.IsNull() {
		return "NULL"
	}
	return string(format.AppendText(nil, rep.cols[i].Type, v))
}

// keyText renders a key: order_id=17, or the whole row for a table without
// a key.
func (rep *reconcileReport) keyText(key []row.Value) string {
	var parts []string
	if rep.keyCols == nil {
		return rep.rowText(key)
	}
	for i, c := range rep.keyCols {
		parts = append(parts, rep.cols[c].Name+"="+rep.value(c, key[i]))
	}
	return strings.Join(parts, ", ")
}

func (rep *reconcileReport) rowText(vals []row.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = rep.value(i, v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (rep *reconcileReport) rowsText(rows []row.Row) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = rep.rowText(r.Vals)
	}
	return strings.Join(parts, " ")
}

func (rep *reconcileReport) text(w io.Writer) {
	keyed := "by key (" + rep.keyNames() + ")"
	if rep.keyCols == nil {
		keyed = "by whole row (the table has no PRIMARY KEY)"
	}
	fmt.Fprintf(w, "reconcile %s (%s), %s: the job computes %d keys, the table holds %d\n", rep.Table, rep.Connector, keyed, rep.Computed, rep.Held)
	for _, d := range rep.diffs {
		switch d.kind {
		case "missing":
			fmt.Fprintf(w, "missing     %s: computed %s\n", rep.keyText(d.key), rep.rowsText(d.want))
		case "unexpected":
			fmt.Fprintf(w, "unexpected  %s: held %s\n", rep.keyText(d.key), rep.rowsText(d.got))
		default:
			fmt.Fprintf(w, "different   %s: computed %s, held %s\n", rep.keyText(d.key), rep.rowsText(d.want), rep.rowsText(d.got))
		}
	}
	fmt.Fprintf(w, "%d equal, %d missing, %d unexpected, %d different\n", rep.Equal, rep.Missing, rep.Unexpected, rep.Different)
}

func (rep *reconcileReport) keyNames() string {
	var names []string
	for _, c := range rep.keyCols {
		names = append(names, rep.cols[c].Name)
	}
	return strings.Join(names, ", ")
}

func (rep *reconcileReport) json() any {
	obj := func(vals []row.Value, cols []int) map[string]any {
		m := map[string]any{}
		for i, v := range vals {
			c := i
			if cols != nil {
				c = cols[i]
			}
			if v.IsNull() {
				m[rep.cols[c].Name] = nil
			} else {
				m[rep.cols[c].Name] = rep.value(c, v)
			}
		}
		return m
	}
	rows := func(rs []row.Row) []map[string]any {
		out := []map[string]any{}
		for _, r := range rs {
			out = append(out, obj(r.Vals, nil))
		}
		return out
	}
	type diff struct {
		Kind     string           `json:"kind"`
		Key      map[string]any   `json:"key"`
		Computed []map[string]any `json:"computed"`
		Held     []map[string]any `json:"held"`
	}
	diffs := []diff{}
	for _, d := range rep.diffs {
		diffs = append(diffs, diff{Kind: d.kind, Key: obj(d.key, rep.keyCols), Computed: rows(d.want), Held: rows(d.got)})
	}
	var key []string
	for _, c := range rep.keyCols {
		key = append(key, rep.cols[c].Name)
	}
	return map[string]any{
		"sink": rep.Table, "connector": rep.Connector, "key": key,
		"computed_keys": rep.Computed, "held_keys": rep.Held,
		"equal": rep.Equal, "missing": rep.Missing, "unexpected": rep.Unexpected, "different": rep.Different,
		"differences": diffs,
	}
}
