package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed write_file.md
var writeFileDoc string

type writeFile struct {
	Decl
	ws   *Workspace
	cp   *Checkpoint
	diag checker
}

// NewWriteFile returns the write_file tool. It creates files; it replaces
// an existing file only when asked to overwrite one the model has read,
// because small models rewriting whole files drop code they did not see.
// cp, which may be nil, is saved before the first change. What the write
// broke is checked with the language's tree-sitter grammar
// (newWriteFile adds its language server).
func NewWriteFile(ws *Workspace, cp *Checkpoint) Tool { return newWriteFile(ws, cp, nil) }

// newWriteFile is write_file checking writes with servers too, when not
// nil.
func newWriteFile(ws *Workspace, cp *Checkpoint, servers LanguageServers) Tool {
	return &writeFile{ws: ws, cp: cp, diag: checker{ws, servers}, Decl: Declare[writeArgs]("write_file", writeFileDoc)}
}

func (t *writeFile) Effect() Effect { return Writes }

type writeArgs struct {
	Path      string  `json:"path" tool:"required,subject"`
	Content   string  `json:"content" tool:"required"`
	Overwrite boolArg `json:"overwrite"`
}

// Review checks the call and shows the new file, or the change to the old.
func (t *writeFile) Review(ctx context.Context, raw json.RawMessage) Review {
	f, args, refused := t.check(ctx, raw)
	if refused != nil {
		return Review{Refused: refused}
	}
	diff, _, _ := unifiedDiff(f.rel, f.content, args.Content, 3)
	return Review{Preview: diff}
}

func (t *writeFile) Run(ctx context.Context, in Input) Result {
	f, args, refused := t.check(ctx, in.Args)
	if refused != nil {
		return *refused
	}
	t.cp.Save(ctx)
	if err := f.write(ctx, args.Content); err != nil {
		return fail("write_file "+f.rel+": error", "cannot write %s: %v", f.rel, err)
	}
	t.ws.reads.mark(f.abs)
	diff, added, removed := unifiedDiff(f.rel, f.content, args.Content, 3)
	lines := strings.Count(args.Content, "\n")
	if args.Content != "" && !strings.HasSuffix(args.Content, "\n") {
		lines++
	}
	note, found := t.diag.check(ctx, f, args.Content)
	if note != "" {
		note = "\n" + note
	}
	if !f.exists {
		return Result{Output: fmt.Sprintf("Created %s (%s).%s", f.rel, plural(lines, "line", "lines"), note),
			Summary: fmt.Sprintf("%s: new, %s", f.rel, plural(lines, "line", "lines")), Diff: diff, Diagnostics: found}
	}
	short, _, _ := unifiedDiff(f.rel, f.content, args.Content, 2)
	return Result{Output: fmt.Sprintf("Replaced %s (%s, +%d -%d):\n%s%s", f.rel, plural(lines, "line", "lines"), added, removed, diffForModel(short, roomBeside(in.Limit, note)), note),
		Summary: fmt.Sprintf("%s: +%d -%d", f.rel, added, removed), Diff: diff, Diagnostics: found}
}

// check decodes the call and loads the file, refusing what must not be
// written.
func (t *writeFile) check(ctx context.Context, raw json.RawMessage) (target, writeArgs, *Result) {
	var args writeArgs
	if err := decodeArgs(raw, &args); err != nil {
		r := fail("write_file: bad arguments", "%v", err)
		return target{}, args, &r
	}
	f, refused := t.ws.loadTarget(ctx, "write_file", args.Path)
	if refused != nil {
		return f, args, refused
	}
	refuse := func(what, format string, a ...any) (target, writeArgs, *Result) {
		r := fail("write_file "+f.rel+": "+what, format, a...)
		return target{}, args, &r
	}
	switch {
	case len(args.Content) > maxChangeBytes:
		return refuse("too large", "content is %s; write_file writes files up to %s", humanSize(int64(len(args.Content))), humanSize(maxChangeBytes))
	case f.exists && !bool(args.Overwrite):
		return refuse("exists", "%s already exists (%s). To change part of it, call edit_file with old_string and new_string. To replace the whole file, read it with read_file first, then call write_file with overwrite set to true",
			f.rel, plural(strings.Count(f.content, "\n"), "line", "lines"))
	case f.exists && !f.read:
		return refuse("not read", "%s exists and you have not read it in this session. Read it with read_file first; replacing a file you have not seen loses its code. To change part of it, use edit_file", f.rel)
	case f.exists && f.content == args.Content:
		return refuse("no change", "%s already has exactly this content; nothing to write", f.rel)
	}
	return f, args, nil
}
