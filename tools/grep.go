package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ternhq/tern/index/ignore"
)

//go:embed grep.md
var grepDoc string

const (
	grepMatches  = 100      // matching lines shown at most
	grepLineRoom = 200      // bytes of a matching line shown at most
	grepMaxFile  = 16 << 20 // larger files are skipped
)

type grep struct {
	Decl
	ws *Workspace
}

// NewGrep returns the grep tool: the lines of the workspace's files that
// match a regular expression.
func NewGrep(ws *Workspace) Tool {
	return &grep{ws: ws, Decl: Declare[grepArgs]("grep", grepDoc)}
}

type grepArgs struct {
	Pattern    string  `json:"pattern" tool:"required,subject=quoted"`
	Path       string  `json:"path" tool:"subject=scope"`
	Include    string  `json:"include"`
	IgnoreCase boolArg `json:"ignore_case"`
}

func (t *grep) Effect() Effect { return ReadOnly }

// grepSearch is one run of grep.
type grepSearch struct {
	re      *regexp.Regexp
	pre     prefilter
	include string
	rules   *ignore.Rules
	base    string // the searched directory, relative to the rules' root
}

// hit is one matching line.
type hit struct {
	line int
	text string
}

// fileHits is what one file yielded.
type fileHits struct {
	show  string // the path as the model should name it
	hits  []hit  // the first grepMatches matching lines
	count int    // all matching lines
	large bool   // skipped for its size
}

func (t *grep) Run(ctx context.Context, in Input) Result {
	var args grepArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("grep: bad arguments", "%v", err)
	}
	if args.Pattern == "" {
		return fail("grep: no pattern", `pattern is required, e.g. {"pattern":"func main"}`)
	}
	summary := fmt.Sprintf(`grep "%s"`, args.Pattern)
	flags := "(?m)" // ^ and $ match at line ends, as in grep
	if args.IgnoreCase {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + args.Pattern)
	if err != nil {
		if _, plain := regexp.Compile(args.Pattern); plain != nil {
			err = plain // quote the error without the flags tern added
		}
		return fail(summary+": bad pattern", "invalid regexp \"%s\": %s. The pattern is an RE2 regular expression: put a backslash before special characters to match them literally, e.g. `\\(` or `\\[`",
			args.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	include := strings.TrimSpace(args.Include)
	if strings.HasPrefix(include, ".") && !strings.ContainsAny(include, "*?[{") {
		include = "*" + include // ".go" means "*.go"
	}
	if include != "" && !doublestar.ValidatePattern(include) {
		return fail(summary+": bad include", "invalid include glob %q; use a file-name pattern such as \"*.go\"", args.Include)
	}
	if strings.TrimSpace(args.Path) == "" {
		args.Path = "."
	}
	abs, rel, err := t.ws.Resolve(args.Path, Read)
	if err != nil {
		return fail(summary+": refused", "%v", err)
	}
	info, err := t.ws.stat(abs)
	if errors.Is(err, ErrOutsideWorkspace) {
		return fail(summary+": refused", "%v", err)
	} else if errors.Is(err, fs.ErrNotExist) {
		return fail(summary+": not found", "%s does not exist; use list_dir or glob to find the right path", rel)
	} else if err != nil {
		return fail(summary+": error", "cannot search %s: %v", rel, err)
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return fail(summary+": not a file", "%s is %s; grep searches regular files and directories", rel, fileKind(info.Mode()))
	}
	rules, _ := t.ws.area(abs)
	base, err := filepath.Rel(rules.Root(), abs)
	if err != nil {
		return fail(summary+": error", "cannot search %s: %v", rel, err)
	}
	s := &grepSearch{re: re, pre: newPrefilter(flags + args.Pattern), include: include, rules: rules, base: filepath.ToSlash(base)}
	if rules.Ignored(s.base, info.IsDir()) {
		return fail(summary+": ignored", "%s is ignored (by .gitignore, .ternignore, or as .git or .tern); tern does not search ignored files", rel)
	}

	var found []fileHits
	searched := 0
	if info.IsDir() {
		found, searched, err = s.walk(ctx, t.ws)
		if err != nil {
			return fail(summary+": error", "search stopped: %v", err)
		}
	} else {
		f, _, err := t.ws.openRegular(abs)
		if err != nil {
			return fail(summary+": error", "cannot search %s: %v", rel, err)
		}
		defer f.Close()
		if binary, err := sniff(f); err == nil && binary {
			return fail(summary+": binary", "%s is a binary file; grep searches text files only", rel)
		}
		searched = 1
		fh := s.search(f, rel, new(grepBuffers))
		if fh.count > 0 || fh.large {
			found = append(found, fh)
		}
	}
	return report(t.ws, args.Pattern, rel, include, summary, searched, found, in.Limit)
}

// walk searches every file under the search base, several at a time, and
// returns the files with matches in path order.
func (s *grepSearch) walk(ctx context.Context, ws *Workspace) ([]fileHits, int, error) {
	type job struct {
		seq       int
		rel, show string
	}
	type seqHits struct {
		seq int
		fh  fileHits
	}
	// Files are opened through the root of the searched tree, so a path
	// swapped for a symbolic link after the walk listed it cannot lead out.
	root, err := os.OpenRoot(s.rules.Root())
	if err != nil {
		return nil, 0, err
	}
	defer root.Close()
	jobs := make(chan job)
	results := make(chan seqHits)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			var bufs grepBuffers
			for j := range jobs {
				if ctx.Err() != nil {
					continue // the walk is stopping; drain
				}
				fh := s.file(root, j.rel, j.show, &bufs)
				if fh.count > 0 || fh.large {
					results <- seqHits{j.seq, fh}
				}
			}
		})
	}
	var bySeq []seqHits
	collected := make(chan struct{})
	go func() {
		for r := range results {
			bySeq = append(bySeq, r)
		}
		close(collected)
	}()

	searched := 0
	err = s.rules.Walk(ctx, filepath.Join(s.rules.Root(), filepath.FromSlash(s.base)), func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !s.included(rel) {
			return nil
		}
		searched++
		jobs <- job{seq: searched, rel: filepath.FromSlash(rel), show: ws.show(s.rules, rel)}
		return nil
	})
	close(jobs)
	workers.Wait()
	close(results)
	<-collected
	if err != nil {
		return nil, searched, err
	}
	slices.SortFunc(bySeq, func(a, b seqHits) int { return a.seq - b.seq })
	found := make([]fileHits, len(bySeq))
	for i, r := range bySeq {
		found[i] = r.fh
	}
	return found, searched, nil
}

