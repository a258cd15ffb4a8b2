package doctor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/tools/sandbox"
)

// sandbox reports what confines the commands run_command runs, proves it
// with a confined write outside the workspace that must fail, and lists
// what the mechanism in force leaves open.
func (d *doctor) sandbox(cfg config.Config) {
	r := d.r
	sb, _, err := cfg.Sandbox.Open(d.Root, d.Helper)
	if err != nil {
		r.bad("Sandbox", "%v", err)
		r.detail("install it, or set [sandbox] mechanism = \"auto\" in your config file")
		return
	}
	if !sb.Active() {
		if cfg.Sandbox.Required {
			r.bad("Sandbox", "none, and [sandbox] required = true: commands will not run (%s)", sb.Why())
		} else {
			r.note("Sandbox", "none: commands run unconfined, judged by their text alone (%s)", sb.Why())
		}
		if cfg.Sandbox.Mechanism != sandbox.Off {
			r.detail("on Linux, install bubblewrap (apt-get install bubblewrap), or use a kernel with Landlock (5.13 or later)")
		}
		return
	}
	if failed := d.probe(sb); failed != "" {
		r.bad("Sandbox", "%s, but %s", sb.Summary(), failed)
		return
	}
	r.ok("Sandbox", "%s", sb.Summary())
	for _, g := range sb.Gaps() {
		r.detail("not enforced: %s", g)
	}
	if caches := toolCaches(sb); len(caches) > 0 {
		r.detail("commands cannot write %s, where go and npm keep their caches; to let them, put", strings.Join(caches, ", "))
		r.detail("writable = [%s] under [sandbox] in your config file", `"`+strings.Join(caches, `", "`)+`"`)
	}
}

// toolCaches are the caches of the build tools installed here (go's build
// and module caches, npm's) that confined commands cannot write.
func toolCaches(sb *sandbox.Sandbox) []string {
	var dirs []string
	if _, err := exec.LookPath("go"); err == nil {
		if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
			dirs = append(dirs, strings.Fields(string(out))...)
		}
	}
	home, err := os.UserHomeDir()
	if _, lerr := exec.LookPath("npm"); lerr == nil && err == nil {
		dirs = append(dirs, filepath.Join(home, ".npm"))
	}
	var out []string
	for _, d := range dirs {
		if filepath.IsAbs(d) && !sb.CanWrite(d) {
			if err == nil && strings.HasPrefix(d, home+"/") {
				d = "~" + strings.TrimPrefix(d, home)
			}
			out = append(out, d)
		}
	}
	return out
}

// probe runs a confined command that writes outside the workspace, and
// returns what went wrong when the write was not stopped ("" when it
// was). It writes into a directory of its own, removed after, under the
// home directory, or where commands may not write when that is one they
// may (a home under /tmp).
func (d *doctor) probe(sb *sandbox.Sandbox) string {
	var parents []string
	if home, err := os.UserHomeDir(); err == nil {
		parents = append(parents, home)
	}
	parents = append(parents, "/var/tmp", filepath.Dir(d.Root))
	dir := ""
	for _, p := range parents {
		if sb.CanWrite(p) {
			continue
		}
		if made, err := os.MkdirTemp(p, ".tern-doctor-"); err == nil {
			dir = made
			break
		}
	}
	if dir == "" {
		return ""
	}
	defer os.RemoveAll(dir)
	target := filepath.Join(dir, "probe")
	argv, err := sb.Command([]string{"sh", "-c", `echo x > "$1"`, "sh", target})
	if err != nil {
		return "it cannot start a command: " + err.Error()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = d.Root
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(target); err == nil {
		return "a test write outside the workspace was not stopped"
	}
	if msg := strings.TrimSpace(string(out)); strings.HasPrefix(msg, "tern sandbox:") || strings.HasPrefix(msg, "bwrap:") {
		return "it cannot start a command: " + msg
	}
	return ""
}
