//go:build !linux

package launch

import "syscall"

// sysProcAttr has nothing to add outside Linux, which alone has Pdeathsig.
func sysProcAttr() *syscall.SysProcAttr { return nil }
