package checkpoint

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestPartFileSizes writes parts of sizes around the buffer's and the
// block's, in writes of random lengths, directly and through the page
// cache, and reads each back: the file holds exactly the bytes written,
// with no padding left after the last block. Parts share pooled buffers,
// so each part but the first starts on a buffer holding another's bytes.
func TestPartFileSizes(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, directBlock - 1, directBlock, directBlock + 1, directBuf - 1, directBuf, directBuf + 1,
		3*directBuf + 5*directBlock + 17}
	sawDirect := false
	for _, direct := range []bool{true, false} {
		for _, size := range sizes {
			want := make([]byte, size)
			for i := range want {
				want[i] = byte(rng.Uint32())
			}
			path := filepath.Join(dir, "part")
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			p := newPartFile(f)
			if !direct && p.direct {
				if !disableDirect(f) {
					t.Fatal("could not turn O_DIRECT off")
				}
				p.direct = false
			}
			sawDirect = sawDirect || p.direct
			for rest := want; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(3*directBlock))
				if rng.IntN(20) == 0 {
					n = min(len(rest), directBuf+rng.IntN(directBuf))
				}
				if got, err := p.Write(rest[:n]); err != nil || got != n {
					t.Fatalf("size %d: Write = %d, %v; want %d", size, got, err, n)
				}
				rest = rest[n:]
			}
			if err := p.Flush(); err != nil {
				t.Fatalf("size %d: Flush: %v", size, err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			p.release() // the next part reuses the buffer, with these bytes still in it
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("size %d (direct %v): read back %d bytes, not the %d written", size, p.direct, len(got), len(want))
			}
		}
	}
	t.Logf("O_DIRECT used: %v", sawDirect)
}
