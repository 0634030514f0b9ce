package main

import (
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The scaling table (issue #18): the 4-hour interval join and the regular
// join of orders ⋈ shipments at growing key counts, to show how the cost
// per event moves as state grows. BENCH_SCALE=1 (make bench-scale) adds
// these queries, one per join and size:
//
//	scale-ij-<keys>   interval join, shipment within 4 hours of its order
//	scale-rj-<keys>   regular join on order_id, no bound: every row stays
//
// The sizes are BENCH_SCALE_KEYS (1000000,4000000,10000000). Each size has
// its own data (data/scale-<keys>/): the orders are spread over the same
// 10,000 seconds of event time whatever their number (100 a second at 1M,
// 1,000 at 10M), so the 4-hour join also holds every order until the end
// of input and its state grows with the keys, as the regular join's does.
// The runs use the job's default budget (1gb, so state stays in memory
// where it fits and spills beyond), or BENCH_SCALE_BUDGET.

// scaleSpan is the event time over which a scale run's orders are spread,
// in seconds: under the 4-hour bound.
const scaleSpan = 10_000

func scaleKeys() []int64 {
	v := envStr("BENCH_SCALE_KEYS", "1000000,4000000,10000000")
	var keys []int64
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(f), "_", ""), 10, 64)
		if err != nil || n < scaleSpan {
			fatalf("BENCH_SCALE_KEYS=%q: want comma-separated whole numbers of at least %d", v, scaleSpan)
		}
		keys = append(keys, n)
	}
	return keys
}

// keysName is a key count as a query name shows it: 1m, 4m, 250k.
func keysName(n int64) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.FormatInt(n/1_000_000, 10) + "m"
	case n%1000 == 0:
		return strconv.FormatInt(n/1000, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// scaleQueries are the scaling queries for the sizes of BENCH_SCALE_KEYS,
// interval joins first.
func scaleQueries() []query {
	budget := os.Getenv("BENCH_SCALE_BUDGET")
	var qs []query
	for _, join := range []string{"ij", "rj"} {
		for _, n := range scaleKeys() {
			dir := "data/scale-" + strconv.FormatInt(n, 10)
			q := query{
				name: "scale-" + join + "-" + keysName(n), budget: budget, scale: true,
				events:  func(config) int64 { return 2 * n },
				prepare: func(c config) error { return genScaleData(filepath.Join(c.dir, dir), n) },
			}
			on := " AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '4' HOUR"
			q.note = fmt.Sprintf("orders-4h's interval join at %d keys, orders spread over %d s of event time "+
				"(under the bound: nearly every order is in state at the peak).", n, scaleSpan)
			if join == "rj" {
				on = ""
				q.note = fmt.Sprintf("orders ⋈ shipments as a regular join on order_id at %d keys: no bound, "+
					"every row of both sides stays in state.", n)
			}
			ddl := strings.NewReplacer("'data/orders.json'", "'"+dir+"/orders.json'",
				"'data/shipments_4h.json'", "'"+dir+"/shipments_4h.json'").Replace(ordersDDL("shipments_4h.json"))
			q.sql = func(config) string {
				return ddl + `INSERT INTO shipped
SELECT o.order_id, o.customer, o.amount, s.ship_id, s.carrier, s.ship_time
FROM orders o JOIN shipments s
  ON o.order_id = s.order_id` + on + ";\n"
			}
			qs = append(qs, q)
		}
	}
	return qs
}

// genScaleData writes n orders spread over scaleSpan seconds and one
// shipment for each within 4 hours after it, in ship-time order, to dir
// (once: the files are deterministic and kept).
func genScaleData(dir string, n int64) error {
	stamp := filepath.Join(dir, "keys")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == strconv.FormatInt(n, 10) {
		return nil
	}
	fmt.Fprintf(os.Stderr, "bench: generating %d orders and shipments in %s\n", n, dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	orderTime := func(i int64) int64 { return base + i*scaleSpan*1000/n }
	r := mrand.New(mrand.NewPCG(7, 11))
	err := writeLines(filepath.Join(dir, "orders.json"), n, func(b []byte, i int64) []byte {
		return fmt.Appendf(b, `{"order_id": "o%08d", "customer": "c%05d", "amount": %d.%02d, "order_time": "%s"}`,
			i, r.IntN(50000), 1+r.IntN(999), r.IntN(100), ts(orderTime(i)))
	})
	if err != nil {
		return err
	}
	const bound = 4 * 3600 * 1000
	type ship struct{ order, t int64 }
	ships := make([]ship, n)
	for i := range ships {
		ships[i] = ship{int64(i), orderTime(int64(i)) + r.Int64N(bound+1)}
	}
	slices.SortStableFunc(ships, func(a, b ship) int { return int(a.t - b.t) })
	carriers := []string{"UPS", "DHL", "FedEx", "USPS", "PostNL"}
	err = writeLines(filepath.Join(dir, "shipments_4h.json"), n, func(b []byte, i int64) []byte {
		s := ships[i]
		return fmt.Appendf(b, `{"ship_id": "s%08d", "order_id": "o%08d", "carrier": "%s", "ship_time": "%s"}`,
			i, s.order, carriers[s.order%int64(len(carriers))], ts(s.t))
	})
	if err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(strconv.FormatInt(n, 10)), 0o644)
}

// printMemory lists the anonymous and file-backed peaks of the queries
// that spill (the scaling table has them as columns), where Badger's
// mapped tables make the difference between the two.
func printMemory(w io.Writer, rep Report) {
	for _, r := range rep.Results {
		if strings.HasSuffix(r.Query, "-spill") && r.PeakAnonMB+r.PeakFileMB > 0 {
			fmt.Fprintf(w, "- %s: peak anonymous memory %.0f MB, file-backed %.0f MB (medians of 100 ms samples; peak RSS %.0f MB).\n",
				r.Query, r.PeakAnonMB, r.PeakFileMB, r.PeakRSSMB)
		}
	}
}

// printScale prints the scaling table: per join and size, CPU per event
// (and its ratio to the smallest size's), peak RSS and the state.
func printScale(w io.Writer, rep Report) {
	var rows []Result
	for _, r := range rep.Results {
		if strings.HasPrefix(r.Query, "scale-") {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scaling | keys | events | CPU µs/event | × smallest | events/s | peak RSS MB | anon MB | file MB | peak state rows | spilled keys |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	first := map[string]float64{}
	for _, r := range rows {
		join := "interval join (4 h)"
		if strings.HasPrefix(r.Query, "scale-rj-") {
			join = "regular join"
		}
		if _, ok := first[join]; !ok {
			first[join] = r.CPUUsPerEvent
		}
		ratio := 0.0
		if first[join] > 0 {
			ratio = r.CPUUsPerEvent / first[join]
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | %s | %.0f | %.0f | %.0f | %s | %s |\n", join, group(float64(r.Events/2)),
			group(float64(r.Events)), r.CPUUsPerEvent, ratio, group(r.EventsPerS), r.PeakRSSMB, r.PeakAnonMB, r.PeakFileMB,
			group(float64(r.PeakState)), group(float64(r.Spilled)))
	}
}
