package oracle

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/eval"
)

// TestLagAgainstModel checks LAG(x [, offset [, default]]) OVER (PARTITION
// BY … ORDER BY time) against a brute-force model on random tables, at
// parallelism 1 and 4, ordered by an event-time attribute (rows leave as
// the watermark passes them) and by a PROCTIME() column of a view (rows
// leave as they come). The model sorts each partition by time (arrival
// order among equal times) and takes, for each row, the value offset rows
// before the last row of its time: rows of one time are peers of the
// default RANGE frame and share their result, as in Flink's
// OverAggregateITCase.testLagFunction. COUNT(*) over the same window is
// checked beside it (the number of rows up to the row's time).
func TestLagAgainstModel(t *testing.T) {
	dir := t.TempDir()
	for seed := int64(1); seed <= 60; seed++ {
		c := genLagCase(rand.New(rand.NewSource(seed)))
		if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(c.job), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{1, 4} {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			res, err := runEngine(ctx, dir, p)
			cancel()
			if err != nil {
				t.Fatalf("seed %d, parallelism %d: %v\njob:\n%s", seed, p, err, c.job)
			}
			var got []string
			for _, r := range res.rows {
				parts := make([]string, len(r))
				for i, v := range r {
					parts[i] = "NULL"
					if !v.IsNull() {
						parts[i] = eval.FormatValue(v, res.cols[i].Type)
					}
				}
				got = append(got, strings.Join(parts, "|"))
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("seed %d, parallelism %d: streamsql and the model differ\njob:\n%s\ndata:\n%s\nwant (model):\n  %s\ngot (streamsql):\n  %s",
					seed, p, c.job, c.data, strings.Join(c.want, "\n  "), strings.Join(got, "\n  "))
			}
		}
	}
}

type lagCase struct {
	job, data string
	want      []string
}

type lagRec struct {
	id  int64
	k   string // "" for NULL
	x   string // "NULL" or a number
	ts  int64
	pos int // arrival position
}

// genLagCase draws a table t (id unique, k with few values and NULLs, x
// INT with NULLs, ts with ties and disorder the watermark covers, so no
// row is late) and a LAG query over it, and computes the model's answer.
func genLagCase(r *rand.Rand) *lagCase {
	n := 1 + r.Intn(40)
	proc := r.Intn(3) == 0
	var recs []*lagRec
	var lines []string
	for i := 0; i < n; i++ {
		x := &lagRec{id: int64(i + 1), x: "NULL", pos: i}
		if r.Intn(6) > 0 {
			x.k = string(rune('a' + r.Intn(3)))
		}
		if r.Intn(6) > 0 {
			x.x = fmt.Sprint(r.Intn(100))
		}
		// Times in seconds, ties likely, up to 3 s of disorder (the
		// watermark allows 5 s).
		x.ts = epoch + int64(i/2)*1000 - int64(r.Intn(4))*1000
		recs = append(recs, x)
		k := "null"
		if x.k != "" {
			k = fmt.Sprintf("%q", x.k)
		}
		xs := x.x
		if xs == "NULL" {
			xs = "null"
		}
		lines = append(lines, fmt.Sprintf(`{"id":%d,"k":%s,"x":%s,"ts":%q}`, x.id, k, xs, tsText(x.ts)))
	}
	c := &lagCase{data: strings.Join(lines, "\n") + "\n"}
	offset := 1
	call := "LAG(x)"
	def := "NULL"
	switch r.Intn(4) {
	case 1:
		offset = r.Intn(4)
		call = fmt.Sprintf("LAG(x, %d)", offset)
	case 2:
		offset = r.Intn(4)
		def = fmt.Sprint(-1 - r.Intn(5))
		call = fmt.Sprintf("LAG(x, %d, %s)", offset, def)
	case 3:
		offset = 1 + r.Intn(2)
		def = "-7"
		call = fmt.Sprintf("LAG(x, %d, CAST(-7 AS BIGINT))", offset)
	}
	part := r.Intn(3) > 0
	partBy := ""
	if part {
		partBy = "PARTITION BY k "
	}
	order := "ts"
	c.job = "CREATE TABLE t (id BIGINT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) " +
		"WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');\n"
	from := "t"
	if proc {
		order = "pt"
		if r.Intn(2) == 0 {
			c.job += "CREATE VIEW v AS SELECT id, k, x, PROCTIME() AS pt FROM t;\n"
			from = "v"
		} else {
			c.job += "WITH v AS (SELECT id, k, x, PROCTIME() AS pt FROM t)\n"
			from = "v"
		}
	}
	c.job += fmt.Sprintf("SELECT id, %s AS prev, COUNT(*) OVER w AS cnt FROM %s WINDOW w AS (%sORDER BY %s);\n", call+" OVER w", from, partBy, order)

	// The model.
	groups := map[string][]*lagRec{}
	for _, x := range recs {
		key := ""
		if part {
			key = "k=" + x.k
		}
		groups[key] = append(groups[key], x)
	}
	for _, g := range groups {
		if !proc {
			sort.SliceStable(g, func(i, j int) bool { return g[i].ts < g[j].ts })
		} else {
			sort.SliceStable(g, func(i, j int) bool { return g[i].pos < g[j].pos })
		}
		for i, x := range g {
			// The last peer: over event time, the last row of x's time;
			// over processing time, every row is its own.
			last := i
			for !proc && last+1 < len(g) && g[last+1].ts == x.ts {
				last++
			}
			prev := def
			if last-offset >= 0 {
				prev = g[last-offset].x
			}
			c.want = append(c.want, fmt.Sprintf("%d|%s|%d", x.id, prev, last+1))
		}
	}
	slices.Sort(c.want)
	return c
}

