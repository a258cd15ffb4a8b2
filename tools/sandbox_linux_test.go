//go:build linux

package tools

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/tools/sandbox"
)

// These tests run real commands through run_command, with the reaper,
// under the real sandbox of this machine: bubblewrap and Landlock each,
// where they work. Where one does not, its tests skip, and fail in CI.

// sandboxed is a workspace and a run_command confined by one mechanism,
// with a directory outside every writable one, a hidden one, and the
// system temporary directory moved to a directory of the test's own, so
// that nothing else under /tmp is writable to the commands.
type sandboxed struct {
	ws      *Workspace
	tool    Tool
	sb      *sandbox.Sandbox
	outside string // readable, not writable
	secret  string // hidden
	tmp     string // the temporary directory
}

func newSandboxed(t *testing.T, mech string, network bool, writable ...string) *sandboxed {
	t.Helper()
	base := t.TempDir()
	s := &sandboxed{outside: filepath.Join(base, "outside"), secret: filepath.Join(base, "secret"), tmp: filepath.Join(base, "tmp")}
	root := filepath.Join(base, "ws")
	for _, d := range []string{root, s.outside, s.secret, s.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", s.tmp)
	writeFiles(t, s.secret, map[string]string{"key": "the secret"})
	writeFiles(t, root, map[string]string{"main.go": "package main\n", ".tern/tern.db": "db"})
	gitInit(t, root)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s.sb, err = sandbox.New(sandbox.Policy{Root: root, Writable: writable, Hidden: []string{s.secret}, Network: network},
		sandbox.Options{Mechanism: mech, Helper: exe})
	if err != nil {
		if testenv.InCI() {
			t.Fatalf("CI must run this test with %s: %v (.ci/run installs bubblewrap)", mech, err)
		}
		t.Skipf("%s cannot confine commands here: %v", mech, err)
	}
	if s.ws, err = NewWorkspace(root); err != nil {
		t.Fatal(err)
	}
	s.tool = newRunCommand(t, s.ws, CommandPolicy{Reaper: exe, Sandbox: s.sb})
	return s
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

func (s *sandboxed) run(t *testing.T, command string) Result {
	t.Helper()
	return call(t, s.tool, `{"command":`+quote(command)+`,"timeout":60}`, 0)
}

var mechanisms = []string{sandbox.Bubblewrap, sandbox.Landlock}

// TestSandboxBlocksWritesOutside: each class of command that runs a
// program the text policy cannot see through writes outside the
// workspace and is stopped by the kernel, with a result that says so,
// while the same write inside the workspace succeeds.
func TestSandboxBlocksWritesOutside(t *testing.T) {
	// Each command writes the file named by $F.
	classes := []struct{ name, command string }{
		{"sh -c", `sh -c 'echo x > "$F"'`},
		{"python one-liner", `python3 -c 'import os; open(os.environ["F"], "w").write("x")'`},
		{"git with an output option", `git diff --no-index --output="$F" main.go main.go; true`},
		{"editor -c argument", `vim -es -N -u NONE -c '!echo x > "$F"' -c 'qa!'`},
		{"stream editor's execute", `echo | sed 'e echo x > "$F"'`},
		// The daemon leaves the command's session and group; the
		// command waits for its marker ($M, in the workspace).
		{"daemonised process", `setsid -f sh -c 'echo x > "$F"; touch "$M"'; until [ -e "$M" ]; do sleep 0.01; done`},
	}
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			s := newSandboxed(t, mech, true)
			for i, c := range classes {
				t.Run(c.name, func(t *testing.T) {
					if c.name == "python one-liner" {
						testenv.Program(t, "python3", "apt-get install python3")
					}
					if c.name == "editor -c argument" {
						testenv.Program(t, "vim", "apt-get install vim-nox")
					}
					name := "f" + strconv.Itoa(i)
					// Inside: the write succeeds.
					in := filepath.Join(s.ws.Root(), name)
					r := s.run(t, "export F="+in+" M="+in+".in; "+c.command)
					if _, err := os.Stat(in); err != nil || r.IsError {
						t.Fatalf("the write inside the workspace failed: %v\n%s", err, r.Output)
					}
					// Outside: blocked, and said so.
					out := filepath.Join(s.outside, name)
					r = s.run(t, "export F="+out+" M="+in+".out; "+c.command)
					if _, err := os.Stat(out); err == nil {
						t.Fatalf("the command wrote %s outside the workspace:\n%s", out, r.Output)
					}
					want := "blocked by the sandbox: " + out + " is outside the workspace; ask the user to add it to [sandbox] writable"
					if !r.IsError || !strings.Contains(r.Output, want) || !strings.Contains(r.Summary, "blocked by the sandbox") {
						t.Errorf("result does not say the sandbox blocked it (want %q):\n%s\n%s", want, r.Summary, r.Output)
					}
				})
			}
		})
	}
}

