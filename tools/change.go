package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// maxChangeBytes is the largest file edit_file and write_file handle. A
// model cannot sensibly edit more, and the diff alone would drown it.
const maxChangeBytes = 1 << 20

// target is a file a tool means to change, checked and loaded.
type target struct {
	ws       *Workspace
	abs, rel string
	exists   bool
	mode     fs.FileMode
	content  string // when exists
	read     bool   // read_file showed it in this session
}

// loadTarget resolves path for writing and, when the file exists, reads it.
// It refuses, with a result for the model, anything tern must not change:
// paths outside the workspace, directories, ignored, binary, huge or
// non-UTF-8 files. With an editor, the content is the editor's (unsaved
// changes included); the file's checks are still made on disk.
func (w *Workspace) loadTarget(ctx context.Context, tool, path string) (target, *Result) {
	refuse := func(what, format string, args ...any) (target, *Result) {
		r := fail(tool+" "+path+": "+what, format, args...)
		return target{}, &r
	}
	if strings.TrimSpace(path) == "" {
		return refuse("no path", `path is required, e.g. {"path":"main.go"}`)
	}
	abs, rel, err := w.Resolve(path, Write)
	if err != nil {
		return refuse("refused", "%v", err)
	}
	t := target{ws: w, abs: abs, rel: rel, read: w.reads.has(abs)}
	f, info, err := w.openRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case errors.Is(err, ErrOutsideWorkspace):
		return refuse("refused", "%v", err)
	case errors.Is(err, errNotRegular) && info.IsDir():
		return refuse("directory", "%s is a directory, not a file", rel)
	case errors.Is(err, errNotRegular):
		return refuse("not a file", "%s is not a regular file; tern only changes regular files", rel)
	case err != nil:
		return refuse("error", "cannot open %s: %v", rel, err)
	}
	defer f.Close()
	switch {
	case w.rules.Ignored(rel, false):
		return refuse("ignored", "%s is ignored (by .gitignore or .ternignore); tern does not change ignored files", rel)
	case info.Size() > maxChangeBytes:
		return refuse("too large", "%s is %s; %s changes files up to %s. Use run_command with a tool such as sed for large files",
			rel, humanSize(info.Size()), tool, humanSize(maxChangeBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxChangeBytes+1))
	if err != nil {
		return refuse("error", "cannot read %s: %v", rel, err)
	}
	if looksBinary(data[:min(len(data), sniffSize)]) {
		return refuse("binary", "%s is a binary file (%s); %s changes text files only", rel, humanSize(info.Size()), tool)
	}
	if text, ok, err := w.editorText(ctx, abs); err != nil {
		return refuse("error", "cannot read %s: %v", rel, err)
	} else if ok {
		data = []byte(text)
	}
	if !utf8.Valid(data) {
		return refuse("not UTF-8", "%s is not valid UTF-8 (a legacy encoding such as Latin-1?); %s would corrupt it. Use run_command (e.g. iconv or sed) instead", rel, tool)
	}
	t.exists, t.mode, t.content = true, info.Mode().Perm(), string(data)
	return t, nil
}

// write replaces the file's content, keeping its permissions, and creates
// missing directories, all through the workspace's root: atomically on
// disk (a temporary file renamed over it), or through the editor.
func (t target) write(ctx context.Context, content string) error {
	mode := t.mode
	if !t.exists {
		mode = 0o644
	}
	return t.ws.writeFile(ctx, t.abs, content, mode)
}

// unifiedDiff returns the diff from old to new of the file rel, with
// context lines of context, and its count of added and removed lines.
func unifiedDiff(rel, old, new string, context int) (diff string, added, removed int) {
	from, to := "a/"+rel, "b/"+rel
	if old == "" {
		from = "/dev/null"
	}
	diff, err := udiff.ToUnified(from, to, old, udiff.Lines(old, new), context)
	if err != nil {
		return fmt.Sprintf("(no diff: %v)", err), 0, 0
	}
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return diff, added, removed
}

// diffForModel is a diff cut to what the model needs to check its change.
func diffForModel(diff string, limit int) string {
	if limit <= 0 {
		limit = DefaultLimit
	}
	capped, _ := Cap(diff, min(limit, 3<<10))
	return strings.TrimSuffix(capped, "\n")
}

// roomBeside is what is left of an output limit for a diff beside note.
func roomBeside(limit int, note string) int {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return max(limit-len(note), 512)
}

// numberedLines renders lines first..last (1-based, clamped) of content as
// read_file does: "12\tcode".
func numberedLines(content string, first, last int) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	first, last = max(first, 1), min(last, len(lines))
	var b strings.Builder
	for i := first; i <= last; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i, strings.TrimSuffix(lines[i-1], "\r"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
