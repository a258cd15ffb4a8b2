package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/index/ignore"
	"github.com/ternhq/tern/statedir"
)

// ErrOutsideWorkspace is wrapped by every refusal of a path that lies, or
// leads through a symbolic link, outside what the workspace lets a tool touch.
var ErrOutsideWorkspace = errors.New("path outside the workspace")

// Access is what a tool means to do with a path.
type Access int

const (
	// Read access is allowed inside the root and inside allowRead directories.
	Read Access = iota
	// Write access is allowed inside the root only.
	Write
)

// Workspace is the sandbox every file tool goes through: the directory the
// model works in, the extra directories it may read, and the ignore rules
// that decide what it sees. A Workspace is safe for concurrent use.
type Workspace struct {
	root      string
	rules     *ignore.Rules
	allowRead []readArea // outside the root, each with its own ignore rules
	now       func() time.Time
	reads     readLog // files read_file showed the model in this session
	editor    Editor  // the user's editor, when the file tools go through it
	// spillArea is where spilled output goes when tern keeps the
	// workspace's state outside it (a read-only workspace): readable as
	// the root is; "" otherwise.
	spillArea string
}

type readArea struct {
	dir   string
	rules *ignore.Rules
}

// NewWorkspace returns the workspace at root. Root and the allowRead
// directories are made absolute with their symbolic links resolved; each must
// be an existing directory.
func NewWorkspace(root string, allowRead ...string) (*Workspace, error) {
	r, err := RealDir(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	w := &Workspace{root: r, rules: ignore.New(r), now: time.Now}
	if loc, err := statedir.Where(r); err == nil && loc.Outside {
		// Not made yet, maybe: its links are resolved as far as it exists.
		out := filepath.Join(loc.Dir, "outputs")
		if real, err := resolveExisting(out, out); err == nil {
			w.spillArea = real
		}
	}
	for _, d := range allowRead {
		a, err := RealDir(d)
		if err != nil {
			return nil, fmt.Errorf("allowed read directory: %w", err)
		}
		if Within(r, a) || slices.ContainsFunc(w.allowRead, func(x readArea) bool { return x.dir == a }) {
			continue // the root's rules already govern it, or it is listed twice
		}
		w.allowRead = append(w.allowRead, readArea{dir: a, rules: ignore.New(a)})
	}
	return w, nil
}

// RealDir is dir made absolute with its symbolic links resolved; it must
// be an existing directory.
func RealDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}

// Root is the absolute, symlink-free path of the workspace.
func (w *Workspace) Root() string { return w.root }

// Rules are the ignore rules of the root.
func (w *Workspace) Rules() *ignore.Rules { return w.rules }

// Resolve checks that path may be accessed and returns its absolute,
// symlink-free form and its slash-separated form relative to the root ("."
// for the root; the absolute path for a file in an allowRead directory
// outside the root). Relative paths are taken from the root. For a path that
// does not exist yet, the deepest existing ancestor is resolved. Every
// refusal says what the model may do instead; refusals of paths outside the
// workspace wrap ErrOutsideWorkspace.
func (w *Workspace) Resolve(path string, access Access) (abs, rel string, err error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", "", errors.New(`path is empty; give a path relative to the workspace root, such as "main.go"`)
	}
	lexical := w.lexical(p)
	if raw, ok := unescapeName(p); ok {
		// A name listed with \xHH escapes (not valid UTF-8), unless a
		// file is really called so.
		if _, err := os.Lstat(lexical); err != nil {
			p, lexical = raw, w.lexical(raw)
		}
	}
	abs, err = resolveExisting(path, lexical)
	if err != nil {
		return "", "", err
	}
	if !w.allowed(abs, access) {
		if alt, ok := w.rootedAlternative(p, access); ok {
			abs = alt // "/src/main.go" meant as relative to the root
		} else if w.allowed(lexical, access) {
			return "", "", &pathError{ErrOutsideWorkspace, fmt.Sprintf(
				"path %q leads outside the workspace (%s) through a symbolic link (to %s); use a path inside it",
				path, w.root, abs)}
		} else {
			return "", "", &pathError{ErrOutsideWorkspace, w.outsideMessage(path, access)}
		}
	}
	rel = w.relOf(abs)
	if access == Write && Within(w.root, abs) {
		for part := range strings.SplitSeq(rel, "/") {
			// Case-insensitive file systems (macOS, Windows) take ".GIT"
			// for ".git".
			if strings.EqualFold(part, ".git") || strings.EqualFold(part, ".tern") {
				return "", "", fmt.Errorf("path %q is inside %s, which tern never writes to; write elsewhere in the workspace", path, part)
			}
		}
	}
	return abs, rel, nil
}

