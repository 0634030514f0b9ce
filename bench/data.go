package main

import (
	"bufio"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Orders and shipments: keys orders, 100 per second of event time from
// 2026-01-01 (so 1M orders span 2.8 hours), each with one shipment within
// the bound after it. The files are deterministic; they are regenerated
// only when missing or made for another key count.

const ordersPerSecond = 100

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

func genData(dir string, keys int64) error {
	stamp := filepath.Join(dir, "keys")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == strconv.FormatInt(keys, 10) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	orderTime := func(i int64) int64 { return base + i*1000/ordersPerSecond }
	r := mrand.New(mrand.NewPCG(7, 11))
	err := writeLines(filepath.Join(dir, "orders.json"), keys, func(b []byte, i int64) []byte {
		b = fmt.Appendf(b, `{"order_id": "o%08d", "customer": "c%05d", "amount": %d.%02d, "order_time": "%s"}`,
			i, r.IntN(50000), 1+r.IntN(999), r.IntN(100), ts(orderTime(i)))
		return b
	})
	if err != nil {
		return err
	}
	carriers := []string{"UPS", "DHL", "FedEx", "USPS", "PostNL"}
	for _, bound := range []struct {
		file string
		ms   int64
	}{{"shipments_1s.json", 1000}, {"shipments_4h.json", 4 * 3600 * 1000}} {
		type ship struct{ order, t int64 }
		ships := make([]ship, keys)
		for i := range ships {
			ships[i] = ship{int64(i), orderTime(int64(i)) + r.Int64N(bound.ms+1)}
		}
		// In event time order, as a log of shipments would be.
		slices.SortStableFunc(ships, func(a, b ship) int { return int(a.t - b.t) })
		err := writeLines(filepath.Join(dir, bound.file), keys, func(b []byte, i int64) []byte {
			s := ships[i]
			return fmt.Appendf(b, `{"ship_id": "s%08d", "order_id": "o%08d", "carrier": "%s", "ship_time": "%s"}`,
				i, s.order, carriers[s.order%int64(len(carriers))], ts(s.t))
		})
		if err != nil {
			return err
		}
	}
	return os.WriteFile(stamp, []byte(strconv.FormatInt(keys, 10)), 0o644)
}

func ts(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000") }

func writeLines(path string, n int64, line func([]byte, int64) []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b []byte
	for i := range n {
		b = append(line(b[:0], i), '\n')
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
