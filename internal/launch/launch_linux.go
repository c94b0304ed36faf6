package launch

import "syscall"

// sysProcAttr makes Chromium die with us: if tabhive is killed without a
// chance to close it, the kernel sends the browser SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
