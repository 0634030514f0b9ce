//go:build !linux

package state

import "os"

// pageOutMappings does nothing where MADV_PAGEOUT does not exist: the
// kernel reclaims the mapped pages under memory pressure.
func pageOutMappings(string, map[uint64]int64) int { return 0 }

// diskUsage is the size of the files directly under dir, in bytes.
func diskUsage(dir string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}
