package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/internal/plantest"
)

// The rewound-clicks case from the field: impressions are live, the click
// consumer was reset three days back, and a 2-hour interval join waits on
// the minimum of the two watermarks. Without alignment every live
// impression stays in state until the clicks catch up (and the drift is
// warned about); with alignment the impressions are paused and state stays
// bounded by the drift and the join's bound. Both runs give the same rows
// as a brute-force join of the two topics.

const (
	rewoundImpressions = 12 * 3600 // one a second for 12 hours
	rewoundClickEvery  = 20        // one click every 20 s …
	rewoundClicksFrom  = 3 * 86400 // … from three days before the impressions
	rewoundAds         = 50
)

var rewoundBase = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).UnixMilli()

func rewoundTopics(t *testing.T) (addr string, want []string) {
	t.Helper()
	addr = cluster(t, map[string]int32{"impressions": 2, "clicks": 1, "attributed": 1})
	imps := make([]rec, 0, rewoundImpressions)
	impAt := map[int64][]int64{} // ad -> impression seconds
	for i := range int64(rewoundImpressions) {
		ad := i % rewoundAds
		imps = append(imps, rec{partition: int32(i % 2), value: fmt.Sprintf(`{"imp_id": %d, "ad": %d, "ts": %d}`, i, ad, rewoundBase+i*1000)})
		impAt[ad] = append(impAt[ad], i)
	}
	var clicks []rec
	id := int64(0)
	for s := int64(-rewoundClicksFrom); s < rewoundImpressions; s += rewoundClickEvery {
		ad := (id * 7) % rewoundAds
		clicks = append(clicks, rec{value: fmt.Sprintf(`{"click_id": %d, "ad": %d, "ts": %d}`, id, ad, rewoundBase+s*1000)})
		// Expected: every impression of the ad within the 2 hours before.
		for _, is := range impAt[ad] {
			if is <= s && s <= is+7200 {
				want = append(want, fmt.Sprintf(`{"click_id":%d,"imp_id":%d}`, id, is))
			}
		}
		id++
	}
	produce(t, addr, "impressions", imps...)
	produce(t, addr, "clicks", clicks...)
	slices.Sort(want)
	return addr, want
}

func rewoundJob(addr, align string) string {
	return fmt.Sprintf(`
CREATE TABLE impressions (imp_id BIGINT, ad BIGINT, ts BIGINT,
  et AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR et AS et - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'impressions', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'%[2]s);
CREATE TABLE clicks (click_id BIGINT, ad BIGINT, ts BIGINT,
  et AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR et AS et - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'%[2]s);
CREATE TABLE attributed (click_id BIGINT, imp_id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'attributed', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO attributed
SELECT c.click_id, i.imp_id FROM clicks c JOIN impressions i
  ON c.ad = i.ad AND c.et BETWEEN i.et AND i.et + INTERVAL '2' HOUR;
`, addr, align)
}

// runRewound runs the job at parallelism 1 and returns it with the
// warnings it reported.
func runRewound(t *testing.T, sql string) (*exec.Job, []string) {
	t.Helper()
	plans, settings := plan(t, sql)
	// A guard against a hang, not a timing assertion: the job is bounded and
	// takes 12-20 s on a loaded two-core machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings, Parallelism: 1, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(ctx); err != nil {
		for _, s := range job.Sources {
			t.Logf("source %s: in %d, watermark %s, paused %v, drift %d, idle %v", s.Name, s.In.Load(),
				exec.FormatMillis(s.Watermark.Load()), s.Paused.Load(), s.Drift.Load(), s.Idle.Load())
		}
		t.Fatal(err)
	}
	return job, job.Warnings()
}

func joinPeak(t *testing.T, job *exec.Job) int64 {
	t.Helper()
	for _, o := range job.Operators {
		if strings.HasPrefix(o.Name, "IntervalJoin") {
			return o.PeakState.Load()
		}
	}
	t.Fatal("no interval join in the job")
	return 0
}

func checkAttributed(t *testing.T, addr string, want []string) {
	t.Helper()
	var got []string
	for _, c := range consume(t, addr, "attributed") {
		got = append(got, c.value)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("attributed: %d rows, want %d (first got %.200q, first want %.200q)", len(got), len(want), got, want)
	}
}

