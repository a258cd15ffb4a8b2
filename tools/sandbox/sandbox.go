// Package sandbox confines the commands tern runs with the kernel, so that
// what a command may touch does not depend on tern reading its text right.
//
// A confined command may write only inside the workspace, the system
// temporary directory and the directories the user's configuration adds;
// it may read everything else except what the configuration hides; and,
// when the configuration says so, it has no network. Inside the
// workspace, .git/hooks, .git/config and .tern stay read-only to it, so a
// command cannot plant a hook or a git setting that runs later, outside
// the sandbox, nor change tern's own records. Everything the command
// starts is confined the same way, daemons included: the confinement is
// inherited, and no process can leave it.
//
// Two mechanisms do this on Linux, and New picks one:
//
//   - bubblewrap (bwrap), when it is installed and can make namespaces
//     here: a mount namespace in which the filesystem is read-only but for
//     the writable directories, hidden paths are covered by empty ones,
//     and the protected paths are read-only mounts inside the workspace; a
//     network namespace of its own when the network is off; a PID
//     namespace, a new session and no capabilities. It enforces the whole
//     policy.
//   - Landlock, an unprivileged kernel feature (Linux 5.13 and later):
//     tern re-executes itself as a small helper (HelperFlag) that
//     restricts itself and then executes the command. It confines writes
//     and reads, and TCP when the network is off (UDP too from Landlock
//     ABI 10), but it cannot make part of a writable directory read-only,
//     so it leaves .git/hooks, .git/config and .tern writable; Gaps says
//     so.
//
// Where neither works (another OS, an old kernel, a container that allows
// neither), New returns a Sandbox that is not Active, with the reason.
//
// The package imports no other package of tern.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Policy is what confined commands may do.
type Policy struct {
	// Root is the workspace: writable, but for Protected.
	Root string
	// Writable are more directories commands may write.
	Writable []string
	// Hidden are files and directories commands may not read.
	Hidden []string
	// Network lets commands reach the network.
	Network bool
}

// Mechanisms New may be asked for.
const (
	Auto       = "auto"
	Bubblewrap = "bubblewrap"
	Landlock   = "landlock"
	Off        = "off"
)

// Options say how New confines commands.
type Options struct {
	// Mechanism is Auto (bubblewrap when it works, else Landlock),
	// Bubblewrap, Landlock or Off; "" is Auto.
	Mechanism string
	// Helper is tern's own binary, which runs the Landlock helper
	// (HelperFlag); without it Landlock is not used.
	Helper string
}

// Sandbox confines commands under one policy. The zero value, and any
// Sandbox that is not Active, runs commands unconfined.
type Sandbox struct {
	policy Policy
	// mech is Bubblewrap, Landlock, or "" when commands run unconfined.
	mech string
	// detail names the mechanism's version ("bubblewrap 0.8.0",
	// "Landlock ABI 7"); why says why none is active.
	detail, why string
	bwrap       string // bwrap's path
	helper      string // tern's binary, for Landlock
	abi         int    // the kernel's Landlock ABI
	// protected are the paths inside the root kept read-only.
	protected []string
	// writable are every directory commands may write: the root, the
	// temporary directories and Policy.Writable, cleaned.
	writable []string
	hidden   []string
}

// New checks the policy and picks the mechanism. An error means the
// options or policy are wrong (an unknown mechanism, a relative path), or
// the mechanism asked for by name cannot work here; with Auto, no
// mechanism working is not an error: the Sandbox is then not Active and
// Why says why.
func New(p Policy, o Options) (*Sandbox, error) {
	s := &Sandbox{policy: p, helper: o.Helper}
	if !filepath.IsAbs(p.Root) {
		return nil, fmt.Errorf("sandbox: the workspace %q is not an absolute path", p.Root)
	}
	for _, list := range [][]string{p.Writable, p.Hidden} {
		for _, d := range list {
			if !filepath.IsAbs(d) {
				return nil, fmt.Errorf("sandbox: %q is not an absolute path", d)
			}
		}
	}
	s.writable = cleanAll(append(append([]string{p.Root}, tempDirs()...), p.Writable...))
	// A hidden path that is a symbolic link hides where it leads too.
	var hidden []string
	for _, h := range append(append([]string(nil), p.Hidden...), ipcPaths()...) {
		hidden = append(hidden, h)
		if real, err := filepath.EvalSymlinks(h); err == nil {
			hidden = append(hidden, real)
		}
	}
	s.hidden = cleanAll(hidden)
	s.protected = protectedPaths(filepath.Clean(p.Root))

	switch o.Mechanism {
	case "", Auto:
		errB := s.useBubblewrap()
		if errB == nil {
			return s, nil
		}
		errL := s.useLandlock()
		if errL == nil {
			return s, nil
		}
		s.why = errB.Error() + "; " + errL.Error()
		return s, nil
	case Bubblewrap:
		if err := s.useBubblewrap(); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	case Landlock:
		if err := s.useLandlock(); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	case Off:
		s.why = "the sandbox is off ([sandbox] mechanism = \"off\")"
	default:
		return nil, fmt.Errorf("sandbox: unknown mechanism %q; want auto, bubblewrap, landlock or off", o.Mechanism)
	}
	return s, nil
}