// included reports whether the file at rel (relative to the rules' root)
// passes the include glob: matched against its name, or against its path
// from the search base when the glob holds a "/".
func (s *grepSearch) included(rel string) bool {
	if s.include == "" {
		return true
	}
	name := path.Base(rel)
	if strings.Contains(s.include, "/") {
		name = strings.TrimPrefix(strings.TrimPrefix(rel, s.base), "/")
	}
	ok, _ := doublestar.Match(s.include, name)
	return ok
}

// grepBuffers are one worker's buffers, reused from file to file.
type grepBuffers struct {
	data []byte
}

// file searches the file rel of root. Binary, unreadable and special
// files (a FIFO put where the walk saw a file) yield nothing.
func (s *grepSearch) file(root *os.Root, rel, show string, bufs *grepBuffers) fileHits {
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fileHits{show: show}
	}
	defer f.Close()
	return s.search(f, show, bufs)
}

// search searches the open file f.
func (s *grepSearch) search(f *os.File, show string, bufs *grepBuffers) fileHits {
	fh := fileHits{show: show}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return fh
	}
	if info.Size() > grepMaxFile {
		fh.large = true
		return fh
	}
	if int64(cap(bufs.data)) < info.Size() {
		bufs.data = make([]byte, info.Size(), info.Size()+info.Size()/4)
	}
	n, err := io.ReadFull(f, bufs.data[:info.Size()])
	if err != nil && err != io.ErrUnexpectedEOF {
		return fh
	}
	data := bufs.data[:n]
	if looksBinary(data[:min(len(data), sniffSize)]) {
		return fh
	}
	if !s.pre.pass(data) {
		return fh
	}
	line, last := 1, 0
	for pos := 0; pos <= len(data); {
		loc := s.re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		start := pos + loc[0]
		line += bytes.Count(data[last:start], []byte("\n"))
		last = start
		ls := bytes.LastIndexByte(data[:start], '\n') + 1
		le := bytes.IndexByte(data[start:], '\n')
		if le < 0 {
			le = len(data)
		} else {
			le += start
		}
		if fh.count++; fh.count <= grepMatches {
			fh.hits = append(fh.hits, hit{line, excerpt(data[ls:le], start-ls)})
		}
		pos = le + 1
	}
	return fh
}

// excerpt returns a matching line for display: leading indentation dropped,
// and a line longer than grepLineRoom cut to a window around the match.
func excerpt(line []byte, at int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	trimmed := bytes.TrimLeft(line, " \t")
	at -= len(line) - len(trimmed)
	line = trimmed
	if len(line) <= grepLineRoom {
		return validText(line)
	}
	start := max(0, min(at-grepLineRoom/4, len(line)-grepLineRoom))
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(start+grepLineRoom, len(line))
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	out := validText(line[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}

// report formats the matches of one grep call for the model.
func report(ws *Workspace, pattern, where, include, summary string, searched int, found []fileHits, limit int) Result {
	var b strings.Builder
	total, files, shown, large := 0, 0, 0, 0
	for _, fh := range found {
		if fh.large {
			large++
			continue
		}
		total += fh.count
		files++
		for _, h := range fh.hits {
			if shown == grepMatches {
				break
			}
			shown++
			fmt.Fprintf(&b, "%s:%d: %s\n", fh.show, h.line, h.text)
		}
	}
	scope := where
	if include != "" {
		scope += " (" + include + ")"
	}
	switch {
	case total == 0:
		fmt.Fprintf(&b, "no matches for \"%s\" in %s; searched %s", pattern, scope, plural(searched, "file", "files"))
		if hasMeta(pattern) {
			b.WriteString(". The pattern is a regular expression: put a backslash before . ( [ { * + ? | to match them literally")
		}
	case shown < total:
		fmt.Fprintf(&b, "showing %d of %d matches in %s; narrow the search with path or include", shown, total, plural(files, "file", "files"))
	default:
		fmt.Fprintf(&b, "%s in %s", plural(total, "match", "matches"), plural(files, "file", "files"))
	}
	if large > 0 {
		fmt.Fprintf(&b, "\n(skipped %s over %s)", plural(large, "file", "files"), humanSize(grepMaxFile))
	}
	return Result{
		Output:  ws.Fit("grep", b.String(), limit),
		Summary: fmt.Sprintf("%s %s", summary, plural(total, "match", "matches")),
	}
}

// hasMeta reports whether pattern holds an unescaped regexp operator that
// would stop a literal reading of it from matching: ( [ { * + ? | ^ $.
func hasMeta(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '(', ')', '[', ']', '{', '}', '*', '+', '?', '|', '^', '$':
			return true
		}
	}
	return false
}

// fileKind says what a file that is neither regular nor a directory is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO), not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	case m&fs.ModeDevice != 0:
		return "a device, not a regular file"
	}
	return "not a regular file"
}
