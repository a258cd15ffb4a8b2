package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBlockedReadsTheKernelsErrors: the errors of common programs, as
// each prints them, name the path the sandbox stopped; the program's own
// name, paths it may write and errors that are not the sandbox's are
// left out.
func TestBlockedReadsTheKernelsErrors(t *testing.T) {
	base := t.TempDir()
	root, out, secret := filepath.Join(base, "ws"), filepath.Join(base, "out"), filepath.Join(base, "secret")
	for _, d := range []string{root, out, secret, filepath.Join(root, ".git", "hooks")} {
		os.MkdirAll(d, 0o755)
	}
	s := &Sandbox{policy: Policy{Root: root}, mech: Bubblewrap, writable: []string{root, filepath.Join(base, "tmp")}, hidden: []string{secret},
		protected: protectedPaths(root)}
	outside := "blocked by the sandbox: " + out + "/f is outside the workspace; ask the user to add it to [sandbox] writable"
	for _, c := range []struct {
		name, output string
		want         []string
	}{
		{"bash", "/usr/bin/bash: line 1: " + out + "/f: Read-only file system", []string{outside}},
		{"dash", "sh: 1: cannot create " + out + "/f: Permission denied", []string{outside}},
		{"coreutils", "touch: cannot touch '" + out + "/f': Read-only file system", []string{outside}},
		{"coreutils quotes", "mkdir: cannot create directory ‘" + out + "/f’: Read-only file system", []string{outside}},
		{"python", "OSError: [Errno 30] Read-only file system: '" + out + "/f'", []string{outside}},
		{"go", "open " + out + "/f: read-only file system", []string{outside}},
		{"npm", "npm ERR! Error: EACCES: permission denied, mkdir '" + out + "/f'", []string{outside}},
		{"relative protected", "error: could not lock config file .git/config: Read-only file system",
			[]string{"blocked by the sandbox: " + root + "/.git/config is read-only to commands (tern keeps .git/hooks, .git/config and .tern from them); change it another way, or ask the user"}},
		{"hidden", "cat: " + secret + "/key: No such file or directory",
			[]string{"blocked by the sandbox: " + secret + "/key is hidden from commands ([sandbox] hidden); do without it, or ask the user"}},
		{"missing elsewhere", "cat: " + out + "/nope: No such file or directory", nil},
		{"inside", "touch: cannot touch '" + root + "/x': Permission denied", nil},
		{"no error", "wrote " + out + "/f", nil},
		{"read-only disk", "touch: cannot touch '/proc/version': Read-only file system", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := s.Blocked(c.output, root); !slices.Equal(got, c.want) {
				t.Errorf("Blocked(%q)\n got %q\nwant %q", c.output, got, c.want)
			}
		})
	}
	var none *Sandbox
	if got := none.Blocked("sh: 1: cannot create /x: Permission denied", root); got != nil {
		t.Errorf("an unconfined run reports %q", got)
	}
}
