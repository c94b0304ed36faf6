//go:build unix

package lighthouse

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the CLI in a process group of its own and kills
// the whole group when the call ends, so that no child Node left behind
// outlives the audit.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
