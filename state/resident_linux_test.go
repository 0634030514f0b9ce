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
	"unsafe"

	"golang.org/x/sys/unix"

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

// spilledAndRead is a store whose 100,000 keys (of ~210 bytes) are all in
// Badger, a seventh of them read back with the store's own paging out
// held off: the tables holding them are faulted in. The store closes
// with the test.
func spilledAndRead(t *testing.T) (*Store, *Table) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tab := s.Table("t", TableOptions{})
	pad := row.StrValue(strings.Repeat("x", 200))
	for i := 0; i < 100_000; i++ {
		tab.Append([]byte(fmt.Sprint(i)), Record{Vals: []row.Value{row.IntValue(int64(i)), pad}, Expiry: NoExpiry})
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	s.d.pagedOut.Store(time.Now().Add(time.Hour).UnixNano())
	for i := 0; i < 100_000; i += 7 {
		tab.Scan([]byte(fmt.Sprint(i)), func(*Record) (bool, bool) { return true, false })
	}
	return s, tab
}

// checkReadsBack reads every 997th key of spilledAndRead's table back
// from Badger.
func checkReadsBack(t *testing.T, tab *Table) {
	t.Helper()
	for i := 0; i < 100_000; i += 997 {
		var got int64 = -1
		tab.Scan([]byte(fmt.Sprint(i)), func(r *Record) (bool, bool) { got = r.Vals[0].Int(); return true, false })
		if got != int64(i) {
			t.Fatalf("key %d read back %d after paging out", i, got)
		}
	}
}

// The pages of Badger's mapped tables leave the resident set when the
// store gives them back, and the data stays readable.
func TestPageOutMappings(t *testing.T) {
	s, tab := spilledAndRead(t)
	before, maps := mappedRSS(t, s.pageDir)
	if maps == 0 || before < 4<<10 {
		t.Fatalf("%d mappings of %s with %d kB resident: want Badger's tables mapped and read", maps, s.pageDir, before)
	}
	if n := pageOutMappings(s.pageDir, nil); n == 0 {
		t.Fatal("pageOutMappings found no mapping")
	}
	after, _ := mappedRSS(t, s.pageDir)
	t.Logf("%d mappings: %d kB resident before, %d kB after", maps, before, after)
	if after > before/2 {
		t.Errorf("resident pages of the mapped files: %d kB before, %d kB after paging out; want at most half", before, after)
	}
	// Everything reads back from the files.
	checkReadsBack(t, tab)
}

// sstMapping is one mapping of a Badger table file.
type sstMapping struct {
	start, end uintptr
	id         uint64
}

// sstMappings lists this process's mappings of the tables under dir.
func sstMappings(t *testing.T, dir string) []sstMapping {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	var out []sstMapping
	for _, line := range strings.Split(string(b), "\n") {
		i := strings.IndexByte(line, '/')
		if i < 0 || !strings.HasPrefix(line[i:], dir+"/") || !strings.HasSuffix(line, ".sst") {
			continue
		}
		lo, hi, _ := strings.Cut(strings.Fields(line)[0], "-")
		start, _ := strconv.ParseUint(lo, 16, 64)
		end, _ := strconv.ParseUint(hi, 16, 64)
		out = append(out, sstMapping{uintptr(start), uintptr(end), tableID([]byte(line[i+len(dir)+1:]))})
	}
	return out
}

// residentPages counts the resident pages of [start, end) with mincore.
func residentPages(t *testing.T, start, end uintptr) int {
	page := uintptr(os.Getpagesize())
	vec := make([]byte, (end-start+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, start, end-start, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// A page-out gives back the data blocks of Badger's tables and keeps
// their indexes and bloom filters, which every lookup reads: the data
// pages leave the resident set, the tails' pages stay, and every key
// reads back.
func TestPageOutKeepsTableIndexes(t *testing.T) {
	s, tab := spilledAndRead(t)
	tails := tableTails(s.db)
	if len(tails) == 0 {
		t.Fatal("no Badger tables after 100,000 spilled keys")
	}
	pageOutMappings(s.pageDir, tails)
	page := uintptr(os.Getpagesize())
	var dataLeft, dataPages, tailLeft, tailPages, kept int
	for _, m := range sstMappings(t, s.pageDir) {
		tail, ok := tails[m.id]
		if !ok {
			continue
		}
		kept++
		// The index proper, without the page of rounding the page-out
		// keeps besides.
		idx := (uintptr(tail) - tableFooter + page - 1) / page * page
		if idx >= m.end-m.start {
			t.Fatalf("table %d: index of %d bytes in a mapping of %d", m.id, tail, m.end-m.start)
		}
		cut := m.end - (uintptr(tail)+2*page-1)/page*page
		dataLeft += residentPages(t, m.start, cut)
		dataPages += int((cut - m.start) / page)
		tailLeft += residentPages(t, m.end-idx, m.end)
		tailPages += int(idx / page)
	}
	t.Logf("%d tables: data pages resident %d of %d, index pages %d of %d", kept, dataLeft, dataPages, tailLeft, tailPages)
	if kept == 0 {
		t.Fatal("no mapping of a table Badger lists")
	}
	if dataLeft > dataPages/4 {
		t.Errorf("data pages resident after the page-out: %d of %d; want at most a quarter", dataLeft, dataPages)
	}
	if tailLeft < tailPages*3/4 {
		t.Errorf("index pages resident after the page-out: %d of %d; want at least three quarters", tailLeft, tailPages)
	}
	checkReadsBack(t, tab)
}