// lexical is p made absolute from the root and cleaned.
func (w *Workspace) lexical(p string) string {
	l := filepath.Clean(p)
	if !filepath.IsAbs(l) {
		l = filepath.Join(w.root, l)
	}
	return l
}

// maxPathBytes is the longest path the kernel takes (PATH_MAX on Linux);
// a longer one is refused before anything is resolved.
const maxPathBytes = 4096

// resolveExisting resolves the symbolic links of p, an absolute clean path;
// when p does not exist, those of its deepest existing ancestor, found by
// walking down from the root once: walking up, resolving each shorter
// prefix whole, took time in the square of the depth (minutes for a path
// 10,000 directories deep).
func resolveExisting(orig, p string) (string, error) {
	if len(p) >= maxPathBytes {
		return "", fmt.Errorf("path %q is longer than the system allows (%d bytes); use a shorter path", shorten(orig), maxPathBytes)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, nil
	}
	sep := string(filepath.Separator)
	vol := filepath.VolumeName(p)
	parts := strings.Split(strings.TrimPrefix(p[len(vol):], sep), sep)
	cur, i := vol+sep, 0
	for ; i < len(parts); i++ {
		next := filepath.Join(cur, parts[i])
		if _, err := os.Lstat(next); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			return "", fmt.Errorf("resolve %q: %w", shorten(orig), err)
		}
		cur = next
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		if info, lerr := os.Lstat(cur); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(cur)
			return "", fmt.Errorf("path %q goes through a broken symbolic link (%s -> %s); use another path", shorten(orig), cur, target)
		}
		return "", fmt.Errorf("resolve %q: %w", shorten(orig), err)
	}
	return filepath.Join(append([]string{real}, parts[i:]...)...), nil
}

// shorten cuts a path for a message.
func shorten(p string) string {
	if len(p) <= 200 {
		return p
	}
	return p[:100] + "…" + p[len(p)-60:]
}

