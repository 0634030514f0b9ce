package checkpoint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// write makes a complete checkpoint with the given parts.
func write(t *testing.T, d *Dir, parts map[string]string) *Checkpoint {
	t.Helper()
	w, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range parts {
		p, err := w.Part(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(p, body); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := w.Commit(Meta{Job: "job.sql", Operators: []Operator{{ID: "op1", Kind: "Source", Layout: 1, State: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func latest(t *testing.T, d *Dir) *Checkpoint {
	t.Helper()
	c, _, err := d.Latest()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readAll(t *testing.T, c *Checkpoint, name string) string {
	t.Helper()
	b, err := c.ReadPart(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteAndLoad(t *testing.T) {
	state := t.TempDir()
	d, err := Open(state, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := latest(t, d); c != nil {
		t.Fatalf("a new directory has checkpoint %d", c.ID)
	}
	big := strings.Repeat("0123456789", 100_000) // more than the buffers
	write(t, d, map[string]string{"a.state": "alpha", "big.state": big, "empty": ""})
	c := latest(t, d)
	if c == nil || c.ID != 1 {
		t.Fatalf("latest = %+v, want checkpoint 1", c)
	}
	if got := readAll(t, c, "a.state"); got != "alpha" {
		t.Errorf("a.state = %q", got)
	}
	if got := readAll(t, c, "big.state"); got != big {
		t.Errorf("big.state differs (%d bytes, want %d)", len(got), len(big))
	}
	if got := readAll(t, c, "empty"); got != "" {
		t.Errorf("empty = %q", got)
	}
	if c.Size() != int64(len("alpha")+len(big)) {
		t.Errorf("size %d", c.Size())
	}
	if err := c.Verify(); err != nil {
		t.Error(err)
	}
	if c.Job != "job.sql" || len(c.Operators) != 1 || c.Operators[0].ID != "op1" {
		t.Errorf("manifest %+v", c.Manifest)
	}
	if _, err := c.Open("nope"); err == nil || !strings.Contains(err.Error(), "no part nope") {
		t.Errorf("opening a missing part: %v", err)
	}
}

func TestIDsIncreaseAndRetention(t *testing.T) {
	for _, retained := range []int{0, 1, 3} {
		t.Run(fmt.Sprint(retained), func(t *testing.T) {
			state := t.TempDir()
			d, err := Open(state, Options{Retained: retained})
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 5; i++ {
				c := write(t, d, map[string]string{"p": fmt.Sprint(i)})
				if c.ID != int64(i) {
					t.Fatalf("checkpoint %d has id %d", i, c.ID)
				}
			}
			want := max(retained, 1)
			ids, _ := d.ids()
			if len(ids) != want || ids[len(ids)-1] != 5 {
				t.Fatalf("kept %v, want the newest %d", ids, want)
			}
			// A reopened directory continues the ids.
			d2, err := Open(state, Options{Retained: retained})
			if err != nil {
				t.Fatal(err)
			}
			if c := write(t, d2, map[string]string{"p": "6"}); c.ID != 6 {
				t.Fatalf("after reopening, id %d, want 6", c.ID)
			}
			if got := readAll(t, latest(t, d2), "p"); got != "6" {
				t.Errorf("latest holds %q", got)
			}
		})
	}
}

// A crash while a checkpoint is written leaves a directory without a
// manifest (perhaps with MANIFEST.tmp): the previous one is the latest,
// and the next commit removes the leftover.
func TestIncompleteFallsBack(t *testing.T) {
	for _, stage := range []string{"parts only", "part open", "manifest.tmp"} {
		t.Run(stage, func(t *testing.T) {
			state := t.TempDir()
			d, _ := Open(state, Options{})
			write(t, d, map[string]string{"p": "one"})
			w, err := d.Begin()
			if err != nil {
				t.Fatal(err)
			}
			p, _ := w.Part("p")
			_, _ = io.WriteString(p, "two, unfinished")
			switch stage {
			case "parts only":
				p.Close()
			case "part open":
			case "manifest.tmp":
				p.Close()
				_ = os.WriteFile(filepath.Join(w.Dir(), ManifestName+".tmp"), []byte(`{"format":1,"id":2`), 0o644)
			}
			// The process dies here: a new one opens the directory.
			d2, err := Open(state, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, skipped, err := d2.Latest()
			if err != nil {
				t.Fatal(err)
			}
			if c == nil || c.ID != 1 || readAll(t, c, "p") != "one" {
				t.Fatalf("latest %+v, want checkpoint 1", c)
			}
			if len(skipped) != 1 || skipped[0].ID != 2 || !strings.Contains(skipped[0].Reason, "incomplete") {
				t.Errorf("skipped %+v", skipped)
			}
			c3 := write(t, d2, map[string]string{"p": "three"})
			if c3.ID != 3 {
				t.Errorf("id %d after an incomplete 2, want 3", c3.ID)
			}
			if _, err := os.Stat(filepath.Join(state, Subdir, "chk-000002")); !os.IsNotExist(err) {
				t.Errorf("the incomplete checkpoint is still there: %v", err)
			}
		})
	}
}

// Every kind of damage to a complete checkpoint's files is an error that
// names the file, never a panic, never a silent fall back.
func TestDamage(t *testing.T) {
	type damage struct {
		name   string
		file   string // the file damaged
		do     func(path string) error
		verify bool // found only by reading the parts
	}
	flip := func(at int) func(string) error {
		return func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b[at%len(b)] ^= 0x20
			return os.WriteFile(path, b, 0o644)
		}
	}
	truncate := func(by int) func(string) error {
		return func(path string) error {
			st, err := os.Stat(path)
			if err != nil {
				return err
			}
			return os.Truncate(path, st.Size()-int64(by))
		}
	}
	appendByte := func(path string) error {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Write([]byte{'x'})
		return err
	}
	cases := []damage{
		{"manifest flipped in the json", ManifestName, flip(30), false},
		{"manifest flipped in the checksum", ManifestName, func(p string) error {
			b, _ := os.ReadFile(p)
			b[len(b)-2] ^= 1
			return os.WriteFile(p, b, 0o644)
		}, false},
		{"manifest truncated", ManifestName, truncate(10), false},
		{"manifest emptied", ManifestName, func(p string) error { return os.Truncate(p, 0) }, false},
		{"part truncated", "a.state", truncate(1), false},
		{"part emptied", "a.state", func(p string) error { return os.Truncate(p, 0) }, false},
		{"part longer", "a.state", appendByte, false},
		{"part missing", "a.state", os.Remove, false},
		{"part flipped", "a.state", flip(1000), true},
		{"small part flipped", "b.pos", flip(0), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			d, _ := Open(state, Options{})
			c := write(t, d, map[string]string{"a.state": strings.Repeat("state bytes ", 1000), "b.pos": `{"offset":42}`})
			path := c.File(tc.file)
			if err := tc.do(path); err != nil {
				t.Fatal(err)
			}
			c2, _, err := d.Latest()
			if !tc.verify {
				if err == nil {
					t.Fatalf("Latest accepted a checkpoint with %s", tc.name)
				}
			} else {
				if err != nil {
					t.Fatalf("Latest: %v (a flipped byte is found by Verify)", err)
				}
				err = c2.Verify()
				if err == nil {
					t.Fatalf("Verify accepted %s", tc.name)
				}
				// Reading the part is checked too.
				_, rerr := c2.ReadPart(tc.file)
				if rerr == nil || !strings.Contains(rerr.Error(), path) {
					t.Errorf("reading the damaged part: %v", rerr)
				}
			}
			if !strings.Contains(err.Error(), path) && (tc.file == ManifestName || !strings.Contains(err.Error(), tc.file)) {
				t.Errorf("the error does not name %s: %v", path, err)
			}
			if !strings.Contains(err.Error(), "start over") && !tc.verify {
				t.Errorf("the error does not say how to start over: %v", err)
			}
		})
	}
}

// A damaged latest checkpoint with an older one retained names the older
// one as a way out.
func TestDamageWithOlder(t *testing.T) {
	state := t.TempDir()
	d, _ := Open(state, Options{Retained: 2})
	write(t, d, map[string]string{"p": "one"})
	c := write(t, d, map[string]string{"p": "two"})
	_ = os.Truncate(c.File("p"), 1)
	_, _, err := d.Latest()
	if err == nil || !strings.Contains(err.Error(), "older checkpoint 1") || !strings.Contains(err.Error(), c.Dir) {
		t.Fatalf("err = %v", err)
	}
}

func TestCommitFailures(t *testing.T) {
	state := t.TempDir()
	d, _ := Open(state, Options{})
	write(t, d, map[string]string{"p": "one"})

	// A part left open fails the commit; the previous checkpoint stays.
	w, _ := d.Begin()
	p, _ := w.Part("p")
	_, _ = io.WriteString(p, "two")
	if _, err := w.Commit(Meta{}); err == nil || !strings.Contains(err.Error(), "not closed: p") {
		t.Fatalf("commit with an open part: %v", err)
	}
	if err := p.Close(); err == nil {
		t.Error("closing a part of an aborted checkpoint succeeded")
	}
	if c := latest(t, d); c.ID != 1 {
		t.Fatalf("latest %d", c.ID)
	}

	// A failure reported by the caller fails it too.
	w, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	w.Fail(fmt.Errorf("operator op3 could not snapshot"))
	if _, err := w.Commit(Meta{}); err == nil || !strings.Contains(err.Error(), "op3") {
		t.Fatalf("commit after Fail: %v", err)
	}

	// One at a time.
	w, _ = d.Begin()
	if _, err := d.Begin(); err == nil {
		t.Error("two checkpoints begun at once")
	}
	w.Abort()
	if _, err := os.Stat(w.Dir()); !os.IsNotExist(err) {
		t.Error("abort left the directory")
	}

	// Bad and duplicate part names.
	w, _ = d.Begin()
	for _, name := range []string{"", ManifestName, "../x", "a/b", ".hidden"} {
		if _, err := w.Part(name); err == nil {
			t.Errorf("part name %q accepted", name)
		}
	}
	q, _ := w.Part("q")
	q.Close()
	if _, err := w.Part("q"); err == nil {
		t.Error("part q written twice")
	}
	c, err := w.Commit(Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID <= 1 {
		t.Errorf("id %d", c.ID)
	}
}

func TestConcurrentParts(t *testing.T) {
	d, _ := Open(t.TempDir(), Options{})
	w, _ := d.Begin()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := w.Part(fmt.Sprintf("op1.p%d", i))
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprint(p, strings.Repeat(fmt.Sprint(i), 10000*i))
			if err := p.Close(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := w.Commit(Meta{}); err != nil {
		t.Fatal(err)
	}
	c := latest(t, d)
	if len(c.Parts) != 8 {
		t.Fatalf("%d parts", len(c.Parts))
	}
	for i := range 8 {
		if got := readAll(t, c, fmt.Sprintf("op1.p%d", i)); got != strings.Repeat(fmt.Sprint(i), 10000*i) {
			t.Errorf("part %d differs", i)
		}
	}
}

func TestComparePlan(t *testing.T) {
	saved := []Operator{
		{ID: "op1", Kind: "FileSource", Layout: 1, State: "a", Describe: "orders"},
		{ID: "op2", Kind: "IntervalJoin", Layout: 1, State: "b", Describe: "orders ⋈ payments"},
		{ID: "op3", Kind: "GroupAggregate", Layout: 1, State: "c"},
	}
	c := &Checkpoint{Dir: "/s/checkpoints/chk-000007", Manifest: Manifest{ID: 7, Operators: saved}}
	if err := ComparePlan(c, "/s", saved); err != nil {
		t.Fatalf("the same plan: %v", err)
	}
	now := []Operator{
		{ID: "op1", Kind: "FileSource", Layout: 1, State: "a"},
		{ID: "op2", Kind: "IntervalJoin", Layout: 2, State: "b"},
		{ID: "op4", Kind: "WindowAggregate", Layout: 1, State: "d"},
	}
	err := ComparePlan(c, "/s", now)
	if err == nil {
		t.Fatal("a changed plan was accepted")
	}
	for _, want := range []string{"checkpoint 7", "op2 (IntervalJoin) keeps its state in layout 2 now, and the checkpoint has layout 1",
		"op4 is new (WindowAggregate)", "op3 (GroupAggregate) is no longer in the job", "rm -r /s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	now = append([]Operator(nil), saved...)
	now[2].State = "other"
	if err := ComparePlan(c, "/s", now); err == nil || !strings.Contains(err.Error(), "other types") {
		t.Errorf("changed types: %v", err)
	}
	now[2] = saved[2]
	now[2].Kind = "WindowAggregate"
	if err := ComparePlan(c, "/s", now); err == nil || !strings.Contains(err.Error(), "op3 was GroupAggregate and is now WindowAggregate") {
		t.Errorf("changed kind: %v", err)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := &Manifest{Format: manifestFormat, ID: 3, Parts: []PartInfo{{Name: "x", Size: 4, CRC32C: 99}}}
	b, err := encodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 3 || len(got.Parts) != 1 || got.Parts[0] != m.Parts[0] {
		t.Errorf("%+v", got)
	}
	// Every truncation is refused.
	for i := 0; i < len(b); i++ {
		if _, err := decodeManifest(b[:i]); err == nil {
			t.Fatalf("a manifest cut at %d of %d bytes was accepted", i, len(b))
		}
	}
	// Every single-bit flip is refused.
	for i := 0; i < len(b); i++ {
		c := bytes.Clone(b)
		c[i] ^= 4
		if _, err := decodeManifest(c); err == nil {
			t.Fatalf("a manifest with byte %d flipped was accepted", i)
		}
	}
}

// Retention that crashed after removing an old checkpoint's manifest leaves
// an incomplete old directory: the newer one is still the latest, and the
// next commit finishes the removal.
func TestRetentionCrash(t *testing.T) {
	state := t.TempDir()
	d, _ := Open(state, Options{Retained: 2})
	c1 := write(t, d, map[string]string{"p": "one"})
	write(t, d, map[string]string{"p": "two"})
	if err := os.Remove(filepath.Join(c1.Dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	d2, _ := Open(state, Options{Retained: 1})
	c, skipped, err := d2.Latest()
	if err != nil || c.ID != 2 || len(skipped) != 0 {
		t.Fatalf("latest %v, skipped %v, err %v", c, skipped, err)
	}
	write(t, d2, map[string]string{"p": "three"})
	ids, _ := d2.ids()
	if fmt.Sprint(ids) != "[3]" {
		t.Errorf("left %v", ids)
	}
}

// TestWriteFileAtomic: the file is written whole, replaces an older one,
// leaves no temporary file behind, and a directory that does not exist is
// an error naming the file.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "START.json")
	for _, content := range []string{"{\"first\": 1}\n", "{\"second\": 2}\n"} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Fatalf("read %q, wrote %q", got, content)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("the directory holds %d files, want the one written", len(entries))
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v (%v), want 0644", info.Mode(), err)
	}
	missing := filepath.Join(dir, "no-such-dir", "START.json")
	if err := WriteFileAtomic(missing, []byte("x")); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("writing into a missing directory: %v, want an error naming %s", err, missing)
	}
}

// LatestComplete names the newest checkpoint with its manifest, skipping
// one still being written and names that are not checkpoints.
func TestLatestComplete(t *testing.T) {
	st := t.TempDir()
	if got := LatestComplete(st); got != 0 {
		t.Fatalf("no checkpoints: %d", got)
	}
	for name, manifest := range map[string]bool{"chk-000001": true, "chk-000002": true, "chk-000003": false, "chk-x": true, "other": true} {
		dir := filepath.Join(st, Subdir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if manifest {
			if err := os.WriteFile(filepath.Join(dir, ManifestName), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := LatestComplete(st); got != 2 {
		t.Fatalf("LatestComplete %d, want 2 (3 has no manifest)", got)
	}
}
