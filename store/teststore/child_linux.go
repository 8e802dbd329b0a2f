package teststore

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when this process dies, so a test
// binary killed at its timeout leaves no second pass running.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
