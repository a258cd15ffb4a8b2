package tui

import (
	"fmt"
	"strings"
)

// cmdDiff shows what the session changed: a block with the first lines of
// the diff and its size, the whole diff on opening.
func (a *App) cmdDiff() {
	if !a.ready("diff") {
		return
	}
	d := a.back.Differ
	if d == nil {
		a.warn("/diff is not available in this build")
		return
	}
	ctx := a.startJob("diffing")
	a.background(func() {
		diff, err := d.Diff(ctx)
		a.pump.post(func() {
			a.endJob()
			switch {
			case err != nil:
				a.fail("diff: " + err.Error())
			case strings.TrimSpace(diff) == "":
				a.note("no changes: the files match the checkpoint taken before this session's first change")
			default:
				a.showDiff(diff)
			}
		})
	})
}

// showDiff adds the session's diff to the conversation, collapsed to its
// first lines like a tool's.
func (a *App) showDiff(diff string) {
	th := a.th
	files, added, removed := diffStat(diff)
	head := styledLine(fmt.Sprintf("diff since this session's checkpoint: %s changed, +%d −%d", countOf(files, "file"), added, removed), th.tool)
	lines := diffLines(th, strings.TrimRight(diff, "\n"))
	short := []line{head}
	short = append(short, indent(lines[:min(len(lines), diffShown)], 2)...)
	if len(lines) > diffShown {
		short = append(short, styledLine(fmt.Sprintf("  … %d more diff lines (Tab, then Enter to open)", len(lines)-diffShown), th.dim))
	}
	long := append([]line{head}, indent(lines, 2)...)
	a.conv.add(&block{kind: kindTool, short: short, long: long})
	a.conv.toEnd()
}

// diffStat counts a unified diff's files and its added and removed lines.
func diffStat(diff string) (files, added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			files++
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return files, added, removed
}

// countOf returns "1 file" or "3 files".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
