package exec

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// TestGroupAggregateRetractionMatchesReference: every aggregate function of
// the registry, with and without DISTINCT, over random changelogs (inserts,
// deletes, updates as -U/+U that may move a row to another group, NULLs in
// every column), against a brute-force model that recomputes each group from
// the rows that survive. In memory, with every group spilled to Badger
// (a one-byte budget), and at 4 partitions.
//
// FIRST_VALUE, LAST_VALUE and LISTAGG depend on order. Their model is
// Flink's (FirstValueWithRetractAggFunction, LastValueWithRetractAggFunction,
// ListAggWithRetractAggFunction): a group's non-NULL values in arrival
// order, a retraction taking out the oldest equal value. ARRAY_AGG's
// (ArrayAggFunction) is the same with the NULLs kept.
func TestGroupAggregateRetractionMatchesReference(t *testing.T) {
	const query = "SELECT g, COUNT(*), COUNT(v), COUNT(DISTINCT v), SUM(v), SUM(DISTINCT v), AVG(v), AVG(DISTINCT v), " +
		"MIN(v), MAX(v), MAX(DISTINCT v), FIRST_VALUE(v), LAST_VALUE(v), MIN(s), MAX(s), FIRST_VALUE(s), LAST_VALUE(s), " +
		"LISTAGG(s), LISTAGG(s, '|'), SUM(d), AVG(d), MIN(d), MAX(d), SUM(c), AVG(c), MIN(c), SUM(DISTINCT c), " +
		"VAR_POP(v), VAR_SAMP(v), STDDEV_POP(v), STDDEV_SAMP(v), VAR_POP(d), STDDEV_SAMP(d), ARRAY_AGG(v), ARRAY_AGG(s), " +
		"ARRAY_AGG(s) FILTER (WHERE v > 0) " +
		"FROM t GROUP BY g;\n"
	for _, mode := range []string{"memory", "spill", "parallel"} {
		for seed := int64(1); seed <= 60; seed++ {
			if mode != "memory" && seed > 15 {
				break
			}
			r := rand.New(rand.NewSource(seed))
			m := newAggModel()
			var changes []aggChange
			var live []aggTRow
			for n := 0; n < 40+r.Intn(80); n++ {
				switch x := r.Intn(6); {
				case x < 2 && len(live) > 0:
					i := r.Intn(len(live))
					changes = append(changes, aggChange{"-D", live[i]})
					live = slices.Delete(live, i, i+1)
				case x == 2 && len(live) > 0:
					i := r.Intn(len(live))
					y := randAggTRow(r)
					changes = append(changes, aggChange{"-U", live[i]}, aggChange{"+U", y})
					live[i] = y
				default:
					y := randAggTRow(r)
					changes = append(changes, aggChange{"+I", y})
					live = append(live, y)
				}
			}
			for _, c := range changes {
				m.apply(c)
			}
			want := m.table(live)
			var got []string
			var script string
			switch mode {
			case "parallel":
				var data row.Batch
				for _, c := range changes {
					k, _ := changelogmode.ParseKind(c.kind)
					data = append(data, row.Row{Kind: k, Vals: c.row.values()})
				}
				path := fmt.Sprintf("aggref-%d.json", seed)
				setData(path, data)
				got = runJob(t, fmt.Sprintf("CREATE TABLE t (g STRING, v INT, s STRING, d DOUBLE, c DECIMAL(6, 2)) "+
					"WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');\n", path)+query, 4)
			default:
				var b strings.Builder
				b.WriteString("CREATE TABLE t (g STRING, v INT, s STRING, d DOUBLE, c DECIMAL(6, 2)) " +
					"WITH ('connector' = 'filesystem', 'path' = 'script', 'format' = 'debezium-json');\n")
				if mode == "spill" {
					b.WriteString("SET 'state.memory-budget' = '1b';\n")
				}
				b.WriteString(query + "=== events\n")
				for _, c := range changes {
					fmt.Fprintf(&b, "t %s %s\n", c.kind, c.row.text())
				}
				b.WriteString("t end\n")
				script = b.String()
				out, err := runScript(script)
				if err != nil {
					t.Fatalf("%s seed %d: %v\n%s", mode, seed, err, script)
				}
				if mode == "spill" && !strings.Contains(out, "(state spilled to disk)") {
					t.Fatalf("seed %d: a one-byte budget did not spill", seed)
				}
				got = materialize(t, out)
			}
			if joinLines(got) != joinLines(want) {
				t.Fatalf("%s seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s\nscript:\n%s",
					mode, seed, joinLines(got), joinLines(want), script)
			}
		}
	}
}

