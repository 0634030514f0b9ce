package filesystem

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

var (
	_ connector.SinkCommitter     = (*PartSink)(nil)
	_ connector.SinkWatermarker   = (*PartSink)(nil)
	_ connector.SinkCheckpointing = (*PartSink)(nil)
)

// commitDDL is q10's shape: minute partitions (dt, hm) committed by
// partition time, the time extracted with '$dt $hm:00'.
func commitDDL(extra string) string {
	return `CREATE TABLE t (id BIGINT, ts BIGINT, dt STRING, hm STRING) PARTITIONED BY (dt, hm)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json',
  'sink.partition-commit.trigger' = 'partition-time', 'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00'` + extra + `);`
}

// event is one input row: its id and event time (ms).
type event struct{ id, ts int64 }

const (
	t0    = int64(1767225600000) // 2026-01-01 00:00:00 UTC
	bound = int64(20000)         // the disorder: rows come up to 20 s out of order
)

// events are n rows over several minutes, out of order by up to bound,
// with the watermark after each (max seen - bound - 1: no row is late).
func events(r *rand.Rand, n int) ([]event, []int64) {
	var evs []event
	var wms []int64
	base, maxSeen := t0, int64(math.MinInt64)
	for i := 0; i < n; i++ {
		base += int64(r.Intn(1500))
		ts := base - int64(r.Intn(int(bound)))
		evs = append(evs, event{int64(i), ts})
		maxSeen = max(maxSeen, ts)
		wms = append(wms, maxSeen-bound-1)
	}
	return evs, wms
}

func partOf(ts int64) (dt, hm string) {
	tm := time.UnixMilli(ts).UTC()
	return tm.Format("2006-01-02"), tm.Format("15:04")
}

// partDir is the directory of a minute (':' escaped as Flink does).
func partDir(ts int64) string {
	dt, hm := partOf(ts)
	return filepath.Join("dt="+dt, "hm="+escapePartition(hm))
}

func (e event) row() row.Row {
	dt, hm := partOf(e.ts)
	return row.Insert(row.IntValue(e.id), row.IntValue(e.ts), row.StrValue(dt), row.StrValue(hm))
}

// reference groups events by partition directory: the ids each holds
// (brute force, from the times alone).
func reference(evs []event) map[string][]int64 {
	out := map[string][]int64{}
	for _, e := range evs {
		out[partDir(e.ts)] = append(out[partDir(e.ts)], e.id)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

// partTime is the start of a partition's minute, from its directory.
func partTime(t *testing.T, dir string) int64 {
	t.Helper()
	v := dirValues(dir)
	tm, err := time.Parse("2006-01-02 15:04", v[0]+" "+v[1])
	if err != nil {
		t.Fatal(err)
	}
	return tm.UnixMilli()
}

// onDisk reads what the sink wrote: by partition directory, the ids in its
// part files (in file order), the part files' names, and whether the
// success file is there.
type partOnDisk struct {
	ids     []int64
	files   []string
	bytes   string // the part files' contents, in order
	success bool
}

func readOut(t *testing.T, out string) map[string]*partOnDisk {
	t.Helper()
	got := map[string]*partOnDisk{}
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, filepath.Dir(p))
		if rel == "." {
			return nil
		}
		pd := got[rel]
		if pd == nil {
			pd = &partOnDisk{}
			got[rel] = pd
		}
		if d.Name() == "_SUCCESS" {
			pd.success = true
			return nil
		}
		if _, ok := partIndex(d.Name()); !ok {
			t.Errorf("unexpected file %s", p)
			return nil
		}
		pd.files = append(pd.files, d.Name())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, pd := range got {
		sort.Slice(pd.files, func(i, j int) bool {
			a, _ := partIndex(pd.files[i])
			b, _ := partIndex(pd.files[j])
			return a < b
		})
		var all strings.Builder
		for _, f := range pd.files {
			b, err := os.ReadFile(filepath.Join(out, dir, f))
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
			sc := bufio.NewScanner(strings.NewReader(string(b)))
			for sc.Scan() {
				var v struct{ ID int64 }
				if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
					t.Fatalf("%s/%s: %q: %v", dir, f, sc.Text(), err)
				}
				pd.ids = append(pd.ids, v.ID)
			}
		}
		pd.bytes = all.String()
		slices.Sort(pd.ids)
	}
	return got
}

