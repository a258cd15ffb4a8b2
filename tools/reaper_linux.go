//go:build linux

package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A command run through the reaper is started by a small process of its
// own, tern's binary run with ReaperFlag. That process is a child
// subreaper (PR_SET_CHILD_SUBREAPER): whatever the command starts and
// leaves behind — setsid, setsid -f, a double-forked daemon — is
// re-parented to it, not to init, so it finds and kills every one when
// the command ends, when it is told to stop, and when tern dies (its
// parent-death signal).

// ReaperFlag, as the first argument of tern's binary, makes it run a
// command as a subreaper instead of starting tern (see RunReaper).
const ReaperFlag = "--tern-reaper"

// reaperStatusFD is where the reaper writes how the command ended.
const reaperStatusFD = 3

// RunReaper runs args (a shell, "-c", a command, perhaps behind the
// sandbox's own command) as a child subreaper and
// returns the exit code for the process. The caller is main, when its
// first argument is ReaperFlag.
func RunReaper(args []string) int {
	status := os.NewFile(reaperStatusFD, "status")
	if status != nil {
		syscall.CloseOnExec(reaperStatusFD)
	}
	report := func(s string) {
		if status != nil {
			fmt.Fprintln(status, s)
		}
	}
	if len(args) == 0 {
		report("error no command")
		return 125
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		report("error subreaper: " + err.Error())
		return 125
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	p, err := os.StartProcess(lookPath(args[0]), args, &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		report("error " + err.Error())
		return 127
	}

	// Reap every child, the command and the orphans handed to us.
	type exit struct {
		pid int
		ws  syscall.WaitStatus
	}
	exits := make(chan exit, 64)
	go func() {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				time.Sleep(20 * time.Millisecond) // no children for now
				continue
			}
			exits <- exit{pid, ws}
		}
	}()

	var main syscall.WaitStatus
	mainDone, stopped := false, false
	self := os.Getpid()
wait:
	for {
		select {
		case e := <-exits:
			if e.pid == p.Pid {
				main, mainDone = e.ws, true
				break wait
			}
		case <-sigs:
			// Told to stop: ask everything to end, then kill what has not.
			stopped = true
			signalAll(syscall.SIGTERM)
			deadline := time.After(stopGrace)
			for !mainDone || len(descendants(self)) > 0 {
				select {
				case e := <-exits:
					if e.pid == p.Pid {
						main, mainDone = e.ws, true
					}
				case <-deadline:
					break wait
				case <-time.After(50 * time.Millisecond):
				}
			}
			break wait
		}
	}
	strays := killAll()
	switch {
	case stopped:
		report("stopped")
	case main.Signaled():
		report("signal " + main.Signal().String() + strayWord(strays))
	default:
		report("exit " + strconv.Itoa(main.ExitStatus()) + strayWord(strays))
	}
	switch {
	case !mainDone:
		return 128 + int(syscall.SIGKILL)
	case main.Exited():
		return main.ExitStatus()
	}
	return 128 + int(main.Signal())
}

func strayWord(strays bool) string {
	if strays {
		return " strays"
	}
	return ""
}

func lookPath(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// signalAll sends sig to every descendant of this process.
func signalAll(sig syscall.Signal) {
	for _, pid := range descendants(os.Getpid()) {
		syscall.Kill(pid, sig)
	}
}

// killAll kills every descendant, freezing each first so that none can
// start more while the others die, until none is left. It reports whether
// there were any of the command's: bubblewrap's own process, which may
// outlive the command's end by a moment (its PID namespace's first
// process, taking the rest down with it), does not count.
func killAll() bool {
	found := false
	for round := 0; round < 200; round++ {
		pids := descendants(os.Getpid())
		if len(pids) == 0 {
			return found
		}
		for _, pid := range pids {
			if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(comm)) != "bwrap" {
				found = true
			}
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGSTOP)
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return found
}

// descendants lists the live processes below pid, from /proc.
func descendants(pid int) []int {
	table := procTable()
	for p, info := range table {
		if info.state == "Z" || info.state == "X" {
			delete(table, p)
		}
	}
	return subtree(table, pid)
}

// tern itself is a child subreaper too, once it runs commands through the
// reaper: if a command kills its reaper (kill -9 $PPID), what the command
// started comes back to tern rather than to init, and sweepOrphans stops it.
var subreaper = sync.OnceValue(func() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
})

// becomeSubreaper makes this process a child subreaper, once.
func becomeSubreaper() { subreaper() }

