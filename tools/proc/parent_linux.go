package proc

import "syscall"

// dieWithParent has the kernel kill the program when tern dies, even of
// SIGKILL, which leaves tern no time to stop it.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