// TestPartitionTimeCommit: under disorder, a partition's success file
// appears exactly when the watermark passes the partition's time plus the
// delay (its minute's end here), never earlier; when it appears the
// partition holds exactly the rows a brute-force grouping of the whole
// input gives it (none come later), and after the end of the input every
// partition is committed with its rows.
func TestPartitionTimeCommit(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewSource(seed))
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		s, err := NewPartSink(conntest.SinkSpec(t, commitDDL(""), dir))
		if err != nil {
			t.Fatal(err)
		}
		s.Checkpointing(false)
		ctx := context.Background()
		if err := s.Open(ctx); err != nil {
			t.Fatal(err)
		}
		evs, wms := events(r, 400)
		want := reference(evs)
		committedAt := map[string]int64{}
		for i := 0; i < len(evs); {
			n := 1 + r.Intn(8)
			end := min(i+n, len(evs))
			var b row.Batch
			for _, e := range evs[i:end] {
				b = append(b, e.row())
			}
			if err := s.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			wm := wms[end-1]
			if err := s.Watermark(ctx, wm); err != nil {
				t.Fatal(err)
			}
			i = end
			for d, pd := range readOut(t, out) {
				due := wm > partTime(t, d)+time.Minute.Milliseconds()
				if pd.success != due {
					t.Fatalf("seed %d: watermark %d: partition %s committed = %v, want %v (its time %d + 1 min)", seed, wm, d, pd.success, due, partTime(t, d))
				}
				if pd.success {
					if _, ok := committedAt[d]; !ok {
						committedAt[d] = wm
					}
					if !slices.Equal(pd.ids, want[d]) {
						t.Fatalf("seed %d: partition %s committed at watermark %d holds %v, the input gives it %v", seed, d, wm, pd.ids, want[d])
					}
				}
			}
		}
		if len(committedAt) == 0 {
			t.Fatalf("seed %d: nothing was committed before the end of the input", seed)
		}
		if err := s.Watermark(ctx, maxWatermark); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		got := readOut(t, out)
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d partitions, want %d", seed, len(got), len(want))
		}
		for d, ids := range want {
			if pd := got[d]; pd == nil || !pd.success || !slices.Equal(pd.ids, ids) {
				t.Fatalf("seed %d: at the end partition %s is %+v, want committed with %v", seed, d, pd, ids)
			}
		}
	}
}

