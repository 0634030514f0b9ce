//go:build linux

package state

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/row"
)

// mappedRSS sums the resident kB of this process's mappings of files
// under dir (from /proc/self/smaps).
func mappedRSS(t *testing.T, dir string) (kb int64, mappings int) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fs := strings.Fields(line); len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			i := strings.IndexByte(line, '/')
			in = i >= 0 && strings.HasPrefix(line[i:], dir+"/")
			if in {
				mappings++
			}
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			kb += n
		}
	}
	return kb, mappings
}

// The pages of Badger's mapped tables leave the resident set when the
// store gives them back, and the data stays readable.
func TestPageOutMappings(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	pad := row.StrValue(strings.Repeat("x", 200))
	for i := 0; i < 100_000; i++ {
		tab.Append([]byte(fmt.Sprint(i)), Record{Vals: []row.Value{row.IntValue(int64(i)), pad}, Expiry: NoExpiry})
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// Read keys back, with the store's own paging out held off: the
	// tables holding them are faulted in.
	s.d.pagedOut.Store(time.Now().Add(time.Hour).UnixNano())
	for i := 0; i < 100_000; i += 7 {
		tab.Scan([]byte(fmt.Sprint(i)), func(*Record) (bool, bool) { return true, false })
	}
	before, maps := mappedRSS(t, s.pageDir)
	if maps == 0 || before < 4<<10 {
		t.Fatalf("%d mappings of %s with %d kB resident: want Badger's tables mapped and read", maps, s.pageDir, before)
	}
	if n := pageOutMappings(s.pageDir); n == 0 {
		t.Fatal("pageOutMappings found no mapping")
	}
	after, _ := mappedRSS(t, s.pageDir)
	t.Logf("%d mappings: %d kB resident before, %d kB after", maps, before, after)
	if after > before/2 {
		t.Errorf("resident pages of the mapped files: %d kB before, %d kB after paging out; want at most half", before, after)
	}
	// Everything reads back from the files.
	for i := 0; i < 100_000; i += 997 {
		var got int64 = -1
		tab.Scan([]byte(fmt.Sprint(i)), func(r *Record) (bool, bool) { got = r.Vals[0].Int(); return true, false })
		if got != int64(i) {
			t.Fatalf("key %d read back %d after paging out", i, got)
		}
	}
}
