package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// More fault-injection scenarios (#13), each a job killed with SIGKILL at
// random moments and restarted with the same --state-dir until it
// finishes, its output compared with a clean run's:
//
//   - left-join: files → regular LEFT JOIN → filesystem sink in
//     debezium-json. The changelog depends on how the two inputs
//     interleave (+I(a,null) then -D and +I(a,b), or +I(a,b) at once), which
//     a resumed run changes, so the table the changelog folds to is
//     compared (a -D of a row the table does not hold fails the fold:
//     output written twice or lost shows either as that or as a different
//     table);
//   - rescale: an interval join and a window aggregate, every run at a
//     random parallelism from 1 to 4;
//   - partitioned: the interval join into a PARTITIONED BY filesystem
//     table (key=value/ directories, a part file each);
//   - windowed: a SESSION window aggregate, an OVER aggregate and a window
//     Top-N with allowed lateness over input with late rows (windowedInputs),
//     each run at a random parallelism from 1 to 4 (changelogs folded); its
//     late rows go to a dead-letter file, which must end with the clean
//     run's lines, each once;
//   - damaged: the interval join, with one file of the latest complete
//     checkpoint (a part or the manifest) truncated or a byte of it flipped
//     after the 1st, 5th, 9th... kill of an episode that left one; the next run must
//     stop with an error naming the file and how to start over (never a
//     panic, never a silent resume), and the episode then starts over.
//
// `make test` runs 2 kills of each; STREAMSQL_CRASH_KILLS=N (make crash)
// runs N of each.

type crashScenario struct {
	name    string
	job     string   // with %s for the checkpoint interval
	outs    []string // the sinks' files, relative to the job
	fold    bool     // debezium-json: compare the folded table
	rescale bool     // each run at a random parallelism
	damage  bool     // damage the latest checkpoint now and then
	// inputs writes the job's input files in dir, n rows each (nil:
	// crashInputs, a.json and b.json).
	inputs func(t *testing.T, dir string, n int)
	// commits: the first out is a PARTITIONED BY sink that commits
	// partitions with success files; while the job runs, is killed and
	// resumes, every partition seen committed must hold the clean run's
	// rows of that partition (it is complete, and never changes after).
	commits bool
	// dead is the dead-letter file ('scan.late-rows.path', relative to the
	// job) that its late rows go to, "" for none: it must end with the
	// clean run's lines (a multiset: the partitions' lines interleave),
	// none lost and none written twice. It is removed before the clean run
	// and each episode (a job starting from nothing appends to it).
	dead string
}