// TestLateRowRecommits: a row for a partition that is already committed
// (late: behind the watermark) is written into that partition, and the
// partition is committed again, as in Flink; what the commit covered is
// never changed: without checkpoints the row is appended, with them it
// goes to a new part file (the committed ones were closed at the commit).
func TestLateRowRecommits(t *testing.T) {
	for _, cp := range []bool{false, true} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		s, err := NewPartSink(conntest.SinkSpec(t, commitDDL(""), dir))
		if err != nil {
			t.Fatal(err)
		}
		s.Checkpointing(cp)
		ctx := context.Background()
		if err := s.Open(ctx); err != nil {
			t.Fatal(err)
		}
		write := func(wm int64, evs ...event) {
			var b row.Batch
			for _, e := range evs {
				b = append(b, e.row())
			}
			if err := s.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			if err := s.Watermark(ctx, wm); err != nil {
				t.Fatal(err)
			}
			if cp {
				st, err := s.Checkpoint(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.CheckpointComplete(ctx, st); err != nil {
					t.Fatal(err)
				}
			}
		}
		write(t0+2*60000+1, event{1, t0 + 1000}, event{2, t0 + 2000})
		d := partDir(t0)
		before := readOut(t, out)[d]
		if before == nil || !before.success || !slices.Equal(before.files, []string{"part-0"}) {
			t.Fatalf("checkpoints %v: partition %s after its commit: %+v", cp, d, before)
		}
		if err := os.Remove(filepath.Join(out, d, "_SUCCESS")); err != nil {
			t.Fatal(err)
		}
		write(t0+2*60000+2, event{3, t0 + 3000}) // late
		wantFiles := []string{"part-0"}
		if cp {
			wantFiles = []string{"part-0", "part-1"}
		}
		after := readOut(t, out)[d]
		if after == nil || !after.success || !slices.Equal(after.files, wantFiles) ||
			!slices.Equal(after.ids, []int64{1, 2, 3}) || !strings.HasPrefix(after.bytes, before.bytes) {
			t.Fatalf("checkpoints %v: partition %s after a late row: %+v (before: %+v)", cp, d, after, before)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRollingBySize: a part file larger than 'sink.rolling-policy.file-size'
// is closed before the partition's next row, as Flink's rolling policy does:
// every part file but a partition's last holds more than the limit, and
// without its last line no more than it; the files hold every row once.
func TestRollingBySize(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ddl := `CREATE TABLE t (id BIGINT, ts BIGINT, dt STRING, hm STRING) PARTITIONED BY (dt, hm)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json', 'sink.rolling-policy.file-size' = '1kb');`
	s, err := NewPartSink(conntest.SinkSpec(t, ddl, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(3))
	var evs []event
	for i := 0; i < 600; i++ {
		evs = append(evs, event{int64(i), t0 + int64(r.Intn(3))*60000})
	}
	for i := 0; i < len(evs); i += 7 {
		var b row.Batch
		for _, e := range evs[i:min(i+7, len(evs))] {
			b = append(b, e.row())
		}
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, want := readOut(t, out), reference(evs)
	for d, ids := range want {
		pd := got[d]
		if pd == nil || !slices.Equal(pd.ids, ids) {
			t.Fatalf("partition %s holds %+v, want %v", d, pd, ids)
		}
		if len(pd.files) < 3 {
			t.Fatalf("partition %s: %d part files of %d rows: not rolled at 1kb", d, len(pd.files), len(ids))
		}
		for i, f := range pd.files {
			b, _ := os.ReadFile(filepath.Join(out, d, f))
			lines := strings.SplitAfter(string(b), "\n")
			last := len(lines[len(lines)-2]) // SplitAfter leaves "" after the final '\n'
			if i < len(pd.files)-1 && (len(b) <= 1024 || len(b)-last > 1024) {
				t.Errorf("%s/%s: %d bytes (last line %d): rolled at the wrong size", d, f, len(b), last)
			}
			if i == len(pd.files)-1 && len(b)-last > 1024 {
				t.Errorf("%s/%s: %d bytes: not rolled", d, f, len(b))
			}
		}
	}
}

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestRollingByTime: a part file open for 'sink.rolling-policy.rollover-interval',
// or idle for 'sink.rolling-policy.inactivity-interval', is closed (checked
// every 'sink.rolling-policy.check-interval'); the process-time trigger
// commits a partition once the wall clock passes its first row plus the
// delay.
func TestRollingByTime(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ddl := `CREATE TABLE t (id BIGINT, ts BIGINT, dt STRING, hm STRING) PARTITIONED BY (dt, hm)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json', 'sink.rolling-policy.rollover-interval' = '10 s',
  'sink.rolling-policy.inactivity-interval' = '5 min', 'sink.rolling-policy.check-interval' = '1 s',
  'sink.partition-commit.delay' = '1 h', 'sink.partition-commit.policy.kind' = 'success-file');`
	s, err := NewPartSink(conntest.SinkSpec(t, ddl, dir))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.UnixMilli(t0)}
	s.now = clock.now
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	d := partDir(t0)
	// One row a second for 35 s: files of 10 s.
	for i := 0; i < 35; i++ {
		if err := s.Write(ctx, row.Batch{event{int64(i), t0}.row()}); err != nil {
			t.Fatal(err)
		}
		clock.t = clock.t.Add(time.Second)
	}
	pd := readOut(t, out)[d]
	if pd == nil || len(pd.files) != 4 {
		t.Fatalf("after 35 s of rows with a 10 s rollover: %+v, want 4 part files", pd)
	}
	for _, f := range pd.files[:3] {
		b, _ := os.ReadFile(filepath.Join(out, d, f))
		if n := strings.Count(string(b), "\n"); n != 10 {
			t.Errorf("%s: %d rows, want the 10 of its 10 s", f, n)
		}
	}
	// Idle for 5 minutes: the open file is closed; the next row starts part-4.
	clock.t = clock.t.Add(5 * time.Minute)
	if err := s.Write(ctx, row.Batch{event{100, t0}.row()}); err != nil {
		t.Fatal(err)
	}
	if pd := readOut(t, out)[d]; len(pd.files) != 5 || pd.success {
		t.Fatalf("after 5 idle minutes and a row: %+v, want 5 part files, not committed", pd)
	}
	// The process-time trigger: an hour after the partition's first row.
	clock.t = time.UnixMilli(t0).Add(time.Hour)
	if err := s.Watermark(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if pd := readOut(t, out)[d]; pd.success {
		t.Fatalf("committed at exactly its first row + 1 h; Flink commits once the clock has passed it")
	}
	clock.t = clock.t.Add(time.Millisecond)
	if err := s.Watermark(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if pd := readOut(t, out)[d]; !pd.success || len(pd.ids) != 36 {
		t.Fatalf("an hour after its first row: %+v, want committed with 36 rows", pd)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCommitWaitsForCheckpoint: with checkpoints, a partition is committed
// only when the checkpoint that found it ready completes; after a crash
// and a restore from the last completed checkpoint (at random points, the
// rows after it written again), no committed partition's files ever
// change, and the output holds every row once, every partition committed.
func TestCommitWaitsForCheckpoint(t *testing.T) {
	totalCrashes, earlyCommits := 0, 0
	for seed := int64(1); seed <= 15; seed++ {
		r := rand.New(rand.NewSource(seed))
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		ctx := context.Background()
		evs, wms := events(r, 300)
		want := reference(evs)
		committed := map[string]string{} // partition -> its part files' bytes when first seen committed
		check := func(when string) {
			for d, pd := range readOut(t, out) {
				if !pd.success {
					continue
				}
				if prev, ok := committed[d]; ok && prev != pd.bytes {
					t.Fatalf("seed %d: %s: committed partition %s changed", seed, when, d)
				}
				committed[d] = pd.bytes
				if !slices.Equal(pd.ids, want[d]) {
					t.Fatalf("seed %d: %s: committed partition %s holds %v, want %v", seed, when, d, pd.ids, want[d])
				}
			}
		}
		newSink := func() *PartSink {
			s, err := NewPartSink(conntest.SinkSpec(t, commitDDL(", 'sink.rolling-policy.file-size' = '300b'"), dir))
			if err != nil {
				t.Fatal(err)
			}
			s.Checkpointing(true)
			return s
		}
		s := newSink()
		if err := s.Open(ctx); err != nil {
			t.Fatal(err)
		}
		var lastState []byte
		lastAt := 0 // rows before the last completed checkpoint
		crashes := 0
		for i := 0; i < len(evs); {
			end := min(i+1+r.Intn(10), len(evs))
			var b row.Batch
			for _, e := range evs[i:end] {
				b = append(b, e.row())
			}
			if err := s.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			if err := s.Watermark(ctx, wms[end-1]); err != nil {
				t.Fatal(err)
			}
			i = end
			check("while writing")
			switch x := r.Intn(10); {
			case x < 3: // a checkpoint that completes
				st, err := s.Checkpoint(ctx)
				if err != nil {
					t.Fatal(err)
				}
				check("after a checkpoint, before it completed")
				if err := s.CheckpointComplete(ctx, st); err != nil {
					t.Fatal(err)
				}
				lastState, lastAt = st, i
				check("after a checkpoint completed")
			case x == 3: // a checkpoint that never completes
				if _, err := s.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
			case x == 4 && lastState != nil && crashes < 3: // a crash
				crashes++
				s = newSink()
				if err := s.Resume(ctx, lastState); err != nil {
					t.Fatal(err)
				}
				check("after Resume")
				i = lastAt
			}
		}
		totalCrashes += crashes
		earlyCommits += len(committed)
		if err := s.Watermark(ctx, maxWatermark); err != nil {
			t.Fatal(err)
		}
		final, err := s.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		check("at the end")
		// A crash after the end: resumed from the last completed
		// checkpoint, the run finds the finish marker and keeps the output.
		if lastState != nil {
			s2 := newSink()
			if err := s2.Resume(ctx, lastState); err != nil {
				t.Fatal(err)
			}
			check("after a Resume past the end")
			var b row.Batch
			for _, e := range evs[lastAt:] {
				b = append(b, e.row())
			}
			if err := s2.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			if err := s2.Watermark(ctx, maxWatermark); err != nil {
				t.Fatal(err)
			}
			if err := s2.Close(); err != nil {
				t.Fatal(err)
			}
		}
		_ = final
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		check("after Close")
		got := readOut(t, out)
		for d, ids := range want {
			if pd := got[d]; pd == nil || !pd.success || !slices.Equal(pd.ids, ids) {
				t.Fatalf("seed %d (%d crashes): at the end partition %s is %+v, want committed with %v", seed, crashes, d, pd, ids)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d partitions, want %d", seed, len(got), len(want))
		}
	}
	if totalCrashes == 0 || earlyCommits == 0 {
		t.Fatalf("the test exercised %d crashes and %d commits before the end of the input", totalCrashes, earlyCommits)
	}
	t.Logf("%d crashes, %d partitions committed before the end of the input", totalCrashes, earlyCommits)
}

// TestCommitOptionsRefused: what the sink cannot follow is refused when
// the job is checked, saying why.
func TestCommitOptionsRefused(t *testing.T) {
	base := `CREATE TABLE t (id BIGINT, dt STRING, hm STRING) PARTITIONED BY (dt, hm)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json', %s);`
	for _, tt := range []struct{ opts, want string }{
		{`'sink.partition-commit.policy.kind' = 'metastore'`, "which a filesystem table has none of"},
		{`'sink.partition-commit.policy.kind' = 'success-file,custom'`, "'custom' runs a Java class"},
		{`'partition.time-extractor.kind' = 'custom'`, "'custom' runs a Java class"},
		{`'partition.time-extractor.timestamp-pattern' = '$dt $hour:00:00'`, "names $hour, which is not a partition column (dt, hm)"},
		{`'partition.time-extractor.timestamp-formatter' = 'yyyy-MM-dd Q'`, "'partition.time-extractor.timestamp-formatter' = 'yyyy-MM-dd Q'"},
		{`'sink.partition-commit.success-file.name' = 'a/b', 'sink.partition-commit.policy.kind' = 'success-file'`, "must be a file name"},
		{`'sink.partition-commit.success-file.name' = 'DONE'`, "has no effect without"},
		{`'sink.partition-commit.watermark-time-zone' = 'Asia/Shanghai'`, "only time zone"},
	} {
		_, err := NewPartSink(conntest.SinkSpec(t, fmt.Sprintf(base, tt.opts), t.TempDir()))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.opts, err, tt.want)
		}
	}
	one := `CREATE TABLE t (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json', %s);`
	for _, o := range []string{`'sink.rolling-policy.file-size' = '1mb'`, `'sink.partition-commit.trigger' = 'partition-time'`} {
		_, err := NewSink(conntest.SinkSpec(t, fmt.Sprintf(one, o), t.TempDir()))
		if err == nil || !strings.Contains(err.Error(), "needs a PARTITIONED BY table") {
			t.Errorf("%s on a table without partitions: %v", o, err)
		}
	}
}
