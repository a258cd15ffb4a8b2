package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The kernel stops a confined command with an error, which the command
// prints its own way; Blocked finds those that name a path the sandbox
// keeps from it, so that tern can say plainly what happened and what the
// user can do. It reads only the kernel's error texts (strerror's and
// Go's spellings), never guesses from the command line.

// errorText matches the errors a sandbox causes: EACCES and EPERM
// (Landlock), EROFS (a read-only mount), EBUSY (a mount point), and
// ENOENT (a hidden path, covered by an empty one).
var errorText = regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|device or resource busy|no such file or directory|\beacces\b|\beperm\b|\berofs\b`)

// notFound matches ENOENT alone, which is only the sandbox's doing for a
// hidden path.
var notFound = regexp.MustCompile(`(?i)no such file or directory|\benoent\b`)

// denied matches the errors other than ENOENT.
var denied = regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|resource busy|\beacces\b|\beperm\b|\berofs\b`)

// pathToken matches what may be a path in an error line: a quoted string,
// or a run of characters without spaces and quotes.
var pathToken = regexp.MustCompile("'[^']+'|\"[^\"]+\"|‘[^’]+’|`[^`']+'|[^\\s'\"‘’`]+")

// maxBlocked caps the paths reported for one command.
const maxBlocked = 3

// Blocked reads a command's output and returns one line for each path
// the sandbox kept the command from writing or reading, such as
// "blocked by the sandbox: /home/u/x is outside the workspace; ask the
// user to add it to [sandbox] writable". dir is where the command ran,
// for relative paths. It returns nothing when the sandbox is not Active.
func (s *Sandbox) Blocked(output, dir string) []string {
	if !s.Active() {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		if len(out) == maxBlocked {
			break
		}
		if !errorText.MatchString(line) {
			continue
		}
		missing := notFound.MatchString(line) && !denied.MatchString(line)
		for i, tok := range pathToken.FindAllString(line, -1) {
			if i == 0 && strings.HasSuffix(tok, ":") {
				continue // the program that reports ("/usr/bin/bash: line 1: …")
			}
			p := pathIn(tok, dir)
			if p == "" || seen[p] {
				continue
			}
			why := s.why4(p, missing)
			if why == "" {
				continue
			}
			seen[p] = true
			out = append(out, "blocked by the sandbox: "+why)
			if len(out) == maxBlocked {
				break
			}
		}
	}
	return out
}

// pathIn reads a token as a path, relative ones from dir; "" when it
// does not look like one.
func pathIn(tok, dir string) string {
	tok = strings.Trim(tok, "'\"‘’`")
	tok = strings.TrimRight(tok, ":,;)]")
	tok = strings.TrimLeft(tok, "([")
	if strings.HasSuffix(tok, ".") && !strings.HasSuffix(tok, "/.") && tok != "." {
		tok = strings.TrimSuffix(tok, ".")
	}
	switch {
	case tok == "" || strings.Contains(tok, "://"):
		return ""
	case strings.HasPrefix(tok, "~/"):
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		return filepath.Join(h, tok[2:])
	case filepath.IsAbs(tok):
		return filepath.Clean(tok)
	case strings.Contains(tok, "/") || strings.HasPrefix(tok, "."):
		return filepath.Join(dir, tok)
	}
	return ""
}

// why4 says why the sandbox keeps a command from path, or "" when it
// does not. missing is set when the error was only that path does not
// exist, which the sandbox causes only by hiding it.
func (s *Sandbox) why4(p string, missing bool) string {
	paths := []string{p}
	if real, err := resolvePrefix(p); err == nil && real != p {
		paths = append(paths, real)
	}
	for _, q := range paths {
		for _, h := range s.hidden {
			if within(h, q) {
				return fmt.Sprintf("%s is hidden from commands ([sandbox] hidden); do without it, or ask the user", home(p))
			}
		}
	}
	if missing {
		return ""
	}
	for _, q := range paths {
		for _, pr := range s.protected {
			if (within(pr, q) || q == filepath.Dir(pr) && filepath.Base(q) == ".git") && s.mech == Bubblewrap {
				return fmt.Sprintf("%s is read-only to commands (tern keeps .git/hooks, .git/config and .tern from them); change it another way, or ask the user", home(p))
			}
		}
	}
	for _, q := range paths {
		for _, w := range s.writable {
			if within(w, q) {
				return ""
			}
		}
	}
	// Only a write tern itself could make was the sandbox's to stop;
	// else the file's permissions or a read-only disk stopped it. The
	// kernel's own filesystems refuse writes for reasons of their own.
	if !writableHere(p) || within("/proc", p) || within("/sys", p) || within("/dev", p) {
		return ""
	}
	return fmt.Sprintf("%s is outside the workspace; ask the user to add it to [sandbox] writable", home(p))
}

// writableHere reports whether this process may write p, or create it
// in the nearest directory above it that exists.
func writableHere(p string) bool {
	for cur := p; ; cur = filepath.Dir(cur) {
		if _, err := os.Lstat(cur); err == nil {
			return canWrite(cur)
		}
		if cur == filepath.Dir(cur) {
			return false
		}
	}
}

// resolvePrefix resolves the symbolic links of the longest part of p
// that exists.
func resolvePrefix(p string) (string, error) {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		if cur == filepath.Dir(cur) {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}
