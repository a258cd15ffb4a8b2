package acp

import (
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// An edit reaches the editor as diff content: the text before and after.
// tern's tools describe a change as a unified diff; each of its hunks,
// with its lines of context, is one before-and-after pair.

// hunk is one hunk of a unified diff, as the text before and after it.
type hunk struct {
	old, new           string
	oldStart, newStart int
}

// parseUnified reads a unified diff of one file: the file's path (the
// "+++" side, without its b/ prefix), its hunks, and whether the file is
// new ("--- /dev/null"). A text that is no diff has no path.
func parseUnified(diff string) (path string, hunks []hunk) {
	var cur *hunk
	var old, new strings.Builder
	flush := func() {
		if cur != nil {
			cur.old, cur.new = old.String(), new.String()
			hunks = append(hunks, *cur)
		}
		old.Reset()
		new.Reset()
	}
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			path = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, "+++ ")), "b/")
		case strings.HasPrefix(line, "--- "):
		case strings.HasPrefix(line, "@@"):
			flush()
			cur = &hunk{}
			cur.oldStart, cur.newStart = hunkStarts(line)
		case cur == nil:
		case strings.HasPrefix(line, "-"):
			old.WriteString(line[1:] + "\n")
		case strings.HasPrefix(line, "+"):
			new.WriteString(line[1:] + "\n")
		case strings.HasPrefix(line, " "):
			old.WriteString(line[1:] + "\n")
			new.WriteString(line[1:] + "\n")
		case strings.HasPrefix(line, `\`): // "\ No newline at end of file"
		}
	}
	flush()
	if path == "/dev/null" {
		path = ""
	}
	return path, hunks
}

// hunkStarts reads "@@ -12,5 +12,7 @@" as 12 and 12.
func hunkStarts(line string) (oldStart, newStart int) {
	for f := range strings.FieldsSeq(line) {
		n, _, _ := strings.Cut(f[min(1, len(f)):], ",")
		v, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(f, "-"):
			oldStart = v
		case strings.HasPrefix(f, "+"):
			newStart = v
		}
	}
	return oldStart, newStart
}

// diffContent is a unified diff as the editor's diff content, one entry
// a hunk, with the file's path made absolute from dir. A new file has no
// old text.
func diffContent(dir, diff string) []sdk.ToolCallContent {
	path, hunks := parseUnified(diff)
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, filepath.FromSlash(path))
	}
	created := strings.Contains(diff, "--- /dev/null")
	var out []sdk.ToolCallContent
	for _, h := range hunks {
		if created {
			out = append(out, sdk.ToolDiffContent(path, h.new))
		} else {
			out = append(out, sdk.ToolDiffContent(path, h.new, h.old))
		}
	}
	return out
}
