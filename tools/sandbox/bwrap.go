package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// bwrapBase are the options every confined command gets: its own PID and
// IPC namespaces (it sees and signals only its own processes), a new
// session (no controlling terminal to type into), no capabilities (a root
// user cannot undo the mounts), and an end when its parent ends.
var bwrapBase = []string{
	"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
	"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
}

// probeBwrap runs bwrap once, with the options commands get, to learn
// whether it can make its namespaces here (a container or a kernel
// setting may forbid them). It returns bwrap's path and version.
var probeBwrap = sync.OnceValues(func() (string, error) {
	if runtime.GOOS != "linux" {
		return "", errors.New("bubblewrap runs on Linux only")
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return "", errors.New("bubblewrap (bwrap) is not installed")
	}
	args := append(append([]string{}, bwrapBase...), "--unshare-net", "--", "true")
	var stderr bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("bubblewrap cannot make its namespaces here (%s)", msg)
	}
	out, _ := exec.Command(path, "--version").Output()
	version := strings.TrimSpace(string(out))
	if version == "" {
		version = "bubblewrap"
	}
	return path + "\x00" + version, nil
})

// Prepare starts, in the background, learning whether bubblewrap works
// here, for a sandbox of the given mechanism that may use it: the probe
// runs bwrap twice, tens of milliseconds of waiting. A caller starts it
// before work that waits on something else (the first contact with the
// model server), so that New, later, finds the answer ready instead of
// putting that wait before the first request.
func Prepare(mechanism string) {
	if mechanism == "" || mechanism == Auto || mechanism == Bubblewrap {
		go probeBwrap()
	}
}

func (s *Sandbox) useBubblewrap() error {
	got, err := probeBwrap()
	if err != nil {
		return err
	}
	s.bwrap, s.detail, _ = strings.Cut(got, "\x00")
	s.mech = Bubblewrap
	return nil
}

// mount is one bwrap mount over path.
type mount struct {
	path string
	// kind orders mounts of one path: writable, then hidden, then
	// protected, so that the most specific entry wins.
	kind int
}

const (
	mountWritable = iota
	// mountPinned binds a directory over itself: a mount point cannot be
	// renamed or removed, so no command can put another .git, with its
	// own hooks and config, in the place of the one protected.
	mountPinned
	mountHidden
	mountProtected
)

// bwrapCommand is the bwrap command line that runs argv. Mounts are
// made from the shallowest path to the deepest, so that a path below
// another takes its own rule: a hidden directory inside a writable one
// stays hidden, a writable one inside a hidden one is writable.
func (s *Sandbox) bwrapCommand(argv []string) []string {
	var mounts []mount
	for _, d := range s.writable {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			mounts = append(mounts, mount{real, mountWritable})
		}
	}
	for _, h := range s.hidden {
		if real, err := filepath.EvalSymlinks(h); err == nil {
			mounts = append(mounts, mount{real, mountHidden})
		}
	}
	for _, p := range s.protected {
		if filepath.Base(p) == "hooks" {
			mounts = append(mounts, mount{filepath.Dir(p), mountPinned})
		}
		mounts = append(mounts, mount{p, mountProtected})
	}
	mounts = slices.Compact(mounts) // a hidden link and its target are one path
	sort.SliceStable(mounts, func(i, j int) bool {
		di, dj := strings.Count(mounts[i].path, "/"), strings.Count(mounts[j].path, "/")
		if di != dj {
			return di < dj
		}
		return mounts[i].kind < mounts[j].kind
	})

	args := append([]string{s.bwrap}, bwrapBase...)
	if !s.policy.Network {
		args = append(args, "--unshare-net")
	}
	for _, m := range mounts {
		info, err := os.Lstat(m.path)
		switch {
		case m.kind == mountWritable || m.kind == mountPinned:
			args = append(args, "--bind-try", m.path, m.path)
		case m.kind == mountHidden && err == nil && info.IsDir():
			args = append(args, "--tmpfs", m.path, "--remount-ro", m.path)
		case m.kind == mountHidden && err == nil:
			args = append(args, "--ro-bind", os.DevNull, m.path)
		case m.kind == mountProtected && err == nil:
			args = append(args, "--ro-bind", m.path, m.path)
		case m.kind == mountProtected && filepath.Base(m.path) == "hooks":
			// No hooks directory yet: an empty read-only one, so that
			// none can be made.
			args = append(args, "--tmpfs", m.path, "--remount-ro", m.path)
		}
	}
	args = append(args, "--chdir", s.policy.Root, "--")
	return append(args, argv...)
}
