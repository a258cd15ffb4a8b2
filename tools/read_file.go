package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:embed read_file.md
var readFileDoc string

// readFileLines is how many lines read_file shows when the model names no limit.
const readFileLines = 200

type readFile struct {
	Decl
	ws      *Workspace
	servers LanguageServers // nil: none
}

// NewReadFile returns the read_file tool: numbered lines of a text file, a
// page at a time.
func NewReadFile(ws *Workspace) Tool { return newReadFile(ws, nil) }

// newReadFile is read_file that tells servers, when not nil, of each file
// read, so that its language's server starts and opens it: an edit of it
// then finds the file's diagnostics from before the edit ready.
func newReadFile(ws *Workspace, servers LanguageServers) Tool {
	return &readFile{ws: ws, servers: servers, Decl: Declare[readFileArgs]("read_file", readFileDoc)}
}

type readFileArgs struct {
	Path   string `json:"path" tool:"required,subject"`
	Offset intArg `json:"offset" tool:"subject=from"`
	Limit  intArg `json:"limit" tool:"subject=count"`
}

func (t *readFile) Effect() Effect { return ReadOnly }

func (t *readFile) Run(ctx context.Context, in Input) Result {
	var args readFileArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("read_file: bad arguments", "%v", err)
	}
	if strings.TrimSpace(args.Path) == "" {
		return fail("read_file: no path", `path is required, e.g. {"path":"main.go"}`)
	}
	abs, rel, err := t.ws.Resolve(args.Path, Read)
	if err != nil {
		return fail("read_file "+args.Path+": refused", "%v", err)
	}
	if rules, inRoot := t.ws.area(abs); inRoot && !strings.HasPrefix(rel, ".tern/outputs/") {
		if rules.Ignored(rel, false) {
			return fail("read_file "+rel+": ignored", "%s is ignored (by .gitignore, .ternignore, or inside .git or .tern); tern does not read ignored files", rel)
		}
	}
	f, info, err := t.ws.openRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("read_file "+rel+": not found", "%s", t.ws.notFound(ctx, rel))
	case errors.Is(err, ErrOutsideWorkspace):
		return fail("read_file "+rel+": refused", "%v", err)
	case errors.Is(err, errNotRegular) && info.IsDir():
		if rules, inRoot := t.ws.area(abs); inRoot && rules.Ignored(rel, true) {
			return fail("read_file "+rel+": ignored", "%s is ignored (by .gitignore, .ternignore, or inside .git or .tern); tern does not read ignored files", rel)
		}
		return fail("read_file "+rel+": directory", "%s is a directory; use list_dir to see what it holds", rel)
	case errors.Is(err, errNotRegular):
		return fail("read_file "+rel+": not a file", "%s is not a regular file", rel)
	case err != nil:
		return fail("read_file "+rel+": error", "cannot read %s: %v", rel, err)
	}
	defer f.Close()
	if binary, err := sniff(f); err != nil {
		return fail("read_file "+rel+": error", "cannot read %s: %v", rel, err)
	} else if binary {
		return fail("read_file "+rel+": binary", "%s is a binary file (%s); read_file shows text files only", rel, humanSize(info.Size()))
	}

	var src io.Reader = f
	if text, ok, err := t.ws.editorText(ctx, abs); err != nil {
		return fail("read_file "+rel+": error", "cannot read %s: %v", rel, err)
	} else if ok {
		src = strings.NewReader(text)
	}

	offset := max(args.Offset.or(1), 1)
	lines := args.Limit.or(readFileLines)
	if lines < 1 {
		lines = readFileLines
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	p, err := readPage(ctx, src, offset, lines, limit-min(160, limit/4))
	if err != nil {
		return fail("read_file "+rel+": error", "cannot read %s: %v", rel, err)
	}
	if p.total == 0 {
		return Result{Output: "(empty file)", Summary: rel + " (empty)"}
	}
	if p.first == 0 {
		return fail("read_file "+rel+": past end", "offset %d is past the end of %s, which has %s; use an offset from 1 to %d",
			offset, rel, plural(p.total, "line", "lines"), p.total)
	}
	t.ws.reads.mark(abs)
	if t.servers != nil {
		if _, inRoot := t.ws.area(abs); inRoot {
			t.servers.Opened(abs)
		}
	}
	out := p.text.String()
	if !p.valid {
		out += "(the file is not valid UTF-8; invalid bytes are shown as \uFFFD)\n"
	}
	if p.last < p.total {
		out += fmt.Sprintf("… file continues: lines %d-%d of %d; call read_file with offset=%d\n", p.last+1, p.total, p.total, p.last+1)
	}
	return Result{Output: strings.TrimSuffix(out, "\n"), Summary: fmt.Sprintf("%s:%d-%d", rel, p.first, p.last)}
}

