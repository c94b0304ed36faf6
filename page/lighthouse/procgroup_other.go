//go:build !unix

package lighthouse

import "os/exec"

// setProcessGroup leaves the default: the CLI is killed when the call ends.
func setProcessGroup(*exec.Cmd) {}
