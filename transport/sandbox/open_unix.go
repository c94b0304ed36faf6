//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// oNonblock makes an open return at once whatever the path names: opening
// a FIFO blocks until its other end is opened, and a device may block too,
// so files are opened non-blocking, looked at, and refused unless regular.
const oNonblock = syscall.O_NONBLOCK

// setBlocking clears O_NONBLOCK on f once it is known to be a regular file,
// whose reads and writes then behave as any file's (and another process
// handed the descriptor, ffmpeg, sees an ordinary file).
func setBlocking(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