// TestSandboxHides: a hidden directory's files cannot be read, and the
// result says why; the rest of the disk can.
func TestSandboxHides(t *testing.T) {
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			s := newSandboxed(t, mech, true)
			key := filepath.Join(s.secret, "key")
			r := s.run(t, "cat "+key)
			if strings.Contains(r.Output, "the secret") || !r.IsError {
				t.Fatalf("a hidden file was read:\n%s", r.Output)
			}
			if want := "blocked by the sandbox: " + key + " is hidden from commands"; !strings.Contains(r.Output, want) {
				t.Errorf("want %q in:\n%s", want, r.Output)
			}
			if r := s.run(t, "cat /etc/hostname "+filepath.Join(s.ws.Root(), "main.go")); r.IsError {
				t.Errorf("reading outside the hidden paths failed:\n%s", r.Output)
			}
		})
	}
}

// TestSandboxProtectsGitAndTern: inside the writable workspace, git's
// hooks and config and tern's own directory stay read-only, and .git
// cannot be swapped for another; the rest of .git is writable, so git
// commands work. Landlock cannot do this, and says so.
func TestSandboxProtectsGitAndTern(t *testing.T) {
	s := newSandboxed(t, sandbox.Bubblewrap, true)
	root := s.ws.Root()
	before, _ := os.ReadFile(filepath.Join(root, ".git", "config"))
	for _, command := range []string{
		"echo 'rm -rf ~' > .git/hooks/pre-commit",
		"chmod +x .git/hooks/*.sample && echo 'rm -rf ~' >> .git/hooks/pre-commit.sample",
		"git config core.fsmonitor 'rm -rf ~'",
		"echo x > .tern/tern.db",
		"mv .git .git-old && mkdir .git",
		"rm -rf .git/hooks",
	} {
		r := s.run(t, command)
		if !strings.Contains(r.Output, "blocked by the sandbox") || !strings.Contains(r.Output, "is read-only to commands") {
			t.Errorf("%s: not blocked:\n%s", command, r.Output)
		}
	}
	after, _ := os.ReadFile(filepath.Join(root, ".git", "config"))
	if string(before) != string(after) {
		t.Errorf(".git/config changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was planted")
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".tern", "tern.db")); string(data) != "db" {
		t.Errorf(".tern was changed: %q", data)
	}
	if r := s.run(t, "git add main.go && git -c user.name=t -c user.email=t@t commit -qm x && git log --oneline"); r.IsError {
		t.Errorf("git cannot commit in the sandbox:\n%s", r.Output)
	}

}

// TestSandboxLandlockPutsGitBack: Landlock cannot keep .git/hooks and
// .git/config read-only, so tern puts back what a command changed there,
// and says so; the gap is listed.
func TestSandboxLandlockPutsGitBack(t *testing.T) {
	s := newSandboxed(t, sandbox.Landlock, true)
	root := s.ws.Root()
	config := filepath.Join(root, ".git", "config")
	before, _ := os.ReadFile(config)
	for _, command := range []string{
		"echo 'rm -rf ~' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
		"git config core.fsmonitor 'rm -rf ~'",
		"rm -rf .git/hooks",
	} {
		r := s.run(t, command)
		if !strings.Contains(r.Output, "blocked by the sandbox: the command changed") || !strings.Contains(r.Output, "tern put it back") || !r.IsError {
			t.Errorf("%s: not said:\n%s", command, r.Output)
		}
	}
	if after, _ := os.ReadFile(config); string(before) != string(after) {
		t.Errorf(".git/config was not put back:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the planted hook is still there")
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit.sample")); err != nil {
		t.Errorf("the hooks removed were not put back: %v", err)
	}
	if r := s.run(t, "git add main.go && git -c user.name=t -c user.email=t@t commit -qm x"); r.IsError {
		t.Errorf("git cannot commit in the sandbox:\n%s", r.Output)
	}
	if gaps := strings.Join(s.sb.Gaps(), "\n"); !strings.Contains(gaps, ".git/hooks, .git/config and .tern stay writable") {
		t.Errorf("Landlock's gaps do not say .git stays writable:\n%s", gaps)
	}
}

