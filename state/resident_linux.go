//go:build linux

package state

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pageOutMappings asks the kernel to reclaim the resident pages of every
// shared file mapping whose file is under dir (Badger's memory-mapped
// tables, memtable logs and value logs), with madvise(MADV_PAGEOUT),
// except the last keep[id] bytes of the mapping of table id (its index and
// bloom filter: see tableTails).
//
// Badger maps every table it writes or reads and never unmaps one before
// deleting it, so without this a spilled state of N bytes keeps N bytes
// of file pages in the process's resident set. MADV_PAGEOUT is only
// advice: a page the kernel cannot take (dirty, or mapped elsewhere)
// stays, a page taken is read again from the file when Badger next
// touches it, and a range that was unmapped meanwhile, or mapped anew to
// anything else, loses nothing (unlike MADV_DONTNEED, which would zero
// private memory that the race put there). It returns the number of
// mappings advised.
func pageOutMappings(dir string, keep map[uint64]int64) int {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0
	}
	defer f.Close()
	prefix := []byte(dir + "/")
	page := uint64(os.Getpagesize())
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 7f3c2a000000-7f3c2a200000 r--s 00000000 fd:01 1234   /dir/000001.sst
		line := sc.Bytes()
		i := bytes.IndexByte(line, '/')
		if i < 0 || !bytes.HasPrefix(line[i:], prefix) {
			continue
		}
		f := bytes.Fields(line[:i])
		if len(f) < 2 || len(f[1]) < 4 || f[1][3] != 's' {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte{'-'})
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if tail, ok := keep[tableID(line[i+len(prefix):])]; ok && tail > 0 {
			// The mapping is the file's size rounded up to a page: keep
			// one page more than the tail, and whole pages.
			k := (uint64(tail) + 2*page - 1) / page * page
			if end-start <= k {
				continue
			}
			end -= k
		}
		// Errors (EINVAL on old kernels, ENOMEM for a range unmapped
		// since) change nothing: the pages just stay.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_PAGEOUT)
		n++
	}
	return n
}

// tableID is the number of a Badger table from its file name (000123.sst
// is 123), or 0 (no table has it) for any other file.
func tableID(name []byte) uint64 {
	num, ok := bytes.CutSuffix(name, []byte(".sst"))
	if !ok || len(num) == 0 {
		return 0
	}
	id, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// diskUsage is what the files directly under dir take on disk, in bytes,
// as du counts them (allocated blocks: Badger's memtable logs are sparse
// files much larger than what they hold). A file that vanishes while it
// is counted (a compaction) counts nothing.
func diskUsage(dir string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		var st unix.Stat_t
		if unix.Stat(dir+"/"+e.Name(), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			n += st.Blocks * 512
		}
	}
	return n
}
