package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Runner checks cases: PostgreSQL's answer against streamsql's at
// parallelism 1 and 4.
type Runner struct {
	PG *PG
	// Dir is a scratch directory for the jobs' files.
	Dir string
	// Timeout bounds one run of streamsql (a job that does not end is a
	// failure, not a hung test).
	Timeout time.Duration
	// Features are those the cases were generated with: a shrunk case
	// must not use one that is off.
	Features Features
	runs     int
}

// Failure is a case on which streamsql and PostgreSQL disagree, or on
// which streamsql did not get to an answer.
type Failure struct {
	Case *Case
	// Class says what went wrong: mismatch (different rows), changelog
	// (a retraction of a row the query does not have, or a sink written
	// concurrently), type (an output column of another type than Flink's),
	// late (rows counted late although none is), plan or run (streamsql
	// refused or failed the job), pg (PostgreSQL refused the query: a bug
	// of the oracle).
	Class       string
	Parallelism int
	Detail      string
	// Shrunk is the minimized case, when shrinking found a smaller one.
	Shrunk *Failure
}

func (f *Failure) Error() string {
	return fmt.Sprintf("seed %d: %s at parallelism %d", f.Case.Seed, f.Class, f.Parallelism)
}

// Report is the failure as a reproduction: the seed, what differed, the
// job file, its input files and the PostgreSQL script.
func (f *Failure) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "oracle: seed %d: %s at parallelism %d\n", f.Case.Seed, f.Class, f.Parallelism)
	fmt.Fprintf(&b, "rerun: go test ./oracle -run 'TestOracle$' -oracle.seed=%d -oracle.cases=1\n", f.Case.Seed)
	shown := f
	if f.Shrunk != nil {
		shown = f.Shrunk
		b.WriteString("shrunk to a smaller case that fails the same way:\n")
	}
	b.WriteString(shown.Detail)
	if !strings.HasSuffix(shown.Detail, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(shown.Case.Files())
	return b.String()
}

// Files prints the job file, its inputs, and the PostgreSQL script.
func (c *Case) Files() string {
	var b strings.Builder
	b.WriteString("--- job.sql\n" + c.jobSQL())
	for _, t := range c.tables {
		b.WriteString("--- " + t.file() + "\n")
		for _, l := range t.lines() {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("--- PostgreSQL\n" + c.pgScript())
	return b.String()
}

// Check runs a case: PostgreSQL, then streamsql at each parallelism
// (only is one of them, or 0 for both). It returns the failure, or an
// error when the harness itself cannot go on (PostgreSQL went away).
func (r *Runner) Check(ctx context.Context, c *Case, only int) (*Failure, error) {
	if err := c.q.typecheck(); err != nil {
		return nil, fmt.Errorf("seed %d: the generator made an invalid query: %w", c.Seed, err)
	}
	want, err := r.PG.answer(ctx, c)
	if err != nil {
		if r.PG.conn.IsClosed() || ctx.Err() != nil {
			return nil, fmt.Errorf("PostgreSQL: %w", err)
		}
		return &Failure{Case: c, Class: "pg", Detail: "PostgreSQL refused the query (a bug of the oracle):\n" + err.Error()}, nil
	}
	r.runs++
	dir := filepath.Join(r.Dir, fmt.Sprintf("case%d", r.runs))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := c.writeFiles(dir); err != nil {
		return nil, err
	}
	for _, p := range []int{1, 4} {
		if only != 0 && p != only || p == 4 && c.p1only {
			continue
		}
		if f := r.checkAt(ctx, c, dir, p, want); f != nil {
			return f, nil
		}
	}
	return nil, nil
}

func (r *Runner) checkAt(ctx context.Context, c *Case, dir string, p int, want result) *Failure {
	fail := func(class, format string, args ...any) *Failure {
		return &Failure{Case: c, Class: class, Parallelism: p, Detail: fmt.Sprintf(format, args...)}
	}
	rctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	res, err := runEngine(rctx, dir, p)
	if err != nil {
		var ee *engineError
		if errors.As(err, &ee) {
			return fail(ee.class, "streamsql: %s", ee.msg)
		}
		return fail("run", "streamsql: %v", err)
	}
	out := c.q.out.cols
	if len(res.cols) != len(out) {
		return fail("type", "streamsql's query has %d columns (%s), the model %d", len(res.cols), describeCols(res.cols), len(out))
	}
	for i, oc := range out {
		if !sameFamily(res.cols[i].Type, oc.t) {
			var model []string
			for _, o := range out {
				model = append(model, o.name+" "+o.t.String())
			}
			return fail("type", "column %s: streamsql's type is %s, Flink's %s\nstreamsql: %s\nFlink:     %s",
				oc.name, res.cols[i].Type, oc.t, describeCols(res.cols), strings.Join(model, ", "))
		}
	}
	if res.late > 0 {
		return fail("late", "streamsql counted %d rows late; the inputs' disorder stays within their watermark delays", res.late)
	}
	got, err := engineRows(res)
	if err != nil {
		return fail("type", "%v", err)
	}
	missing, extra := diff(want, got)
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "PostgreSQL has %d rows, streamsql %d (from %d changes)\n", len(want), len(got), res.changes)
	show := func(title string, rows result) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(rows))
		for i, r := range sortedRows(rows) {
			if i == 20 {
				fmt.Fprintf(&b, "  ... %d more\n", len(rows)-20)
				break
			}
			b.WriteString("  " + r + "\n")
		}
	}
	show("only in PostgreSQL's answer", missing)
	show("only in streamsql's answer", extra)
	return fail("mismatch", "%s", b.String())
}

// Shrink looks for a smaller case that fails the same way (same class,
// same parallelism): fewer rows, fewer columns, a simpler query. It stops
// after budget candidate runs.
func (r *Runner) Shrink(ctx context.Context, f *Failure, budget int) (*Failure, error) {
	best := f
	for budget > 0 {
		improved := false
		for _, cand := range candidates(best.Case) {
			if budget <= 0 || ctx.Err() != nil {
				break
			}
			if cand.q.typecheck() != nil || r.Features.allow(cand.q) != nil {
				continue
			}
			budget--
			nf, err := r.Check(ctx, cand, best.Parallelism)
			if err != nil {
				return nil, err
			}
			if nf != nil && nf.Class == best.Class && nf.Parallelism == best.Parallelism {
				best = nf
				improved = true
				break
			}
		}
		if !improved {
			break
		}
	}
	if best == f {
		return nil, nil
	}
	return best, nil
}