var crashScenarios = []crashScenario{
	{name: "left-join", fold: true, outs: []string{"out/lj.json"}, job: `SET 'execution.checkpointing.interval' = '%s';
SET 'parallelism' = '2';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE lj (id INT, v INT, bid INT, w INT)
  WITH ('connector' = 'filesystem', 'path' = 'out/lj.json', 'format' = 'debezium-json');
INSERT INTO lj SELECT a.id, a.v, b.id, b.w FROM a LEFT JOIN b ON a.v = b.w AND b.id < 500;
`},
	{name: "rescale", rescale: true, outs: []string{"out/ij.json", "out/wa.json"}, job: `SET 'execution.checkpointing.interval' = '%s';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE ij (id INT, v INT, w INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out/ij.json', 'format' = 'json');
CREATE TABLE wa (ws TIMESTAMP(3), id INT, n BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/wa.json', 'format' = 'json');
INSERT INTO ij SELECT a.id, v, w, a.ts FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
INSERT INTO wa SELECT window_start, id, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, id;
`},
	// ranked: a Top-N (updating: its changelog folded) and a
	// deduplication keeping each key's first row by event time.
	{name: "ranked", fold: true, outs: []string{"out/top.json", "out/first.json"}, job: `SET 'execution.checkpointing.interval' = '%s';
SET 'parallelism' = '2';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE top (g INT, id INT, v INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/top.json', 'format' = 'debezium-json');
CREATE TABLE first (g INT, id INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out/first.json', 'format' = 'debezium-json');
INSERT INTO top SELECT g, id, v, rn FROM (
  SELECT MOD(id, 50) AS g, id, v, ROW_NUMBER() OVER (PARTITION BY MOD(id, 50) ORDER BY v DESC, id) AS rn FROM a)
  WHERE rn <= 3;
INSERT INTO first SELECT g, id, ts FROM (
  SELECT MOD(v, 200) AS g, id, ts, ROW_NUMBER() OVER (PARTITION BY MOD(v, 200) ORDER BY ts ASC) AS rn FROM a)
  WHERE rn = 1;
`},
	// windowed: operators whose state includes what they emitted and
	// when the watermark next has something for them. SESSION windows
	// with allowed lateness retract and re-emit sessions that late rows
	// extend or merge; the OVER aggregate drops late rows and keeps each
	// partition's last rows for the frame; the window Top-N updates the
	// top rows of windows that fired. Their results depend on which rows
	// are late, so a resumed run must restore each operator's watermark
	// (every input batch ends with one: the same cut each run).
	{name: "windowed", fold: true, rescale: true, inputs: windowedInputs, dead: "out/late.jsonl",
		outs: []string{"out/sess.json", "out/ov.json", "out/wtop.json"}, job: `SET 'execution.checkpointing.interval' = '%s';
SET 'table.exec.emit.allow-lateness' = '3 s';
CREATE TABLE c (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'c.json', 'format' = 'json', 'scan.late-rows.path' = 'out/late.jsonl');
CREATE TABLE sess (k INT, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/sess.json', 'format' = 'debezium-json');
CREATE TABLE ov (k INT, v INT, ts TIMESTAMP(3), n BIGINT, s BIGINT, mx INT)
  WITH ('connector' = 'filesystem', 'path' = 'out/ov.json', 'format' = 'debezium-json');
CREATE TABLE wtop (ws TIMESTAMP(3), k INT, v INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/wtop.json', 'format' = 'debezium-json');
INSERT INTO sess SELECT k, window_start, window_end, COUNT(*), SUM(v)
  FROM TABLE(SESSION(TABLE c PARTITION BY k, DESCRIPTOR(ts), INTERVAL '0.2' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO ov SELECT k, v, ts,
  COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
  SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
  MAX(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM c;
INSERT INTO wtop SELECT window_start, k, v, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 3;
`},
	{name: "damaged", damage: true, outs: []string{"out/o.json"}, job: crashJob},
	// partitioned: the interval join into a PARTITIONED BY filesystem
	// table, a part file per partition directory, each cut back on resume.
	{name: "partitioned", outs: []string{"out/pj"}, job: `SET 'execution.checkpointing.interval' = '%s';
SET 'parallelism' = '2';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE pj (id INT, v INT, w INT, ts TIMESTAMP(3), p STRING) PARTITIONED BY (p)
  WITH ('connector' = 'filesystem', 'path' = 'out/pj', 'format' = 'json');
INSERT INTO pj SELECT a.id, v, w, a.ts, CAST(MOD(a.id, 7) AS STRING) FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`},
	// committed: the interval join into a table partitioned by the second
	// of its time, rolled at 4 kB and committed by partition time with a
	// success file; a committed partition never changes.
	{name: "committed", commits: true, outs: []string{"out/cj"}, job: `SET 'execution.checkpointing.interval' = '%s';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE cj (id INT, v INT, w INT, ts TIMESTAMP(3), dt STRING, s STRING) PARTITIONED BY (dt, s)
  WITH ('connector' = 'filesystem', 'path' = 'out/cj', 'format' = 'json',
    'sink.rolling-policy.file-size' = '4kb', 'sink.partition-commit.trigger' = 'partition-time',
    'sink.partition-commit.delay' = '1 s', 'sink.partition-commit.policy.kind' = 'success-file',
    'partition.time-extractor.timestamp-pattern' = '$dt $s');
INSERT INTO cj SELECT a.id, v, w, a.ts, DATE_FORMAT(a.ts, 'yyyy-MM-dd'), DATE_FORMAT(a.ts, 'HH:mm:ss') FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`},
}

