//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// HelperFlag, as the first argument of tern's binary, makes it the
// Landlock helper: it restricts itself as its second argument (a JSON
// rules) says, then executes the command after "--" (see RunHelper).
const HelperFlag = "--tern-sandbox"

// rules are what the helper is told: the policy with every writable and
// hidden directory resolved.
type rules struct {
	Writable []string `json:"writable"`
	Hidden   []string `json:"hidden"`
	Network  bool     `json:"network"`
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

func (s *Sandbox) useLandlock() error {
	if s.helper == "" {
		return errors.New("Landlock needs tern's own binary as its helper")
	}
	abi := landlockABI()
	if abi < 1 {
		return errors.New("this kernel has no Landlock (Linux 5.13 or later with Landlock enabled)")
	}
	s.abi, s.mech, s.detail = abi, Landlock, fmt.Sprintf("Landlock ABI %d", abi)
	return nil
}

func (s *Sandbox) landlockCommand(argv []string) ([]string, error) {
	spec, err := json.Marshal(rules{Writable: s.writable, Hidden: s.hidden, Network: s.policy.Network})
	if err != nil {
		return nil, err
	}
	return append([]string{s.helper, HelperFlag, string(spec), "--"}, argv...), nil
}

// landlockGaps says what Landlock leaves open at this ABI.
func (s *Sandbox) landlockGaps() []string {
	gaps := []string{".git/hooks, .git/config and .tern stay writable (Landlock cannot make part of a writable directory read-only; bubblewrap can): tern puts hooks and config back after a command that changed them, .tern not"}
	for _, h := range s.hidden {
		for _, w := range s.writable {
			if within(w, h) {
				gaps = append(gaps, home(h)+" is inside the writable "+home(w)+", so it is not hidden")
			}
		}
	}
	gaps = append(gaps, "names in a hidden directory can be listed (not read)")
	if s.abi < 3 {
		gaps = append(gaps, "files outside the workspace can be truncated (Landlock ABI 3, Linux 6.2)")
	}
	if !s.policy.Network && s.abi < 4 {
		gaps = append(gaps, "the network stays on (Landlock ABI 4, Linux 6.7)")
	} else if !s.policy.Network && s.abi < 10 {
		gaps = append(gaps, "with the network off, UDP still works (Landlock ABI 10)")
	}
	if s.abi < 6 {
		gaps = append(gaps, "commands can signal processes outside the sandbox and reach abstract UNIX sockets (Landlock ABI 6, Linux 6.12)")
	}
	if s.abi < 9 {
		gaps = append(gaps, "commands can connect to UNIX sockets outside the sandbox, such as a Docker daemon's (Landlock ABI 9)")
	}
	return gaps
}

// RunHelper is the Landlock helper: args are the rules (JSON), "--" and
// the command. It restricts this process — its writes to the writable
// directories, its reads to everything but the hidden paths, its TCP
// (and, where the kernel can, UDP) to nothing when the network is off,
// its signals and abstract sockets to its own — and executes the
// command in its place, which inherits the restriction with everything
// it starts. It returns only on failure, with the exit code for the
// process; the caller is main, when its first argument is HelperFlag.
func RunHelper(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tern sandbox: "+format+"\n", a...)
		return 125
	}
	if len(args) < 3 || args[1] != "--" {
		return fail("usage: %s RULES -- COMMAND", HelperFlag)
	}
	var r rules
	if err := json.Unmarshal([]byte(args[0]), &r); err != nil {
		return fail("bad rules: %v", err)
	}
	argv := args[2:]
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return fail("%v", err)
	}
	// A session of its own: no controlling terminal to type into.
	unix.Setsid()
	runtime.LockOSThread()
	if err := restrict(r); err != nil {
		return fail("%v", err)
	}
	err = syscall.Exec(prog, argv, os.Environ())
	return fail("%v", err)
}

// Access rights, as Landlock names them.
const (
	readFile = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSExecute)
	readDir  = landlock.AccessFSSet(ll.AccessFSReadDir)
	// writeFile is what a writable device file (/dev/null) needs.
	writeFile = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate)
)

// restrict applies the rules to this process.
func restrict(r rules) error {
	cfg := landlock.V11
	if r.Network {
		cfg.HandledAccessNet = 0
	}
	var fs []landlock.Rule
	// Reading: every directory may be listed; every file read or run,
	// except below a hidden path. Landlock only grants, so the tree is
	// granted piece by piece around each hidden path.
	fs = append(fs, landlock.PathAccess(readDir, "/"))
	fs = append(fs, readable("/", r.Hidden)...)
	// Writing.
	for _, d := range r.Writable {
		fs = append(fs, landlock.RWDirs(d).WithRefer().IgnoreIfMissing())
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full"} {
		fs = append(fs, landlock.PathAccess(writeFile|readFile, dev).IgnoreIfMissing())
	}
	return cfg.BestEffort().Restrict(fs...)
}

// readable grants reading below dir, except the hidden paths: the whole
// of dir when no hidden path is below it, else each of its entries the
// same way. Symbolic links are left out: the path they lead to is
// granted, or not, where it is.
func readable(dir string, hidden []string) []landlock.Rule {
	if slices.Contains(hidden, dir) {
		return nil
	}
	if !slices.ContainsFunc(hidden, func(h string) bool { return within(dir, h) }) {
		return []landlock.Rule{landlock.PathAccess(readFile|readDir, dir).IgnoreIfMissing()}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []landlock.Rule
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
		case e.IsDir():
			out = append(out, readable(p, hidden)...)
		case !slices.Contains(hidden, p):
			out = append(out, landlock.PathAccess(readFile, p).IgnoreIfMissing())
		}
	}
	return out
}
