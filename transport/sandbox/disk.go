package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// DiskFullError is returned when a write would take the files written
// through a sandbox past [Config.MaxBytes]. The write is refused whole, and
// a [File] that had a write refused removes itself when closed, so that no
// cut-short file is left for an agent to mistake for a whole one.
type DiskFullError struct {
	// Path is the canonical path of the file refused.
	Path string
	// Used is what the sandbox's other files hold; Limit is the bound.
	Used, Limit int64
}

// Error says what happened and what to do, naming the flag that sets the
// bound.
// AgentSentence is the Error text, written for the agent.
func (e *DiskFullError) AgentSentence() string { return e.Error() }

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("Not saved: %s would take the files this session wrote past their bound of %s (--max-session-disk; %s already in use). Delete files the session wrote and no longer needs, or ask the operator for a larger --max-session-disk.",
		e.Path, FormatBytes(e.Limit), FormatBytes(e.Used))
}

// NotRegularError is returned when a path to read or write names something
// other than a regular file: a FIFO (whose open would block until another
// process opened its other end), a device, a socket or a directory.
type NotRegularError struct {
	// Path is the path refused, canonical where it could be made so.
	Path string
	// Mode is what stands there.
	Mode fs.FileMode
}

// AgentSentence is the Error text, written for the agent.
func (e *NotRegularError) AgentSentence() string { return e.Error() }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s: file tools read and write regular files only. Give the path of a regular file, or of one that does not exist yet.", e.Path, e.Kind())
}

// Kind says what stands at the path: "a named pipe (FIFO)", "a
// directory", "a socket", "a device", or "not a regular file".
func (e *NotRegularError) Kind() string {
	switch t := e.Mode.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// FormatBytes writes n as a size a person reads: "12 MiB", "1.5 GiB",
// "640 bytes".
func FormatBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, unit := float64(n)/1024, units[0]
	for _, u := range units[1:] {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

// ledger counts what the files written through one sandbox hold on disk,
// against [Config.MaxBytes]. A file open for writing through the sandbox
// counts the bytes written to it; any other (closed, or written by another
// process, [File.ForProcess]) counts what the file system says it holds,
// looked at again whenever the count nears the bound, so that a file the
// agent deleted or truncated frees its room. A nil *ledger bounds nothing.
type ledger struct {
	limit int64 // fixed at creation; above zero

	mu    sync.Mutex        // guards the fields below; never held across a write
	files map[string]*entry // by canonical path
	used  int64             // the sum of files' sizes
	procs int               // entries written by other processes
	// tidy is how many files the ledger may hold before it looks at them
	// all, forgetting those deleted since: a session that writes and
	// deletes files without end must not grow it without end.
	tidy int
}

// tidyFiles is the least number of files a ledger holds before it looks
// at them all; afterwards, twice what it kept.
const tidyFiles = 1024

// exactRoom is the room below which [ledger.room] looks at every file, not
// just those of other processes: a recording asks for its room before each
// frame, and should not stat a session's every file each time while far
// from the bound.
const exactRoom = 16 << 20

// entry is one file of a ledger. Its fields are guarded by the ledger's mu.
type entry struct {
	path    string
	size    int64
	writers int  // Files open on it through the sandbox
	process bool // written by another process: its size is looked at
}

func newLedger(limit int64) *ledger {
	if limit <= 0 {
		return nil
	}
	return &ledger{limit: limit, files: map[string]*entry{}, tidy: tidyFiles}
}

// fits checks that need more bytes in path, which is about to be created
// or truncated, keep the files within the bound.
func (l *ledger) fits(path string, need int64) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	over := func() bool {
		cur := int64(0)
		if e := l.files[path]; e != nil {
			cur = e.size
		}
		return l.used-cur+need > l.limit
	}
	if over() {
		l.refresh()
		if over() {
			cur := int64(0)
			if e := l.files[path]; e != nil {
				cur = e.size
			}
			return &DiskFullError{Path: path, Used: l.used - cur, Limit: l.limit}
		}
	}
	return nil
}

// opened records path as just opened for writing and truncated.
func (l *ledger) opened(path string) *entry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.files[path]
	if e == nil {
		if len(l.files) >= l.tidy {
			l.refresh()
			l.tidy = max(2*len(l.files), tidyFiles)
		}
		e = &entry{path: path}
		l.files[path] = e
	}
	if e.process {
		e.process = false
		l.procs--
	}
	l.used -= e.size
	e.size = 0
	e.writers++
	return e
}

