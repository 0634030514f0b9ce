package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path durably and all at once: to a
// temporary file next to it, fsynced, renamed over path, and the directory
// fsynced. A crash at any moment leaves either the old file (or none) or
// the new one whole, never part of it. It is for small files that the
// state directory keeps outside checkpoints (the dead-letter files' lengths
// at a job's first start).
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	err = f.Chmod(0o644)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