// TestLagFlinkExample runs the rows of Flink's
// OverAggregateITCase.testLagFunction and expects Flink's published result:
// the rows of time 14000003 (b = 4 and 5) are peers and both get LAG 4.
// Flink's rows carry times in ms since the epoch; the watermark here lags
// by 1 minute, so that, as in Flink's test, no row is late.
func TestLagFlinkExample(t *testing.T) {
	dir := t.TempDir()
	job := "CREATE TABLE t1 (a INT, b BIGINT, c STRING, rowtime TIMESTAMP(3), WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE) " +
		"WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');\n" +
		"SELECT a, b, c, LAG(b) OVER (PARTITION BY a ORDER BY rowtime), LAG(b, 2) OVER (PARTITION BY a ORDER BY rowtime), " +
		"LAG(b, 2, CAST(10086 AS BIGINT)) OVER (PARTITION BY a ORDER BY rowtime) FROM t1;\n"
	var lines []string
	for _, r := range []struct {
		ms   int64
		b    int
		text string
	}{{14000001, 1, "Hi"}, {14000005, 2, "Hi"}, {14000002, 3, "Hello"}, {14000003, 4, "Hello"}, {14000003, 5, "Hello"},
		{14000021, 6, "Hello world"}, {14000022, 7, "Hello world"}} {
		lines = append(lines, fmt.Sprintf(`{"a":1,"b":%d,"c":%q,"rowtime":%q}`, r.b, r.text, tsText(r.ms)))
	}
	if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Flink's expected rows, with its "null" as NULL.
	want := []string{"1|1|Hi|NULL|NULL|10086", "1|3|Hello|1|NULL|10086", "1|4|Hello|4|3|3", "1|5|Hello|4|3|3",
		"1|2|Hi|5|4|4", "1|6|Hello world|2|5|5", "1|7|Hello world|6|2|2"}
	slices.Sort(want)
	for _, p := range []int{1, 4} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := runEngine(ctx, dir, p)
		cancel()
		if err != nil {
			t.Fatalf("parallelism %d: %v", p, err)
		}
		var got []string
		for _, r := range res.rows {
			parts := make([]string, len(r))
			for i, v := range r {
				parts[i] = "NULL"
				if !v.IsNull() {
					parts[i] = eval.FormatValue(v, res.cols[i].Type)
				}
			}
			got = append(got, strings.Join(parts, "|"))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("parallelism %d: got\n  %s\nwant (Flink's OverAggregateITCase.testLagFunction)\n  %s", p, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}