// TestSandboxNetworkOff: with the network off, a loopback TCP connection
// to a server outside is refused (and, under bubblewrap, a UDP datagram
// does not arrive); with it on, the connection is made.
func TestSandboxNetworkOff(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from outside\n"))
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && head -1 <&3"
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			on := newSandboxed(t, mech, true)
			if r := on.run(t, connect); r.IsError || !strings.Contains(r.Output, "hello from outside") {
				t.Fatalf("with the network on, the connection failed:\n%s", r.Output)
			}
			off := newSandboxed(t, mech, false)
			if r := off.run(t, connect); !r.IsError || strings.Contains(r.Output, "hello from outside") {
				t.Fatalf("with the network off, the connection was made:\n%s", r.Output)
			}
			if mech == sandbox.Bubblewrap {
				udpOff(t, off)
			}
		})
	}
}

// udpOff sends a datagram from a confined command to a socket outside,
// then one from the test: the first to arrive must be the test's.
func udpOff(t *testing.T, s *sandboxed) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	s.run(t, "echo from-inside > /dev/udp/127.0.0.1/"+port)
	c, err := net.Dial("udp4", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("marker"))
	c.Close()
	buf := make([]byte, 64)
	pc.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, _, err := pc.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "marker" {
		t.Errorf("a datagram from the sandbox arrived: %q", got)
	}
}

// TestSandboxBuildTools: go test and npm test work in a fixture
// repository with the writable entries the documentation gives.
func TestSandboxBuildTools(t *testing.T) {
	gocache := strings.TrimSpace(run(t, "go", "env", "GOCACHE"))
	testenv.Program(t, "npm", "apt-get install npm")
	home, _ := os.UserHomeDir()
	npmCache := filepath.Join(home, ".npm")
	os.MkdirAll(npmCache, 0o755) // as a session makes the writable directories
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			s := newSandboxed(t, mech, true, gocache, npmCache)
			writeFiles(t, s.ws.Root(), map[string]string{
				"go.mod":       "module fixture\n\ngo 1.22\n",
				"add.go":       "package main\n\nfunc add(a, b int) int { return a + b }\n",
				"add_test.go":  "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
				"package.json": `{"name":"fixture","version":"1.0.0","scripts":{"test":"node test.js"}}`,
				"test.js":      "require('assert').strictEqual(1 + 2, 3); console.log('js ok');\n",
			})
			if r := s.run(t, "GOTOOLCHAIN=local GOFLAGS=-mod=mod go test -count=1 ./..."); r.IsError || !strings.Contains(r.Output, "ok") {
				t.Errorf("go test failed in the sandbox:\n%s", r.Output)
			}
			if r := s.run(t, "npm test"); r.IsError || !strings.Contains(r.Output, "js ok") {
				t.Errorf("npm test failed in the sandbox:\n%s", r.Output)
			}
		})
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(out)
}

// BenchmarkSandboxStart is what confinement adds to a command's start:
// run_command running `true` through the reaper, unconfined and under
// each mechanism.
func BenchmarkSandboxStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	for _, mech := range []string{sandbox.Off, sandbox.Bubblewrap, sandbox.Landlock} {
		b.Run(mech, func(b *testing.B) {
			sb, err := sandbox.New(sandbox.Policy{Root: root, Hidden: []string{"/root/.ssh"}, Network: true},
				sandbox.Options{Mechanism: mech, Helper: exe})
			if err != nil {
				b.Skip(err)
			}
			tool, err := NewRunCommand(ws, nil, CommandPolicy{Reaper: exe, Sandbox: sb})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if r := call(b, tool, `{"command":"true"}`, 0); r.IsError {
					b.Fatal(r.Output)
				}
			}
		})
	}
}
