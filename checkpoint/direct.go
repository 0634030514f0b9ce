package checkpoint

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// directBlock is the alignment O_DIRECT asks of a write's buffer, offset
// and length: 4096 covers devices of 512- and 4096-byte logical blocks.
const directBlock = 4096

// directBuf is how many bytes a partFile collects before writing them:
// a multiple of directBlock.
const directBuf = 1 << 20

// partFile is where a part's bytes go: a buffer of directBuf bytes,
// aligned for O_DIRECT, written to the file when full. Where the
// filesystem allows it (enableDirect), the file is written with O_DIRECT:
// the bytes go from the buffer to the device without being copied into the
// page cache. A checkpoint's parts are written once, fsynced at Close and
// read back only on a restore, so the page cache's copy was pure cost: the
// kernel's copy and page allocation were half of what a checkpoint cost
// the job's CPU (q20-ckpt, docs/performance.md), and the pages it filled
// counted against a container's memory limit and pushed out Badger's
// tables. Where O_DIRECT is refused (tmpfs on older kernels, some network
// filesystems), at open or at a write, the file is written through the
// page cache as before: same bytes, same fsync.
type partFile struct {
	f      *os.File
	direct bool
	buf    []byte // directBuf bytes, aligned to directBlock
	n      int    // bytes of buf in use
	size   int64  // bytes written to the file and buffered
}

// directBufs holds aligned buffers of directBuf bytes between parts: a
// checkpoint writes many parts, most of them a few hundred bytes (sources'
// positions, partitions' metadata), and each would otherwise allocate and
// zero a buffer of its own.
var directBufs = sync.Pool{New: func() any {
	raw := make([]byte, directBuf+directBlock)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % directBlock); r != 0 {
		skip = directBlock - r
	}
	b := raw[skip : skip+directBuf : skip+directBuf]
	return &b
}}

func newPartFile(f *os.File) *partFile {
	return &partFile{f: f, direct: enableDirect(f), buf: *directBufs.Get().(*[]byte)}
}

// release gives the buffer back for other parts; p is not used after it.
func (p *partFile) release() {
	if p.buf != nil {
		b := p.buf
		p.buf = nil
		directBufs.Put(&b)
	}
}

// Write buffers b, writing the buffer to the file each time it fills.
func (p *partFile) Write(b []byte) (int, error) {
	done := 0
	for len(b) > 0 {
		c := copy(p.buf[p.n:], b)
		p.n += c
		p.size += int64(c)
		done += c
		b = b[c:]
		if p.n == len(p.buf) {
			if err := p.writeOut(p.buf); err != nil {
				return done, err
			}
			p.n = 0
		}
	}
	return done, nil
}

// writeOut writes b, whose length is a multiple of directBlock when the
// file is direct. A write refused with EINVAL (the filesystem took the
// flag but not the write) turns O_DIRECT off and is tried again: a part is
// never lost to the optimisation.
func (p *partFile) writeOut(b []byte) error {
	n, err := p.f.Write(b)
	if err != nil && p.direct && errors.Is(err, syscall.EINVAL) {
		if p.direct = !disableDirect(p.f); !p.direct {
			_, err = p.f.Write(b[n:])
		}
	}
	return err
}

// Flush writes what is buffered. On a direct file the last block is
// padded with zeros to directBlock and the file truncated back to the
// part's size. A partFile is not written after Flush.
func (p *partFile) Flush() error {
	if p.n == 0 {
		return nil
	}
	n, pad := p.n, 0
	if p.direct {
		pad = (n+directBlock-1)/directBlock*directBlock - n
		clear(p.buf[n : n+pad])
	}
	if err := p.writeOut(p.buf[:n+pad]); err != nil {
		return err
	}
	p.n = 0
	if pad > 0 {
		return p.f.Truncate(p.size)
	}
	return nil
}