// page is what readPage read of a file.
type page struct {
	text        strings.Builder // numbered lines
	first, last int             // lines shown; first is 0 when none
	total       int             // lines in the file
	valid       bool            // every shown line was valid UTF-8
}

// readPage reads up to count lines from line first on, in at most maxBytes
// of numbered output, and counts the lines of the whole file. It streams,
// so huge files and huge lines cost no more memory than a page.
func readPage(ctx context.Context, f io.Reader, first, count, maxBytes int) (*page, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	p := &page{valid: true}
	var line []byte // the current line, kept only while it may be shown
	lineLen := 0    // the current line's full length
	showing := true
	for showing {
		chunk, err := br.ReadSlice('\n')
		if p.total+1 >= first && len(line) <= maxBytes {
			line = append(line, chunk[:min(len(chunk), maxBytes+1-len(line))]...)
		}
		lineLen += len(chunk)
		ended := bytes.HasSuffix(chunk, []byte("\n")) || err == io.EOF && lineLen > 0
		if ended {
			p.total++
			if p.total >= first {
				showing = p.add(line, lineLen, maxBytes) && p.total-first+1 < count
			}
			line, lineLen = line[:0], 0
		}
		if err == io.EOF {
			return p, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return nil, err
		}
	}
	// Count the rest of the lines without keeping them.
	buf := make([]byte, 64<<10)
	var lastByte byte = '\n'
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := br.Read(buf)
		if n > 0 {
			p.total += bytes.Count(buf[:n], []byte("\n"))
			lastByte = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if lastByte != '\n' {
		p.total++
	}
	return p, nil
}

// add appends line number p.total to the page if it fits in maxBytes, and
// reports whether later lines may follow. A first line too long for the
// page is cut to fit.
func (p *page) add(line []byte, lineLen, maxBytes int) bool {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	num := strconv.Itoa(p.total)
	if lineLen > len(line)+2 || p.text.Len()+len(num)+len(line)+2 > maxBytes {
		if p.first != 0 {
			return false // starts the next page
		}
		cut := max(maxBytes-len(num)-64, 0)
		for cut > 0 && cut < len(line) && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = fmt.Appendf(line[:min(cut, len(line)):min(cut, len(line))], " … (line %d is %s; cut here)", p.total, humanSize(int64(lineLen)))
	}
	if !utf8.Valid(line) {
		p.valid = false
	}
	if p.first == 0 {
		p.first = p.total
	}
	p.last = p.total
	p.text.WriteString(num)
	p.text.WriteByte('\t')
	p.text.WriteString(validText(line))
	p.text.WriteByte('\n')
	return true
}

// notFound explains that rel does not exist and names files of the same
// name elsewhere in the workspace, since small models often get the
// directory wrong.
func (w *Workspace) notFound(ctx context.Context, rel string) string {
	want := strings.ToLower(path.Base(rel))
	var found []string
	visited := 0
	errStop := errors.New("stop")
	_ = w.rules.Walk(ctx, w.root, func(p string, d fs.DirEntry) error {
		if visited++; visited > 20000 || len(found) == 3 {
			return errStop
		}
		if !d.IsDir() && strings.ToLower(d.Name()) == want {
			found = append(found, shownName(p))
		}
		return nil
	})
	if len(found) > 0 {
		return fmt.Sprintf("%s does not exist. Did you mean %s?", rel, strings.Join(found, " or "))
	}
	return rel + " does not exist; use glob or list_dir to find the right path"
}
