package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed edit_file.md
var editFileDoc string

type editFile struct {
	Decl
	ws   *Workspace
	cp   *Checkpoint
	diag checker
}

// NewEditFile returns the edit_file tool: the exact, unique replacement of
// one piece of a file's text with another. When the text is not there as
// written it tries again ignoring whitespace, and otherwise shows the model
// where the closest text is. cp, which may be nil, is saved before the
// first change. What the edit broke is checked with the language's
// tree-sitter grammar (newEditFile adds its language server).
func NewEditFile(ws *Workspace, cp *Checkpoint) Tool { return newEditFile(ws, cp, nil) }

// newEditFile is edit_file checking edits with servers too, when not nil.
func newEditFile(ws *Workspace, cp *Checkpoint, servers LanguageServers) Tool {
	return &editFile{ws: ws, cp: cp, diag: checker{ws, servers}, Decl: Declare[editArgs]("edit_file", editFileDoc)}
}

type editArgs struct {
	Path       string  `json:"path" tool:"required,subject"`
	Old        string  `json:"old_string" tool:"required"`
	New        string  `json:"new_string" tool:"required"`
	ReplaceAll boolArg `json:"replace_all"`
}

func (t *editFile) Effect() Effect { return Writes }

// editPlan is an edit worked out but not yet written.
type editPlan struct {
	file  target
	after string
	at    []int // the first line of each replaced occurrence
	notes []string
}

// Review works the edit out and shows its diff.
func (t *editFile) Review(ctx context.Context, args json.RawMessage) Review {
	p, refused := t.plan(ctx, args)
	if refused != nil {
		return Review{Refused: refused}
	}
	diff, _, _ := unifiedDiff(p.file.rel, p.file.content, p.after, 3)
	return Review{Preview: diff}
}

func (t *editFile) Run(ctx context.Context, in Input) Result {
	p, refused := t.plan(ctx, in.Args)
	if refused != nil {
		return *refused
	}
	t.cp.Save(ctx)
	if err := p.file.write(ctx, p.after); err != nil {
		return fail("edit_file "+p.file.rel+": error", "cannot write %s: %v", p.file.rel, err)
	}
	t.ws.reads.mark(p.file.abs)
	full, added, removed := unifiedDiff(p.file.rel, p.file.content, p.after, 3)
	short, _, _ := unifiedDiff(p.file.rel, p.file.content, p.after, 2)
	lines := make([]string, len(p.at))
	for i, l := range p.at {
		lines[i] = fmt.Sprint(l)
	}
	note, found := t.diag.check(ctx, p.file, p.after)
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s: replaced %s at line %s.\n", p.file.rel, plural(len(p.at), "occurrence", "occurrences"), strings.Join(lines, ", "))
	for _, n := range p.notes {
		b.WriteString("(" + n + ")\n")
	}
	b.WriteString(diffForModel(short, roomBeside(in.Limit, note)))
	if note != "" {
		b.WriteString("\n" + note)
	}
	return Result{Output: b.String(), Summary: fmt.Sprintf("%s: +%d -%d", p.file.rel, added, removed), Diff: full, Diagnostics: found}
}

