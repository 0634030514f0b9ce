package filesystem

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connector"
)

// Partitioned tables (PARTITIONED BY): 'path' is a directory; the sink
// writes each row into the part file of its partition,
// path/k1=v1/k2=v2/part-0, as Flink's filesystem sink lays them out,
// without the partition columns (the directory names hold them); the
// source reads every file under a directory path, filling the partition
// columns from the directory names.

// DefaultPartition is the directory value of a NULL partition column,
// Flink's 'partition.default-name'.
const DefaultPartition = "__DEFAULT_PARTITION__"

// escapePartition escapes a partition value as Flink's
// PartitionPathUtils.escapePathName does: control characters and
// "\"#%'*/:=?\\\x7F{[]^ as %XX.
func escapePartition(v string) string {
	if v == "" {
		return DefaultPartition
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapePartition undoes escapePartition.
func unescapePartition(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '%' && i+2 < len(v) {
			var c byte
			if _, err := fmt.Sscanf(v[i+1:i+3], "%02X", &c); err == nil {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// partitionSchema marks the partition columns of schema as metadata, so
// that the format neither writes nor reads them, and returns their
// indexes.
func partitionSchema(schema []connector.Column, keys []string) ([]connector.Column, []int, error) {
	out := append([]connector.Column(nil), schema...)
	idx := make([]int, len(keys))
	for k, key := range keys {
		idx[k] = -1
		for i := range out {
			if out[i].Name == key && out[i].MetadataKey == "" {
				out[i].MetadataKey = "partition"
				idx[k] = i
			}
		}
		if idx[k] < 0 {
			return nil, nil, fmt.Errorf("the partition column %s is not a physical column of the table", key)
		}
	}
	return out, idx, nil
}

// sinkFiles lists the files a partitioned sink writes under dir (part
// files, success files named success, and its finish marker), as paths
// relative to dir: what a new run's Open removes.
func sinkFiles(dir, success string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if _, ok := partIndex(d.Name()); ok || (success != "" && d.Name() == success) || (d.Name() == finishMarker && filepath.Dir(p) == dir) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// partName is the name of a partition's n-th part file; partIndex reads n
// back.
func partName(n int) string { return "part-" + strconv.Itoa(n) }

func partIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == rest
}
