package checkpoint

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func sharedFiles(t *testing.T, d *Dir) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(d.Root(), SharedSubdir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// writeShared makes a checkpoint whose parts are the shared parts in
// parts, the earlier shared parts in reuse, and a meta part.
func writeShared(t *testing.T, d *Dir, parts map[string]string, reuse ...PartInfo) *Checkpoint {
	t.Helper()
	w, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range reuse {
		if err := w.Reuse(p); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range parts {
		p, err := w.SharedPart(name)
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
	p, _ := w.Part("x.meta")
	if _, err := io.WriteString(p, "meta"); err != nil {
		t.Fatal(err)
	}
	p.Close()
	c, err := w.Commit(Meta{Job: "job.sql"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func part(t *testing.T, c *Checkpoint, name string) PartInfo {
	t.Helper()
	p, ok := c.Part(name)
	if !ok {
		t.Fatalf("checkpoint %d has no part %s", c.ID, name)
	}
	return p
}

// Shared parts: a later checkpoint lists an earlier one's parts unchanged;
// a shared file is removed once no kept checkpoint lists it, and not
// before.
func TestSharedPartsAreKeptWhileListed(t *testing.T) {
	d, err := Open(t.TempDir(), Options{Retained: 2})
	if err != nil {
		t.Fatal(err)
	}
	c1 := writeShared(t, d, map[string]string{"a.state": "base one"})
	c2 := writeShared(t, d, map[string]string{"a.delta.1": "delta"}, part(t, c1, "a.state"))
	if got := readAll(t, latest(t, d), "a.state"); got != "base one" {
		t.Fatalf("checkpoint 2's a.state = %q", got)
	}
	if got := readAll(t, latest(t, d), "a.delta.1"); got != "delta" {
		t.Fatalf("checkpoint 2's a.delta.1 = %q", got)
	}
	if n, all := c2.NewSize(), c2.Size(); n != int64(len("delta")+len("meta")) || all != n+int64(len("base one")) {
		t.Fatalf("checkpoint 2: NewSize %d, Size %d", n, all)
	}
	want := []string{"000001.a.state", "000002.a.delta.1"}
	if got := sharedFiles(t, d); !slices.Equal(got, want) {
		t.Fatalf("shared files %v, want %v", got, want)
	}
	// A new base: checkpoints 2 and 3 kept; 1's base is still listed by 2.
	c3 := writeShared(t, d, map[string]string{"a.state": "base three"})
	want = []string{"000001.a.state", "000002.a.delta.1", "000003.a.state"}
	if got := sharedFiles(t, d); !slices.Equal(got, want) {
		t.Fatalf("shared files %v, want %v", got, want)
	}
	// Checkpoint 4 refers to 3's base: 2 goes, and with it 1's base and 2's delta.
	writeShared(t, d, map[string]string{"a.delta.1": "delta four"}, part(t, c3, "a.state"))
	want = []string{"000003.a.state", "000004.a.delta.1"}
	if got := sharedFiles(t, d); !slices.Equal(got, want) {
		t.Fatalf("shared files %v, want %v", got, want)
	}
	c := latest(t, d)
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, c, "a.state"); got != "base three" {
		t.Fatalf("checkpoint 4's a.state = %q", got)
	}
	// A checkpoint given up removes the shared files it wrote.
	w, _ := d.Begin()
	p, _ := w.SharedPart("a.delta.2")
	if _, err := io.WriteString(p, "x"); err != nil {
		t.Fatal(err)
	}
	p.Close()
	w.Abort()
	if got := sharedFiles(t, d); !slices.Equal(got, want) {
		t.Fatalf("after an abort: shared files %v, want %v", got, want)
	}
}

// A crash while a checkpoint writes its shared parts leaves files no
// manifest lists: the next commit removes them, and the checkpoint before
// is still the latest meanwhile.
func TestSharedPartsOfACrashAreCollected(t *testing.T) {
	state := t.TempDir()
	d, _ := Open(state, Options{})
	c1 := writeShared(t, d, map[string]string{"a.state": "base"})
	w, _ := d.Begin()
	p, _ := w.SharedPart("a.delta.1")
	if _, err := io.WriteString(p, "half"); err != nil {
		t.Fatal(err)
	}
	// (no Close, no Commit: the process dies here)
	d, _ = Open(state, Options{})
	if c := latest(t, d); c.ID != c1.ID {
		t.Fatalf("latest %d, want %d", c.ID, c1.ID)
	}
	writeShared(t, d, map[string]string{"a.delta.1": "whole"}, part(t, c1, "a.state"))
	want := []string{"000001.a.state", "000003.a.delta.1"}
	if got := sharedFiles(t, d); !slices.Equal(got, want) {
		t.Fatalf("shared files %v, want %v", got, want)
	}
}

// A damaged or missing shared part is an error naming its file; a part
// to reuse that is gone fails the commit.
func TestSharedPartDamaged(t *testing.T) {
	for _, tc := range []struct {
		what   string
		damage func(string) error
		want   string
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 2) }, "is truncated"},
		{"missing", os.Remove, "no such file"},
		{"flipped", func(p string) error { return os.WriteFile(p, []byte("BASE"), 0o644) }, "is corrupted"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			d, _ := Open(t.TempDir(), Options{})
			c1 := writeShared(t, d, map[string]string{"a.state": "base"})
			writeShared(t, d, map[string]string{"a.delta.1": "d"}, part(t, c1, "a.state"))
			file := filepath.Join(d.Root(), SharedSubdir, "000001.a.state")
			if err := tc.damage(file); err != nil {
				t.Fatal(err)
			}
			c, _, err := d.Latest()
			if err == nil {
				err = c.Verify()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "000001.a.state") {
				t.Fatalf("got %v, want an error naming %s saying %q", err, file, tc.want)
			}
		})
	}
	d, _ := Open(t.TempDir(), Options{})
	c1 := writeShared(t, d, map[string]string{"a.state": "base"})
	os.Remove(filepath.Join(d.Root(), SharedSubdir, "000001.a.state"))
	w, _ := d.Begin()
	if err := w.Reuse(part(t, c1, "a.state")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(Meta{}); err == nil || !strings.Contains(err.Error(), "000001.a.state") {
		t.Fatalf("a commit reusing a missing part: %v", err)
	}
	if err := w.Reuse(PartInfo{Name: "b", File: "../b"}); err == nil {
		t.Fatal("a part outside the shared directory was reused")
	}
}

// The records a part's writer counted (SetRecords) are in the manifest,
// read back and kept when a later checkpoint reuses the part; a part
// whose writer counted none has none.
func TestPartRecords(t *testing.T) {
	d, err := Open(t.TempDir(), Options{Retained: 2})
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.SharedPart("a.state")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p, "base"); err != nil {
		t.Fatal(err)
	}
	p.SetRecords(1234)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if p, err = w.Part("x.meta"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p, "meta"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c1, err := w.Commit(Meta{Job: "job.sql"})
	if err != nil {
		t.Fatal(err)
	}
	writeShared(t, d, map[string]string{"a.delta.1": "delta"}, part(t, c1, "a.state"))
	c := latest(t, d) // read back from its manifest
	if r := part(t, c, "a.state").Records; r == nil || *r != 1234 {
		t.Fatalf("a.state's records after a reuse and a reload: %v, want 1234", r)
	}
	if r := part(t, c, "a.delta.1").Records; r != nil {
		t.Fatalf("a.delta.1's records: %d, want none", *r)
	}
}