// plan checks the call and works out the new content. A refusal is the
// result the model gets: what went wrong and what to do instead.
func (t *editFile) plan(ctx context.Context, raw json.RawMessage) (editPlan, *Result) {
	var args editArgs
	refuse := func(what, format string, a ...any) (editPlan, *Result) {
		r := fail("edit_file "+args.Path+": "+what, format, a...)
		return editPlan{}, &r
	}
	if err := decodeArgs(raw, &args); err != nil {
		return refuse("bad arguments", "%v", err)
	}
	f, refused := t.ws.loadTarget(ctx, "edit_file", args.Path)
	if refused != nil {
		return editPlan{}, refused
	}
	switch {
	case !f.exists:
		return refuse("not found", "%s does not exist. To create a new file, use write_file. %s", f.rel, t.ws.notFound(ctx, f.rel))
	case args.Old == "":
		return refuse("empty old_string", "old_string is empty. Give the exact text to replace; to add text, put the line next to where it goes in old_string and repeat it in new_string")
	case args.Old == args.New:
		return refuse("no change", "old_string and new_string are the same; there is nothing to change")
	}
	content, old, new := f.content, args.Old, args.New
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r") {
		old = strings.ReplaceAll(old, "\n", "\r\n")
		new = strings.ReplaceAll(new, "\n", "\r\n")
	}
	p := editPlan{file: f}
	spans, loose := exactSpans(content, old), false
	if len(spans) == 0 {
		if o, ok := stripLineNumbers(old); ok && len(exactSpans(content, o)) > 0 {
			old, spans = o, exactSpans(content, o)
			if n, ok := stripLineNumbers(new); ok {
				new = n
			}
			p.notes = append(p.notes, "removed the read_file line numbers from old_string")
		}
	}
	if len(spans) == 0 {
		spans, loose = looseSpans(content, old), true
	}
	switch {
	case len(spans) == 0:
		return editPlan{}, t.notFound(f, old)
	case len(spans) > 1 && !bool(args.ReplaceAll):
		return refuse("not unique", "old_string occurs %d times in %s (at lines %s). Add neighbouring lines to old_string so that it matches once, or set replace_all to true to change all of them",
			len(spans), f.rel, spanLines(content, spans, 10))
	case loose && !f.read:
		first, last := lineOf(content, spans[0].start), lineOf(content, spans[0].end)
		t.ws.reads.mark(f.abs)
		return refuse("not read", "You have not read %s in this session, and old_string matches it only with different whitespace. Here are lines %d-%d as they are:\n%s\nCopy old_string exactly from them (without the line numbers) and call edit_file again",
			f.rel, first, last, numberedLines(content, first, last))
	}
	if loose {
		p.notes = append(p.notes, "old_string matched with different whitespace; new_string was indented like the file")
	}
	if !f.read {
		p.notes = append(p.notes, "you had not read "+f.rel+" in this session; check the diff")
	}
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		b.WriteString(content[prev:s.start])
		if loose {
			b.WriteString(reindent(new, old, matchedLines(content, s)))
		} else {
			b.WriteString(new)
		}
		prev = s.end
		p.at = append(p.at, lineOf(content, s.start))
	}
	b.WriteString(content[prev:])
	p.after = b.String()
	if p.after == content {
		return refuse("no change", "the edit would leave %s as it is; there is nothing to change", f.rel)
	}
	return p, nil
}

// notFound explains that old matches nowhere in the file, showing the most
// similar lines when some are similar enough to be what the model meant.
func (t *editFile) notFound(f target, old string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "old_string was not found in %s, not even ignoring whitespace. ", f.rel)
	first, last, score := closestLines(f.content, old)
	if score >= 0.5 {
		t.ws.reads.mark(f.abs)
		lines := max(last-first+1, 1)
		shown := numberedLines(f.content, first-1, min(last+1, first+max(lines, 30)))
		fmt.Fprintf(&b, "The most similar text is at lines %d-%d:\n%s\nCopy old_string exactly from there (without the line numbers) and call edit_file again.", first, last, shown)
	} else {
		b.WriteString("Nothing in it looks similar: read the file with read_file and copy old_string from what it shows.")
		if !f.read {
			fmt.Fprintf(&b, " You have not read %s in this session.", f.rel)
		}
	}
	r := fail("edit_file "+f.rel+": no match", "%s", b.String())
	return &r
}

// matchedLines returns the whole lines of content that s touches.
func matchedLines(content string, s span) []string {
	start := strings.LastIndexByte(content[:s.start], '\n') + 1
	end := s.end
	if i := strings.IndexByte(content[end:], '\n'); i >= 0 {
		end += i
	} else {
		end = len(content)
	}
	lines := strings.Split(content[start:end], "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// spanLines lists the first lines of up to n spans: "4, 17, 30".
func spanLines(content string, spans []span, n int) string {
	var parts []string
	for i, s := range spans {
		if i == n {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprint(lineOf(content, s.start)))
	}
	return strings.Join(parts, ", ")
}
