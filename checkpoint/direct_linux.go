//go:build linux

package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// enableDirect turns O_DIRECT on for f and reports whether the filesystem
// took it (fcntl refuses it where the filesystem cannot do direct I/O).
func enableDirect(f *os.File) bool {
	return setDirect(f, true)
}

// disableDirect turns O_DIRECT off for f and reports whether it did.
func disableDirect(f *os.File) bool {
	return setDirect(f, false)
}

func setDirect(f *os.File, on bool) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil {
			return
		}
		if on {
			fl |= unix.O_DIRECT
		} else {
			fl &^= unix.O_DIRECT
		}
		_, err = unix.FcntlInt(fd, unix.F_SETFL, fl)
		ok = err == nil
	})
	return ok
}
