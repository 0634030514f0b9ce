//go:build !linux

package state

// pageOutMappings does nothing where MADV_PAGEOUT does not exist: the
// kernel reclaims the mapped pages under memory pressure.
func pageOutMappings(string) int { return 0 }
