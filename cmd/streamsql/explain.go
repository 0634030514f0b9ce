package main

import (
	"fmt"
	"io"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/planner"
)

var explainCmd = &command{
	name:    "explain",
	summary: "show the plans with changelog modes, keys and state retention",
	help: `usage: streamsql explain [--set key=value]... FILE.sql

Explain plans the job in FILE.sql without running it and prints, for every
INSERT, SELECT and EXPLAIN statement, two sections, as Flink's EXPLAIN does.
"== Optimized Logical Plan ==" is the plan as a tree: one operator a line,
with its changelog mode ([+I] append-only; [+I,-U,+U,-D] with retractions),
its unique keys, its time attributes, and under each stateful operator what
it keeps and when a row leaves ("left rows: until watermark > order_time +
4h", "UNBOUNDED: every row of both inputs is kept forever"). The rewrite
rules that fired, and why, follow it. "== Physical Plan ==" is what the
runtime builds: each operator with its ID in brackets (stable across runs
of the job) and what it is built from (join keys cast to the type they compare in, state TTL per side, how
far an interval join holds the watermark back, the columns each source
decodes).

Diagnostics go to stderr, as 'streamsql check' prints them.

Flags:
  --set key=value     a configuration setting, as SET 'key' = 'value' at the
                      top of the file would make it (state retention follows
                      'table.exec.state.ttl'); repeat for several

Exit status:
  0  the plans were printed (warnings allowed)
  1  the job has errors (the plans that could be made are still printed)
  2  usage error, or FILE.sql could not be read

Example (from the repository's root):
  streamsql explain examples/payments.sql

  -- line 64:   INSERT INTO settled
  == Optimized Logical Plan ==
  Sink settled (print) accepts=[+I,-U,+U,-D] full rows  mode=[+I] time=[settle_time ROWTIME]
  └── Project o.order_id, account_id, amount, settlement_id, settle_time  mode=[+I] time=[settle_time ROWTIME]
      └── IntervalJoin INNER order_time - settle_time in [-4h, 0s], o.order_id = s.order_id  mode=[+I] time=[order_time ROWTIME, settle_time ROWTIME]
          │ watermark: held back 4h behind the inputs'
          │ state: left rows: until watermark > order_time + 4h
          │ state: right rows: until watermark > settle_time
  ...
  == Physical Plan ==
  Sink[sink-854acaf9] settled (print) accepts=[+I,-U,+U,-D] gets=[+I]
  └── Calc[calc-2caefd7f] select=[order_id, account_id, amount, settlement_id, settle_time]
      └── IntervalJoin[intervaljoin-1662dc9c] INNER(o, s) o.order_time - s.settle_time in [-4h, 0s] delay=4h keys=(o.order_id = s.order_id)
  ...
`,
	run: runExplain,
}

func runExplain(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	var sets setFlag
	fs.Var(&sets, "set", "configuration `key=value`; repeatable")
	file, exit, done := oneFile(c, fs, args, stdout, stderr)
	if done {
		return exit
	}
	base, ok := checkSetFlags(c, sets, stderr)
	if !ok {
		return exitUsage
	}
	j, err := checkJobFile(file, base)
	if err != nil {
		fmt.Fprintf(stderr, "streamsql %s: %v\n", c.name, err)
		return exitUsage
	}
	texts := planner.ExplainJob(j.Session.Plans)
	for i, p := range j.Session.Plans {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		line, _ := j.Source.Position(p.Stmt.Span().Start)
		fmt.Fprintf(stdout, "-- line %d: %s\n%s", line, firstLine(j.Source.Shown(line)), texts[i])
	}
	if err := diag.WriteText(stderr, j.Diags); err != nil {
		return exitUsage
	}
	if j.Diags.HasErrors() {
		return exitError
	}
	return 0
}

func firstLine(s string) string {
	const maxLen = 80
	if len(s) > maxLen {
		return s[:maxLen] + "..."
	}
	return s
}