// procInfo is what /proc/PID/stat says of a process.
type procInfo struct {
	state           string
	ppid, pgid, sid int
}

// procTable reads every process's parent, group and session from /proc.
func procTable() map[int]procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int]procInfo{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 4 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		sid, _ := strconv.Atoi(f[3])
		out[pid] = procInfo{state: f[0], ppid: ppid, pgid: pgid, sid: sid}
	}
	return out
}

// sweepOrphans stops what a reaper that died left to this process: its
// children that are still in the reaper's process group, or that left
// this process's session (setsid), with everything below them, and reaps
// them. tern's own children (git, MCP servers, other reapers) keep its
// session and their own groups, so they are not touched. It reports
// whether it found any.
func sweepOrphans(reaper int) (found bool) {
	if !subreaper() {
		return false
	}
	self := os.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		return false
	}
	for round := 0; round < 50; round++ {
		table := procTable()
		var orphans []int
		for pid, p := range table {
			if p.ppid == self && (p.pgid == reaper || p.sid != sid) {
				orphans = append(orphans, pid)
			}
		}
		if len(orphans) == 0 {
			return found
		}
		found = true
		var all []int
		for _, pid := range orphans {
			all = append(all, pid)
			all = append(all, subtree(table, pid)...)
		}
		for _, pid := range all {
			syscall.Kill(pid, syscall.SIGSTOP)
		}
		for _, pid := range all {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range orphans {
			for i := 0; i < 100; i++ {
				var ws syscall.WaitStatus
				if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid || err != nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	return found
}

// subtree lists the processes below pid in table.
func subtree(table map[int]procInfo, pid int) []int {
	children := map[int][]int{}
	for p, info := range table {
		children[info.ppid] = append(children[info.ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// runReaped runs argv through the reaper at exe. It behaves like
// runGroup, but nothing the command starts outlives it, whatever process
// group or session it moves to, and nothing outlives tern: the reaper
// has tern's death as its signal to stop.
func runReaped(ctx context.Context, exe string, argv []string, dir string, timeout time.Duration, out io.Writer) (ending, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return ending{}, err
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return ending{}, err
	}
	cmd := exec.Command(exe, append([]string{ReaperFlag}, argv...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), commandEnv...)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.ExtraFiles = []*os.File{sw} // fd 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}

	// The parent-death signal follows the thread that started the child,
	// so that thread stays locked until the reaper is gone.
	started := make(chan error, 1)
	exited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		pr.Close()
		pw.Close()
		sr.Close()
		sw.Close()
		return ending{}, err
	}
	pw.Close()
	sw.Close()
	drained := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(drained)
	}()
	statusLine := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(sr).ReadString('\n')
		statusLine <- strings.TrimSpace(line)
	}()

	var end ending
	var waitErr error
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	stopReaper := func() error {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			return err
		case <-time.After(stopGrace + 2*time.Second):
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return <-exited
	}
	select {
	case waitErr = <-exited:
	case <-timer.C:
		end.how = endTimeout
		waitErr = stopReaper()
	case <-ctx.Done():
		end.how = endCancel
		waitErr = stopReaper()
	}
	// The reaper is gone, so its status pipe is closed: this does not
	// wait.
	status := <-statusLine
	sr.Close()
	swept := false
	if status == "" {
		// The reaper died without a word (the command killed it, or it
		// was killed after the grace): what it held came back to tern.
		swept = sweepOrphans(cmd.Process.Pid)
	}
	select {
	case <-drained:
	case <-time.After(stopGrace):
		pr.Close()
		<-drained
	}
	pr.Close()
	if end.how != endExit {
		return end, nil
	}
	end.strays = swept
	word, rest, _ := strings.Cut(status, " ")
	end.strays = end.strays || strings.HasSuffix(rest, " strays") || rest == "strays"
	rest = strings.TrimSuffix(rest, " strays")
	switch word {
	case "exit":
		end.code, _ = strconv.Atoi(rest)
	case "signal":
		end.how, end.signal = endSignal, rest
	case "error":
		return end, errors.New(rest)
	default:
		// The reaper itself died without a word.
		var exitErr *exec.ExitError
		switch {
		case waitErr == nil:
		case errors.As(waitErr, &exitErr) && exitErr.ExitCode() >= 0:
			end.code = exitErr.ExitCode()
		case errors.As(waitErr, &exitErr):
			end.how, end.signal = endSignal, signalName(exitErr)
		default:
			return end, waitErr
		}
	}
	return end, nil
}