func TestRewoundClicksWithoutAlignment(t *testing.T) {
	addr, want := rewoundTopics(t)
	job, warnings := runRewound(t, rewoundJob(addr, ""))
	checkAttributed(t, addr, want)
	// Every live impression waited in state for the clicks to catch up …
	// (the test's topics are bounded: once the clicks end, the impressions
	// that remain flow through with the join's bound).
	peak := joinPeak(t, job)
	if peak < rewoundImpressions/2 {
		t.Errorf("peak state %d: expected most of the %d impressions held", peak, rewoundImpressions)
	}
	t.Logf("peak join state without alignment: %d rows", peak)
	// … and the gap was reported, not silent.
	found := false
	for _, w := range warnings {
		found = found || strings.Contains(w, "the watermark of input c") && strings.Contains(w, "behind input i") &&
			strings.Contains(w, "scan.watermark.alignment.group")
	}
	if !found {
		t.Errorf("no drift warning; warnings: %q", warnings)
	}
}

func TestRewoundClicksWithAlignment(t *testing.T) {
	addr, want := rewoundTopics(t)
	job, _ := runRewound(t, rewoundJob(addr, `,
  'scan.watermark.alignment.group' = 'attribution', 'scan.watermark.alignment.max-drift' = '10 min',
  'scan.watermark.alignment.update-interval' = '10 ms'`))
	checkAttributed(t, addr, want)
	// In state at once: impressions of the join's 2-hour bound, of the
	// drift (10 min) and of one batch per partition (1024 records, ~34 min
	// across two partitions), and the clicks of the same span — bounded by
	// the drift, not by the three days.
	const bound = (2*3600 + 600 + 2*1024) * 3 / 2
	peak := joinPeak(t, job)
	if peak > bound {
		t.Errorf("peak state %d rows, want at most %d with alignment (of %d impressions)", peak, bound, rewoundImpressions)
	}
	t.Logf("peak join state with alignment: %d rows of %d impressions", peak, rewoundImpressions)
}

// TestIdlePartition: an unbounded topic with a partition nobody writes to.
// Without idleness its watermark is held back for good and no window ever
// fires; with 'scan.watermark.idle-timeout' the quiet partition stops
// counting and the windows of the other one come out while the job runs.
func TestIdlePartition(t *testing.T) {
	for _, par := range []int{1, 2} {
		t.Run(fmt.Sprintf("parallelism %d", par), func(t *testing.T) { idlePartition(t, par) })
	}
}

// idlePartition runs TestIdlePartition at a parallelism (at 2, idleness
// travels through the exchange and the partitions' merge).
func idlePartition(t *testing.T, parallelism int) {
	addr := cluster(t, map[string]int32{"events": 2, "counts": 1})
	var recs []rec
	for i := range int64(10) {
		recs = append(recs, rec{partition: 0, value: fmt.Sprintf(`{"id": %d, "ts": %d}`, i, rewoundBase+i*30_000)})
	}
	produce(t, addr, "events", recs...)
	sql := fmt.Sprintf(`
CREATE TABLE events (id BIGINT, ts BIGINT, et AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR et AS et
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.watermark.idle-timeout' = '50 ms');
CREATE TABLE counts (window_start TIMESTAMP(3), n BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO counts SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(et), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
`, addr)
	plans, settings := plan(t, sql)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings, Parallelism: parallelism})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- job.Run(ctx) }()
	// Rows at 0:00 … 4:30: the windows up to 4:00 close once the idle
	// partition stops holding time back (the last window stays open).
	for {
		offs := endOffsets(t, addr, "counts")
		if offs[0] >= 4 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the job ended: %v", err)
		case <-ctx.Done():
			t.Fatalf("no windows came out: sources idle=%v", job.Sources[0].Idle.Load())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("the job failed: %v", err)
	}
	var got []string
	for _, c := range consume(t, addr, "counts") {
		got = append(got, c.value)
	}
	want := []string{
		`{"window_start":"2026-11-20 00:00:00.000","n":2}`, `{"window_start":"2026-11-20 00:01:00.000","n":2}`,
		`{"window_start":"2026-11-20 00:02:00.000","n":2}`, `{"window_start":"2026-11-20 00:03:00.000","n":2}`,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("counts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