// add counts n more bytes written to e (n < 0 gives back what a short
// write did not write), or refuses them with a *DiskFullError.
func (l *ledger) add(e *entry, n int64) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.procs > 0 {
		// Files other processes write grow without telling: look.
		l.refreshProcs()
	}
	if n > 0 && l.used+n > l.limit {
		l.refresh()
		if l.used+n > l.limit {
			// The file refused is removed: it is not in use.
			return &DiskFullError{Path: e.path, Used: l.used - e.size, Limit: l.limit}
		}
	}
	e.size += n
	l.used += n
	return nil
}

// closed records that a File open on e was closed.
func (l *ledger) closed(e *entry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	e.writers--
	l.mu.Unlock()
}

// byProcess records that e is written by another process from now on.
func (l *ledger) byProcess(e *entry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if !e.process {
		e.process = true
		l.procs++
	}
	l.mu.Unlock()
}

// room returns how many more bytes the files may take, or -1 without a
// bound.
func (l *ledger) room() int64 {
	if l == nil {
		return -1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refreshProcs()
	if l.limit-l.used < exactRoom {
		l.refresh()
	}
	return max(l.limit-l.used, 0)
}

// refresh looks at every file not being written through the sandbox: a
// file gone, or no longer a regular file, is forgotten; another takes the
// size it has now.
func (l *ledger) refresh() {
	for _, e := range l.files {
		if e.writers == 0 || e.process {
			l.look(e)
		}
	}
}

// refreshProcs looks at the files other processes write.
func (l *ledger) refreshProcs() {
	for _, e := range l.files {
		if e.process {
			l.look(e)
		}
	}
}

// look sets e's size to what its file holds, or forgets it.
func (l *ledger) look(e *entry) {
	fi, err := os.Lstat(e.path)
	l.used -= e.size
	if err != nil || !fi.Mode().IsRegular() {
		e.size = 0
		if e.writers == 0 || e.process {
			if e.process {
				l.procs--
			}
			delete(l.files, e.path)
		}
		return
	}
	e.size = fi.Size()
	l.used += e.size
}

// File is a file of the sandbox open for writing. Its Name is its full,
// canonical path. What is written through it counts against the
// sandbox's [Config.MaxBytes]: a write past it is refused with a
// *[DiskFullError], and the file is then removed when closed.
type File struct {
	f       *os.File
	path    string
	led     *ledger // nil without a bound
	e       *entry
	refused bool // a write was refused: Close removes the file
}

// Name returns the file's canonical path.
func (f *File) Name() string { return f.path }

// Write writes p whole, or nothing if it would take the sandbox's files
// past their bound.
func (f *File) Write(p []byte) (int, error) {
	if err := f.led.add(f.e, int64(len(p))); err != nil {
		f.refused = true
		return 0, err
	}
	n, err := f.f.Write(p)
	if n < len(p) {
		f.led.add(f.e, int64(n-len(p)))
	}
	return n, err
}

// Chmod changes the file's mode.
func (f *File) Chmod(mode fs.FileMode) error { return f.f.Chmod(mode) }

// Stat returns what the open file is.
func (f *File) Stat() (fs.FileInfo, error) { return f.f.Stat() }

// ForProcess returns the open file for another process to write (ffmpeg
// writes a screencast's video to the descriptor it is handed). From then
// on the file counts against the bound with the size the file system
// gives it, and writes through f are not counted: the caller writes only
// through the process. The caller still closes f.
func (f *File) ForProcess() *os.File {
	f.led.byProcess(f.e)
	return f.f
}

// Close closes the file; one that had a write refused is removed.
func (f *File) Close() error {
	err := f.f.Close()
	if f.e != nil {
		f.led.closed(f.e)
		f.e = nil
	}
	if f.refused {
		os.Remove(f.path)
	}
	return err
}

// Room returns how many more bytes the files written through the sandbox
// may take before [Config.MaxBytes]; -1 when there is no bound. It looks
// on disk at the files other processes write, and at every file once
// little room is left (16 MiB), so that a file deleted since gives its
// room back. A recording that writes through another process sizes itself
// with it, before each frame.
func (s *Sandbox) Room() int64 { return s.led.room() }