// aggTRow is a row of t; nil is NULL. c is in hundredths.
type aggTRow struct {
	g string
	v *int64
	s *string
	d *float64
	c *int64
}

type aggChange struct {
	kind string
	row  aggTRow
}

func randAggTRow(r *rand.Rand) aggTRow {
	x := aggTRow{g: fmt.Sprintf("g%d", r.Intn(3))}
	if r.Intn(6) > 0 {
		v := int64(r.Intn(11) - 5)
		x.v = &v
	}
	if r.Intn(6) > 0 {
		s := string(rune('a' + r.Intn(4)))
		x.s = &s
	}
	if r.Intn(6) > 0 {
		d := float64(r.Intn(9)-4) / 2 // halves: every sum is exact
		x.d = &d
	}
	if r.Intn(6) > 0 {
		c := int64(r.Intn(25)-12) * 25
		x.c = &c
	}
	return x
}

// text is the row as a script line's values.
func (x aggTRow) text() string {
	parts := []string{x.g, "null", "null", "null", "null"}
	if x.v != nil {
		parts[1] = strconv.FormatInt(*x.v, 10)
	}
	if x.s != nil {
		parts[2] = *x.s
	}
	if x.d != nil {
		parts[3] = strconv.FormatFloat(*x.d, 'f', 1, 64)
	}
	if x.c != nil {
		parts[4] = fmtCents(*x.c)
	}
	return strings.Join(parts, ", ")
}

func (x aggTRow) values() []row.Value {
	vals := []row.Value{row.StrValue(x.g), row.NullValue, row.NullValue, row.NullValue, row.NullValue}
	if x.v != nil {
		vals[1] = row.IntValue(*x.v)
	}
	if x.s != nil {
		vals[2] = row.StrValue(*x.s)
	}
	if x.d != nil {
		vals[3] = row.FloatValue(*x.d)
	}
	if x.c != nil {
		vals[4] = row.IntValue(*x.c)
	}
	return vals
}

func fmtCents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// fmtDouble prints a double as the engine's sinks do (Flink's: 1.0, -0.5).
func fmtDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// aggModel keeps, per group, the order-dependent lists (Flink's rule); the
// order-free aggregates are recomputed from the surviving rows.
type aggModel struct {
	vs, ss map[string][]string // FIRST_VALUE/LAST_VALUE(v), and of s (also LISTAGG)
	av, as map[string][]string // ARRAY_AGG(v), ARRAY_AGG(s): NULLs kept
	af     map[string][]string // ARRAY_AGG(s) FILTER (WHERE v > 0)
}

func newAggModel() *aggModel {
	return &aggModel{vs: map[string][]string{}, ss: map[string][]string{}, av: map[string][]string{}, as: map[string][]string{}, af: map[string][]string{}}
}

func (m *aggModel) apply(c aggChange) {
	retract := c.kind == "-D" || c.kind == "-U"
	upd := func(lists map[string][]string, val string) {
		l := lists[c.row.g]
		if !retract {
			lists[c.row.g] = append(l, val)
			return
		}
		if i := slices.Index(l, val); i >= 0 {
			lists[c.row.g] = slices.Delete(l, i, i+1)
		}
	}
	if c.row.v != nil {
		upd(m.vs, strconv.FormatInt(*c.row.v, 10))
	}
	if c.row.s != nil {
		upd(m.ss, *c.row.s)
	}
	v, s := "NULL", "NULL"
	if c.row.v != nil {
		v = strconv.FormatInt(*c.row.v, 10)
	}
	if c.row.s != nil {
		s = *c.row.s
	}
	upd(m.av, v)
	upd(m.as, s)
	if c.row.v != nil && *c.row.v > 0 {
		upd(m.af, s)
	}
}

