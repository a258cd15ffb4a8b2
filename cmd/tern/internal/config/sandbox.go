package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/tools/sandbox"
)

// Sandbox is the [sandbox] table: how the kernel confines the commands
// run_command runs, on Linux (bubblewrap, else Landlock).
type Sandbox struct {
	// Directories commands may write besides the workspace and the
	// system temporary directory, such as `"~/.cache/go-build"` for go
	// test or `"~/.npm"` for npm. Only your own config file can add them.
	Writable []string `toml:"writable"`
	// Files and directories commands cannot read. Default: `["~/.ssh",
	// "~/.aws"]`; a repository's file can add more.
	Hidden []string `toml:"hidden"`
	// Whether commands may use the network; a repository's file can turn
	// it off. Default: `true`.
	Network bool `toml:"network"`
	// Refuses to run commands when no sandbox can confine them, instead
	// of running them unconfined; a repository's file can turn it on.
	Required bool `toml:"required"`
	// What confines commands: `auto` (bubblewrap when it works here, else
	// Landlock), `bubblewrap`, `landlock`, or `off`. Only your own config
	// file can set it.
	Mechanism string `toml:"mechanism"`
}

// DefaultSandbox is the [sandbox] table before any file.
func DefaultSandbox() Sandbox {
	return Sandbox{Hidden: []string{"~/.ssh", "~/.aws"}, Network: true, Mechanism: "auto"}
}

// check checks the table's values.
func (s Sandbox) check() error {
	switch s.Mechanism {
	case "auto", "bubblewrap", "landlock", "off":
	default:
		return fmt.Errorf("sandbox.mechanism must be auto, bubblewrap, landlock or off, not %q", s.Mechanism)
	}
	for _, list := range []struct {
		key   string
		paths []string
	}{{"sandbox.writable", s.Writable}, {"sandbox.hidden", s.Hidden}} {
		for _, p := range list.paths {
			if !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
				return fmt.Errorf("%s: %q must be an absolute path or start with ~/", list.key, p)
			}
			if filepath.Clean(p) == "/" {
				return fmt.Errorf("%s: %q would be the whole disk", list.key, p)
			}
		}
	}
	return nil
}

// Prepare starts learning, in the background, what Open will need to
// know about this machine (sandbox.Prepare).
func (s Sandbox) Prepare() { sandbox.Prepare(s.Mechanism) }

// MakeWritable creates the writable directories that do not exist yet
// (a cache the user named before its tool first ran), so that the
// sandbox can open them to commands.
func (s Sandbox) MakeWritable() {
	home, _ := os.UserHomeDir()
	writable, _ := s.Paths(home)
	for _, w := range writable {
		os.MkdirAll(w, 0o755)
	}
}

// Paths returns the writable and hidden paths, ~ made home.
func (s Sandbox) Paths(home string) (writable, hidden []string) {
	expand := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if p == "~" || strings.HasPrefix(p, "~/") {
				p = filepath.Join(home, strings.TrimPrefix(p, "~"))
			}
			out = append(out, filepath.Clean(p))
		}
		return out
	}
	return expand(s.Writable), expand(s.Hidden)
}

// mergeProject applies a project file's [sandbox] table: it may only
// tighten the user's (more hidden paths, the network off, the sandbox
// required); what would loosen it is ignored with a notice.
func (s *Sandbox) mergeProject(proj Sandbox, md toml.MetaData, path string) (notices []string) {
	for _, key := range []string{"writable", "mechanism"} {
		if md.IsDefined("sandbox", key) {
			notices = append(notices, fmt.Sprintf("%s: sandbox.%s ignored: a repository cannot loosen the sandbox; set it in your own config file", path, key))
		}
	}
	for _, h := range proj.Hidden {
		if !slices.Contains(s.Hidden, h) {
			s.Hidden = append(s.Hidden, h)
		}
	}
	if md.IsDefined("sandbox", "network") {
		if proj.Network && !s.Network {
			notices = append(notices, fmt.Sprintf("%s: sandbox.network ignored: a repository can turn the network off, not on", path))
		}
		s.Network = s.Network && proj.Network
	}
	s.Required = s.Required || proj.Required
	return notices
}

// Open makes the sandbox the table asks for, for the workspace at root,
// with tern's binary as the Landlock helper ("" where there is none).
// notice, when not "", says at the start of a session what the user
// should know: that commands run unconfined, and why, or what the
// mechanism in force leaves open. An error means the table names a
// mechanism that cannot work here.
func (s Sandbox) Open(root, helper string) (sb *sandbox.Sandbox, notice string, err error) {
	home, _ := os.UserHomeDir()
	writable, hidden := s.Paths(home)
	sb, err = sandbox.New(sandbox.Policy{Root: root, Writable: writable, Hidden: hidden, Network: s.Network},
		sandbox.Options{Mechanism: s.Mechanism, Helper: helper})
	if err != nil {
		return nil, "", err
	}
	switch {
	case !sb.Active() && s.Required:
		notice = fmt.Sprintf("commands will not run: [sandbox] required = true, and %s", sb.Why())
	case !sb.Active() && s.Mechanism != sandbox.Off:
		notice = "commands run unconfined, judged by their text alone: " + sb.Why() + " (tern doctor says more)"
	case sb.Mechanism() == sandbox.Landlock:
		notice = "commands confined by Landlock, which cannot keep .git/hooks, .git/config and .tern read-only (tern puts back hooks and config a command changed); install bubblewrap for that (tern doctor lists what else is open)"
	}
	return sb, notice, nil
}