// rootedAlternative reads an absolute path that exists nowhere as a path
// from the root, since small models often write "/src/main.go" for
// "src/main.go". It only applies to reads.
func (w *Workspace) rootedAlternative(p string, access Access) (string, bool) {
	if access != Read || !filepath.IsAbs(p) {
		return "", false
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	alt := filepath.Join(w.root, filepath.Clean(p))
	if _, err := os.Stat(alt); err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(alt)
	if err != nil || !Within(w.root, real) {
		return "", false
	}
	return real, true
}

func (w *Workspace) outsideMessage(path string, access Access) string {
	if access == Read && len(w.allowRead) > 0 {
		dirs := make([]string, len(w.allowRead))
		for i, a := range w.allowRead {
			dirs[i] = a.dir
		}
		return fmt.Sprintf("path %q is outside the workspace (%s) and the directories allowed for reading (%s); use a path inside them",
			path, w.root, strings.Join(dirs, ", "))
	}
	if access == Write && w.inAllowRead(filepath.Clean(path)) {
		return fmt.Sprintf("path %q is outside the workspace (%s); that directory may be read but not written; write inside the workspace", path, w.root)
	}
	return fmt.Sprintf("path %q is outside the workspace (%s); use a path inside it", path, w.root)
}

func (w *Workspace) allowed(abs string, access Access) bool {
	return Within(w.root, abs) || access == Read && (w.inAllowRead(abs) || w.spillArea != "" && Within(w.spillArea, abs))
}

func (w *Workspace) inAllowRead(abs string) bool {
	return slices.ContainsFunc(w.allowRead, func(a readArea) bool { return Within(a.dir, abs) })
}

// Within reports whether p is dir or lies below it; both are clean and absolute.
func Within(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

func (w *Workspace) relOf(abs string) string {
	if !Within(w.root, abs) {
		return abs
	}
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// area returns the ignore rules that govern abs, a path Resolve accepted,
// and whether it lies inside the root.
func (w *Workspace) area(abs string) (rules *ignore.Rules, inRoot bool) {
	if Within(w.root, abs) {
		return w.rules, true
	}
	for _, a := range w.allowRead {
		if Within(a.dir, abs) {
			return a.rules, false
		}
	}
	return ignore.New(abs), false // unreachable for resolved paths
}

// show names a path found by walking rules (rel is relative to
// rules.Root()) the way the model should pass it back to a tool.
func (w *Workspace) show(rules *ignore.Rules, rel string) string {
	return shownName(w.relOf(filepath.Join(rules.Root(), filepath.FromSlash(rel))))
}

// pathError is a refusal with a message for the model and a sentinel cause.
type pathError struct {
	err error
	msg string
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

// Spill writes content to .tern/outputs/<time>-<name>.txt under the root and
// returns that path relative to the root. It creates .tern with a .gitignore
// of "*", so spilled output never shows up in git.
func (w *Workspace) Spill(name, content string) (relPath string, err error) {
	f, rel, err := w.openSpill(name)
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("spill output: %w", werr)
	}
	return rel, nil
}

// openSpill creates a new spill file for name under outputs/ in the
// workspace's state directory and returns it open for writing, with the
// path the model reads it by: relative to the root (.tern/outputs/…), or
// absolute when tern keeps the state outside the workspace (a read-only
// one), where read_file may read it too (spillArea).
func (w *Workspace) openSpill(name string) (f *os.File, relPath string, err error) {
	// .tern and .tern/outputs must be real directories (a repository
	// could ship them as links); the file itself is created through the
	// workspace's root, so nothing swapped in later leads out either.
	outputs, err := statedir.Subdir(w.root, "outputs")
	if err != nil {
		return nil, "", fmt.Errorf("spill output: %w", err)
	}
	top, dir := w.root, filepath.Join(statedir.Name, "outputs")
	if !Within(w.root, outputs) {
		top, dir = outputs, "."
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, "", fmt.Errorf("spill output: %w", err)
	}
	defer root.Close()
	base := w.now().Format("20060102-150405.000") + "-" + fileSafe(name)
	for i := 1; ; i++ {
		file := base + ".txt"
		if i > 1 {
			file = fmt.Sprintf("%s-%d.txt", base, i)
		}
		rel := filepath.Join(dir, file)
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && i < 1000 {
			continue // another call spilled in the same millisecond
		}
		if err != nil {
			return nil, "", fmt.Errorf("spill output: %w", err)
		}
		if top != w.root {
			return f, filepath.Join(top, rel), nil
		}
		return f, filepath.ToSlash(rel), nil
	}
}

// fileSafe keeps letters, digits, '-' and '_' of name, so any tool name makes
// a plain file name.
func fileSafe(name string) string {
	s := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, name)
	if s == "" {
		return "output"
	}
	return s
}

// Fit applies the output policy every tool shares. Output within limit bytes
// (DefaultLimit when limit is 0) is returned as it is. Longer output is cut
// by Cap, the whole of it is spilled under .tern/outputs, and a last line
// tells the model where to page through it.
func (w *Workspace) Fit(name, output string, limit int) string {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(output) <= limit {
		return output
	}
	capped, _ := Cap(output, max(limit-min(160, limit/4), 1))
	var note string
	if rel, err := w.Spill(name, output); err == nil {
		note = "full output: " + rel + "; read it with read_file offset/limit"
	} else {
		note = fmt.Sprintf("full output could not be saved: %v", err)
	}
	return strings.TrimSuffix(capped, "\n") + "\n" + note
}

// Cap shortens output to about limit bytes (DefaultLimit when limit is not
// positive). It keeps the head (~60%) and the tail (~40%), cut at line
// boundaries where the lines allow it, with one marker line between them:
// "… N lines (M bytes) omitted …". It reports whether it cut anything.
func Cap(output string, limit int) (capped string, cut bool) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(output) <= limit {
		return output, false
	}
	const markerRoom = 48
	room := max(limit-markerRoom, 0)
	head := budget.HeadCut(output, room*6/10)
	tail := budget.TailCut(output, room-room*6/10)
	omitted := output[head:tail]
	lines := strings.Count(omitted, "\n")
	if !strings.HasSuffix(omitted, "\n") {
		lines++
	}
	var b strings.Builder
	b.Grow(head + len(output) - tail + markerRoom)
	b.WriteString(output[:head])
	if head > 0 && output[head-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "… %d lines (%d bytes) omitted …\n", lines, len(omitted))
	b.WriteString(output[tail:])
	return b.String(), true
}