// Active reports whether commands run confined.
func (s *Sandbox) Active() bool { return s != nil && s.mech != "" }

// Mechanism is Bubblewrap, Landlock, or "" when commands run unconfined.
func (s *Sandbox) Mechanism() string {
	if s == nil {
		return ""
	}
	return s.mech
}

// Why says why commands run unconfined; "" when they do not.
func (s *Sandbox) Why() string {
	if s.Active() {
		return ""
	}
	if s == nil || s.why == "" {
		return "no sandbox is configured"
	}
	return s.why
}

// Network reports whether confined commands may reach the network.
func (s *Sandbox) Network() bool { return s == nil || s.policy.Network }

// Summary is one line on what confines commands, for the status bar,
// tern doctor and the start of a session.
func (s *Sandbox) Summary() string {
	if !s.Active() {
		return "commands run unconfined: " + s.Why()
	}
	net := "network on"
	if !s.policy.Network {
		net = "network off"
	}
	return fmt.Sprintf("commands confined by %s: writes to the workspace and %s only; %s hidden; %s",
		s.detail, strings.Join(s.extraWritable(), ", "), strings.Join(s.hiddenNames(), ", "), net)
}

// extraWritable names the writable directories besides the workspace.
func (s *Sandbox) extraWritable() []string {
	var out []string
	for _, d := range s.writable {
		if d != filepath.Clean(s.policy.Root) {
			out = append(out, home(d))
		}
	}
	return out
}

func (s *Sandbox) hiddenNames() []string {
	var out []string
	for _, h := range s.hidden {
		out = append(out, home(h))
	}
	if len(out) == 0 {
		return []string{"nothing"}
	}
	return out
}

// CanWrite reports whether confined commands may write path (when the
// sandbox is not Active, everything is).
func (s *Sandbox) CanWrite(path string) bool {
	if !s.Active() {
		return true
	}
	for _, w := range s.writable {
		if within(w, filepath.Clean(path)) {
			return true
		}
	}
	return false
}

// Gaps lists what the active mechanism does not enforce of the policy.
func (s *Sandbox) Gaps() []string {
	switch s.Mechanism() {
	case Bubblewrap:
		gaps := []string{"UNIX sockets on the disk other than those hidden (the system bus, a database's) stay reachable"}
		if s.policy.Network {
			gaps = append(gaps, "with the network on, commands reach abstract UNIX sockets (X11's, an old D-Bus) and every local service by TCP")
		}
		return gaps
	case Landlock:
		return s.landlockGaps()
	}
	return nil
}

// Command returns the command line that runs argv confined: argv itself
// when the sandbox is not Active.
func (s *Sandbox) Command(argv []string) ([]string, error) {
	switch s.Mechanism() {
	case Bubblewrap:
		return s.bwrapCommand(argv), nil
	case Landlock:
		return s.landlockCommand(argv)
	}
	return argv, nil
}

// ErrUnconfined is returned by Require when commands would run
// unconfined.
var ErrUnconfined = errors.New("no sandbox can confine commands here")

// Require returns nil when commands run confined, else an error wrapping
// ErrUnconfined that says why.
func (s *Sandbox) Require() error {
	if s.Active() {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrUnconfined, s.Why())
}

// protectedPaths are the paths inside root a command may not change:
// git's hooks and configuration, which later git commands outside the
// sandbox would obey, and tern's own directory. A .git that is a file (a
// worktree's or a submodule's) names the repository git uses, so it is
// protected whole.
func protectedPaths(root string) []string {
	out := []string{}
	gitDir := filepath.Join(root, ".git")
	if info, err := os.Lstat(gitDir); err == nil {
		if info.Mode().IsRegular() {
			out = append(out, gitDir)
		} else if info.IsDir() {
			out = append(out, filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "config"))
		}
	}
	return append(out, filepath.Join(root, ".tern"))
}

// tempDirs are the system temporary directory and the shared-memory one.
func tempDirs() []string {
	out := []string{os.TempDir()}
	if info, err := os.Stat("/dev/shm"); err == nil && info.IsDir() {
		out = append(out, "/dev/shm")
	}
	return out
}

// ipcPaths are where the user's own services listen: the runtime
// directory (the session bus, systemd's user manager, agents, Wayland)
// and the X server's sockets. A command that reaches them can ask a
// process outside the sandbox to run anything (systemd-run --user, a
// terminal typing keys), so they are hidden as well.
func ipcPaths() []string {
	var out []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		out = append(out, d)
	} else if d := fmt.Sprintf("/run/user/%d", os.Getuid()); exists(d) {
		out = append(out, d)
	}
	for _, p := range []string{"/tmp/.X11-unix", "/run/docker.sock", "/var/run/docker.sock"} {
		if exists(p) {
			out = append(out, p)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// cleanAll cleans the paths and drops repeats, keeping the order.
func cleanAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		p = filepath.Clean(p)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// home writes a path under the home directory with ~.
func home(p string) string {
	h, err := os.UserHomeDir()
	if err == nil && h != "/" && within(h, p) {
		return "~" + strings.TrimPrefix(p, h)
	}
	return p
}