// watchCommits polls the partitioned sink's directory out until stop is
// closed: every partition with a success file must hold want's rows of it
// (dirLinesSorted's lines, "partition row"). It returns the violations
// and how many commits it saw.
func watchCommits(out string, want []string, stop <-chan struct{}) <-chan [2][]string {
	byPart := map[string][]string{}
	for _, l := range want {
		p, _, _ := strings.Cut(l, " ")
		byPart[p] = append(byPart[p], l)
	}
	res := make(chan [2][]string, 1)
	go func() {
		var bad []string
		seen := map[string]bool{}
		for {
			select {
			case <-stop:
				var names []string
				for p := range seen {
					names = append(names, p)
				}
				res <- [2][]string{bad, names}
				return
			case <-time.After(5 * time.Millisecond):
			}
			_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || d.Name() != "_SUCCESS" {
					return nil
				}
				part := filepath.Dir(p)
				rel, _ := filepath.Rel(out, part)
				var got []string
				entries, _ := os.ReadDir(part)
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), "_") || e.IsDir() {
						continue
					}
					b, _ := os.ReadFile(filepath.Join(part, e.Name()))
					for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
						if l != "" {
							got = append(got, rel+" "+l)
						}
					}
				}
				slices.Sort(got)
				seen[rel] = true
				if !slices.Equal(got, byPart[rel]) && len(bad) < 5 {
					bad = append(bad, fmt.Sprintf("%s: committed with %d rows, the clean run gives it %d", rel, len(got), len(byPart[rel])))
				}
				return nil
			})
		}
	}()
	return res
}

func TestCrashScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("runs jobs many times")
	}
	kills, rows := 2, 60000
	if s := os.Getenv("STREAMSQL_CRASH_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		kills, rows = n, 100000
	}
	for _, sc := range crashScenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := t.TempDir()
			if sc.inputs != nil {
				sc.inputs(t, dir, rows)
			} else {
				crashInputs(t, dir, rows)
			}
			job := filepath.Join(dir, "job.sql")
			if err := os.WriteFile(job, []byte(fmt.Sprintf(sc.job, "20ms")), 0o644); err != nil {
				t.Fatal(err)
			}
			begun := time.Now()
			if r := invoke("run", job); r.code != 0 {
				t.Fatalf("clean run:\n%s", r)
			}
			span := max(time.Since(begun)*8/10, 300*time.Millisecond)
			want := sc.outputs(t, dir)
			var wantDead []string
			if sc.dead != "" {
				wantDead = fileLinesSorted(t, filepath.Join(dir, sc.dead))
				if len(wantDead) == 0 {
					t.Fatalf("the clean run wrote no late rows to %s", sc.dead)
				}
			}
			seed := uint64(time.Now().UnixNano())
			t.Logf("kill timing seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 13))
			st := filepath.Join(dir, "state")
			var total crashCount
			// Until the kills are spent, a run has resumed from a checkpoint,
			// and the scenario's own event (a damaged checkpoint, a rescaled
			// restart) has happened: with few kills it may not have, by timing.
			unmet := func() bool {
				return total.resumed == 0 || sc.damage && total.damaged == 0 || sc.rescale && total.rescaled == 0
			}
			for episodes := 1; total.killed < kills || unmet(); episodes++ {
				if episodes > 4*kills+3 {
					t.Fatalf("%d episodes, %+v: the job ends before the kills come", episodes, total)
				}
				k := kills - total.killed
				if unmet() {
					k = max(k, 1)
				}
				if sc.dead != "" {
					if err := os.Remove(filepath.Join(dir, sc.dead)); err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
				}
				var stop chan struct{}
				var watched <-chan [2][]string
				if sc.commits {
					out := filepath.Join(dir, sc.outs[0])
					if err := os.RemoveAll(out); err != nil {
						t.Fatal(err)
					}
					stop = make(chan struct{})
					watched = watchCommits(out, want[0], stop)
				}
				c := sc.episode(t, rng, job, st, k, span)
				total.add(c)
				if sc.commits {
					close(stop)
					w := <-watched
					if len(w[0]) > 0 {
						t.Fatalf("episode %d (%+v): a committed partition was not the clean run's: %s", episodes, c, strings.Join(w[0], "; "))
					}
					if len(w[1]) == 0 {
						t.Fatalf("episode %d: no partition was seen committed", episodes)
					}
					t.Logf("episode %d: %d partitions seen committed, each with the clean run's rows", episodes, len(w[1]))
				}
				got := sc.outputs(t, dir)
				for i, out := range sc.outs {
					if !slices.Equal(got[i], want[i]) {
						missing, extra := diffMultiset(want[i], got[i])
						t.Fatalf("episode %d (%+v): %s differs from the clean run: %d rows, want %d; missing %d (e.g. %q), extra %d (e.g. %q)",
							episodes, c, out, len(got[i]), len(want[i]), len(missing), first(missing), len(extra), first(extra))
					}
				}
				if sc.dead != "" {
					// Each late row once: what a run wrote after its last
					// checkpoint was cut back when the next resumed.
					got := fileLinesSorted(t, filepath.Join(dir, sc.dead))
					if !slices.Equal(got, wantDead) {
						missing, extra := diffMultiset(wantDead, got)
						t.Fatalf("episode %d (%+v): the dead-letter file %s differs from the clean run's: %d lines, want %d; missing %d (e.g. %q), extra %d (e.g. %q)",
							episodes, c, sc.dead, len(got), len(wantDead), len(missing), first(missing), len(extra), first(extra))
					}
				}
				if err := os.RemoveAll(st); err != nil {
					t.Fatal(err)
				}
			}
			if sc.damage && total.damaged == 0 || sc.rescale && total.rescaled == 0 {
				t.Errorf("no checkpoint was damaged or no run rescaled (%+v)", total)
			}
			t.Logf("%s: %+v; every episode wrote the clean run's output", sc.name, total)
		})
	}
}