// table is the query's result over the surviving rows, sorted.
func (m *aggModel) table(live []aggTRow) []string {
	groups := map[string][]aggTRow{}
	for _, x := range live {
		groups[x.g] = append(groups[x.g], x)
	}
	var out []string
	for g, rows := range groups {
		var vs, cs []int64
		var ss []string
		var ds []float64
		for _, x := range rows {
			if x.v != nil {
				vs = append(vs, *x.v)
			}
			if x.s != nil {
				ss = append(ss, *x.s)
			}
			if x.d != nil {
				ds = append(ds, *x.d)
			}
			if x.c != nil {
				cs = append(cs, *x.c)
			}
		}
		dvs, dcs := distinct(vs), distinct(cs)
		ints := func(xs []int64, f func([]int64) int64) string {
			if len(xs) == 0 {
				return "NULL"
			}
			return strconv.FormatInt(f(xs), 10)
		}
		sum := func(xs []int64) int64 {
			s := int64(0)
			for _, x := range xs {
				s += x
			}
			return s
		}
		avgTrunc := func(xs []int64) int64 { return sum(xs) / int64(len(xs)) }
		cents := func(xs []int64, f func([]int64) int64) string {
			if len(xs) == 0 {
				return "NULL"
			}
			return fmtCents(f(xs))
		}
		// AVG of a DECIMAL(6, 2) is a DECIMAL(38, 6) (Flink's
		// findAvgAggType): the sum in millionths over the count, rounded
		// half away from zero.
		avgMicros := func(xs []int64) string {
			if len(xs) == 0 {
				return "NULL"
			}
			s, n := sum(xs)*10_000, int64(len(xs))
			q, r := s/n, s%n
			if 2*max(r, -r) >= n {
				if s < 0 {
					q--
				} else {
					q++
				}
			}
			sign := ""
			if q < 0 {
				sign, q = "-", -q
			}
			return fmt.Sprintf("%s%d.%06d", sign, q/1_000_000, q%1_000_000)
		}
		strs := func(xs []string, f func([]string) string) string {
			if len(xs) == 0 {
				return "NULL"
			}
			return f(xs)
		}
		first := func(xs []string) string { return xs[0] }
		last := func(xs []string) string { return xs[len(xs)-1] }
		dbl := func(f func([]float64) float64) string {
			if len(ds) == 0 {
				return "NULL"
			}
			return fmtDouble(f(ds))
		}
		dsum := func(xs []float64) float64 {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return s
		}
		intsIf := func(ok bool, xs []int64, f func([]int64) int64) string {
			if !ok {
				return "NULL"
			}
			return ints(xs, f)
		}
		dblIf := func(ok bool, f func() float64) string {
			if !ok {
				return "NULL"
			}
			return fmtDouble(f())
		}
		cells := []string{
			g,
			strconv.Itoa(len(rows)),
			strconv.Itoa(len(vs)),
			strconv.Itoa(len(dvs)),
			ints(vs, sum),
			ints(dvs, sum),
			ints(vs, avgTrunc),
			ints(dvs, avgTrunc),
			ints(vs, slices.Min[[]int64]),
			ints(vs, slices.Max[[]int64]),
			ints(dvs, slices.Max[[]int64]),
			strs(m.vs[g], first),
			strs(m.vs[g], last),
			strs(ss, slices.Min[[]string]),
			strs(ss, slices.Max[[]string]),
			strs(m.ss[g], first),
			strs(m.ss[g], last),
			strs(m.ss[g], func(xs []string) string { return strings.Join(xs, ",") }),
			strs(m.ss[g], func(xs []string) string { return strings.Join(xs, "|") }),
			dbl(dsum),
			dbl(func(xs []float64) float64 { return dsum(xs) / float64(len(xs)) }),
			dbl(slices.Min[[]float64]),
			dbl(slices.Max[[]float64]),
			cents(cs, sum),
			avgMicros(cs),
			cents(cs, slices.Min[[]int64]),
			cents(dcs, sum),
			ints(vs, func(xs []int64) int64 { return flinkVar(xs, false) }),
			intsIf(len(vs) > 1, vs, func(xs []int64) int64 { return flinkVar(xs, true) }),
			ints(vs, func(xs []int64) int64 { return int64(math.Sqrt(float64(flinkVar(xs, false)))) }),
			intsIf(len(vs) > 1, vs, func(xs []int64) int64 { return int64(math.Sqrt(float64(flinkVar(xs, true)))) }),
			dbl(func(xs []float64) float64 { return floatVar(xs, false) }),
			dblIf(len(ds) > 1, func() float64 { return math.Sqrt(floatVar(ds, true)) }),
			strs(m.av[g], func(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }),
			strs(m.as[g], func(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }),
			strs(m.af[g], func(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }),
		}
		out = append(out, "["+strings.Join(cells, ", ")+"]")
	}
	sort.Strings(out)
	return out
}

// flinkVar is Flink's VAR_POP (VAR_SAMP when samp) of integers, as its
// AggregateReduceFunctionsRule writes it: (SUM(x*x) - SUM(x)*SUM(x) /
// COUNT(x)) / COUNT(x) [- 1], with integer divisions.
func flinkVar(xs []int64, samp bool) int64 {
	var s, s2 int64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	n := int64(len(xs))
	d := n
	if samp {
		d--
	}
	return (s2 - s*s/n) / d
}

// floatVar is the same over DOUBLEs.
func floatVar(xs []float64, samp bool) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	n := float64(len(xs))
	d := n
	if samp {
		d--
	}
	return max(0, (s2-s*s/n)/d)
}

func distinct(xs []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
