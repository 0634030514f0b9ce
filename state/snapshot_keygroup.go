package state

// Key groups: the unit in which keyed state moves between partitions when
// a job restarts at another parallelism (Flink's KeyGroupRangeAssignment).
// A key belongs to one of MaxParallelism key groups by a hash of its
// encoded bytes; partition i of P owns the contiguous key groups
// [i*M/P, (i+1)*M/P) rounded up, so each partition owns a range and every
// key group has exactly one owner at any P <= M. A restarted partition
// restores the entries of its key groups from the old partitions' snapshots
// (Restore with KeyGroupFilter), and its exchange must send it exactly
// those keys (KeyGroupPartition over the same hash).

// DefaultMaxParallelism is the number of key groups when
// 'pipeline.max-parallelism' is not set (Flink's default is 128 as well
// for small parallelism).
const DefaultMaxParallelism = 128

// KeyGroup is the key group, in [0, maxParallelism), of an encoded key.
func KeyGroup(key []byte, maxParallelism int) int {
	// FNV-1a, then a finalizer (SplitMix64's) so that keys differing in
	// their last bytes spread over the groups.
	h := uint64(14695981039346656037)
	for _, c := range key {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return int(h % uint64(maxParallelism))
}

// KeyGroupPartition is the partition, of parallelism, that owns key group
// kg (as Flink's computeOperatorIndexForKeyGroup).
func KeyGroupPartition(kg, parallelism, maxParallelism int) int {
	return kg * parallelism / maxParallelism
}

// KeyGroupFilter is a Restore filter keeping the keys whose key group
// partition part of parallelism owns; key maps a table's stored key to the
// bytes the key group is computed from (nil: the stored key itself).
func KeyGroupFilter(part, parallelism, maxParallelism int, key func(table string, stored []byte) []byte) func(string, []byte) bool {
	return func(table string, stored []byte) bool {
		k := stored
		if key != nil {
			k = key(table, stored)
		}
		return KeyGroupPartition(KeyGroup(k, maxParallelism), parallelism, maxParallelism) == part
	}
}