type crashCount struct {
	runs, killed, resumed, damaged, rescaled int
}

func (c *crashCount) add(o crashCount) {
	c.runs += o.runs
	c.killed += o.killed
	c.resumed += o.resumed
	c.damaged += o.damaged
	c.rescaled += o.rescaled
}

// outputs reads the scenario's sinks: sorted lines, or for a changelog
// the rows of the table it folds to (sorted).
func (sc crashScenario) outputs(t *testing.T, dir string) [][]string {
	t.Helper()
	var all [][]string
	for _, out := range sc.outs {
		if info, err := os.Stat(filepath.Join(dir, out)); err == nil && info.IsDir() {
			all = append(all, dirLinesSorted(t, filepath.Join(dir, out)))
			continue
		}
		lines := fileLinesSorted(t, filepath.Join(dir, out))
		if sc.fold {
			b, err := os.ReadFile(filepath.Join(dir, out))
			if err != nil {
				t.Fatal(err)
			}
			lines, err = foldDebezium(b)
			if err != nil {
				t.Fatalf("%s: %v", out, err)
			}
		}
		all = append(all, lines)
	}
	return all
}

// dirLinesSorted is the lines of every file under dir (a partitioned
// sink's), each after its file's directory, sorted.
func dirLinesSorted(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), "_") {
			return nil // success files, markers: readers leave them out
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		for _, l := range fileLinesSorted(t, p) {
			if l != "" {
				out = append(out, rel+" "+l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// foldDebezium applies a debezium-json changelog to an empty table (a
// multiset of rows, each its JSON) and returns the rows, sorted. A delete
// or an update of a row the table does not hold is an error.
func foldDebezium(b []byte) ([]string, error) {
	table := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var ev struct {
			Before json.RawMessage `json:"before"`
			After  json.RawMessage `json:"after"`
			Op     string          `json:"op"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if ev.Op == "u" || ev.Op == "d" {
			k := string(ev.Before)
			if table[k] == 0 {
				return nil, fmt.Errorf("line %d: %s of a row the table does not hold: %s", i+1, ev.Op, line)
			}
			table[k]--
		}
		if ev.Op == "c" || ev.Op == "r" || ev.Op == "u" {
			table[string(ev.After)]++
		}
	}
	var rows []string
	for k, n := range table {
		for range n {
			rows = append(rows, k)
		}
	}
	slices.Sort(rows)
	return rows, nil
}

// episode runs the job with --state-dir st until it finishes, killing the
// first kills runs at random moments.
func (sc crashScenario) episode(t *testing.T, rng *rand.Rand, job, st string, kills int, span time.Duration) (c crashCount) {
	lastP, damagedAt := 0, 0
	for {
		c.runs++
		if c.runs > 4*kills+20 {
			t.Fatalf("the job did not finish after %d runs (%+v)", c.runs, c)
		}
		args := []string{"run", "--state-dir", st}
		if sc.rescale {
			p := 1 + rng.IntN(4)
			if lastP != 0 && latestComplete(st) > 0 {
				// It resumes: at another parallelism.
				p = 1 + (lastP+rng.IntN(3))%4
				c.rescaled++
			}
			lastP = p
			args = append(args, "--set", fmt.Sprintf("parallelism=%d", p))
		}
		if sc.damage && c.killed%4 == 1 && c.killed != damagedAt && latestComplete(st) > 0 {
			damagedAt = c.killed
			file := damageCheckpoint(t, rng, st)
			c.damaged++
			r := invoke(append(args, job)...)
			if r.code != 1 || !strings.Contains(r.stderr, file) || strings.Contains(r.stderr, "panic") ||
				strings.Contains(r.stderr, "internal error") || !strings.Contains(r.stderr, "start over") && !strings.Contains(r.stderr, "rm -r") {
				t.Fatalf("a damaged %s: want the run refused, naming the file and how to start over; got:\n%s", file, r)
			}
			// Start over, as the error says, and kill once more: the episode
			// still has to resume from a checkpoint.
			if err := os.RemoveAll(st); err != nil {
				t.Fatal(err)
			}
			kills++
			continue
		}
		cmd := exec.Command(os.Args[0], append(args, job)...)
		cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		if c.killed < kills {
			var at <-chan time.Time
			if rng.IntN(3) == 0 {
				at = time.After(50*time.Millisecond + time.Duration(rng.Int64N(int64(span))))
			} else {
				// Within a quarter of the clean run after the next
				// checkpoint: on a fast (idle) machine a fixed 300 ms let
				// whole episodes end before any kill came.
				at = afterCheckpoint(st, latestComplete(st), time.Duration(rng.Int64N(int64(min(300*time.Millisecond, span/4)))))
			}
			select {
			case err = <-exited:
			case <-at:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err = <-exited
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					c.killed++
					if strings.Contains(stderr.String(), "resuming from checkpoint") {
						c.resumed++
					}
					continue
				}
			}
		} else {
			err = <-exited
		}
		if err != nil || strings.Contains(stderr.String(), "panic") {
			t.Fatalf("run %d (%v) failed: %v\n%s", c.runs, args, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "resuming from checkpoint") {
			c.resumed++
		}
		return c
	}
}

// damageCheckpoint truncates one file of the latest complete checkpoint in
// st, or flips one of its bytes, and returns its path: a file of its
// directory or a shared part its manifest lists (a state snapshot or, half
// the time when there is one, an incremental one).
func damageCheckpoint(t *testing.T, rng *rand.Rand, st string) string {
	t.Helper()
	chk := filepath.Join(st, "checkpoints", fmt.Sprintf("chk-%06d", latestComplete(st)))
	entries, err := os.ReadDir(chk)
	if err != nil {
		t.Fatal(err)
	}
	var files, deltas []string
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Size() > 0 {
			files = append(files, filepath.Join(chk, e.Name()))
		}
	}
	manifest, err := os.ReadFile(filepath.Join(chk, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Parts []struct {
			Name string `json:"name"`
			Size int64  `json:"size"`
			File string `json:"file"`
		} `json:"parts"`
	}
	body := manifest[:bytes.LastIndexByte(manifest[:len(manifest)-1], '\n')+1] // less the checksum line
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Parts {
		if p.File != "" && p.Size > 0 {
			f := filepath.Join(st, "checkpoints", filepath.FromSlash(p.File))
			files = append(files, f)
			if strings.Contains(p.Name, ".delta.") {
				deltas = append(deltas, f)
			}
		}
	}
	file := files[rng.IntN(len(files))]
	if len(deltas) > 0 && rng.IntN(2) == 0 {
		file = deltas[rng.IntN(len(deltas))]
		t.Logf("damaging the incremental snapshot %s", file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if rng.IntN(2) == 0 {
		b = b[:rng.IntN(len(b))]
	} else {
		b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// windowedInputs writes c.json: n rows 1 ms apart, each key active for
// 100 rows in 700 (its sessions, with a gap of 200 ms, end), v the row's
// number. Every 10th row is 1.5 s behind its place (past the watermark's
// 100 ms and the 1 s of event time a filesystem batch spans, within the
// 3 s of lateness: a late update, which extends the key's session before
// and retracts it if it was emitted), and every 97th 10 s behind (late).
func windowedInputs(t *testing.T, dir string, n int) {
	t.Helper()
	var sb strings.Builder
	for i := range n {
		ms := int64(i)
		switch {
		case i%97 == 96 && ms >= 10000:
			ms -= 10000
		case i%10 == 9 && ms >= 1500:
			ms -= 1500
		}
		fmt.Fprintf(&sb, `{"k": %d, "v": %d, "ts": "%s"}`+"\n", (i/100)%7, i,
			time.UnixMilli(1767225600000+ms).UTC().Format("2006-01-02 15:04:05.000"))
	}
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
