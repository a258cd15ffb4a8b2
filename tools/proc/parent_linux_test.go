package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIsolatedProgramDiesWithTern: a server started in a group of its
// own is gone once tern is killed with SIGKILL, which leaves tern no time
// to stop it. The test binary plays tern (TERN_PROC_TEST_PARENT): it starts
// `sleep 300` isolated, says its pid, and waits to be killed.
func TestIsolatedProgramDiesWithTern(t *testing.T) {
	if os.Getenv("TERN_PROC_TEST_PARENT") != "" {
		cmd := exec.Command("sleep", "300")
		Isolate(cmd)
		if err := cmd.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		select {}
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestIsolatedProgramDiesWithTern$")
	parent.Env = append(os.Environ(), "TERN_PROC_TEST_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("the parent did not start the program: %q", line)
	}
	parent.Process.Kill()
	parent.Wait()
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		select {
		case <-t.Context().Done():
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the program (pid %d) outlived the process that started it", pid)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// zombie says whether pid has ended and waits only to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] == "Z"
}
