package tui

import (
	"cmp"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rivo/tview"

	"github.com/ternhq/tern/agent"
)

// progressEvery paces index progress updates.
const progressEvery = 100 * time.Millisecond

// cmdIndex builds or updates the index in the background, with a progress
// line that updates in place. It does not need the model to be connected.
func (a *App) cmdIndex() {
	if a.deps.Index == nil {
		a.warn("/index: the repository index is not available in this build yet")
		return
	}
	if a.indexing {
		a.warn("/index is already running")
		return
	}
	a.indexing = true
	a.conv.set("index", kindNotice, []line{styledLine("· indexing…", a.th.notice)}, nil)
	a.conv.toEnd()
	ctx, cancel := a.jobContext()
	start := a.now()
	var mu sync.Mutex
	var last time.Time
	a.background(func() {
		defer cancel()
		summary, err := a.deps.Index.Index(ctx, func(p IndexProgress) {
			mu.Lock()
			defer mu.Unlock()
			if time.Since(last) < progressEvery && p.Done < p.Total {
				return
			}
			last = time.Now()
			l := progressLine(a.th, p)
			a.pump.post(func() { a.conv.set("index", kindNotice, []line{l}, nil) })
		})
		took := a.now().Sub(start)
		a.pump.post(func() {
			a.indexing = false
			a.conv.remove("index")
			if err != nil {
				a.fail("index: " + err.Error())
				return
			}
			if summary == "" {
				summary = "index up to date"
			}
			a.note(fmt.Sprintf("%s (%s)", summary, elapsed(took)))
		})
	})
}

// progressLine draws "indexing ▮▮▮▯▯▯▯▯ 120/530 files · path", each
// step of the run with its own words and unit ("step 2 of 2: embedding
// ▮▯▯ 128/6008 chunks"), so that a new step is not a bar jumping back.
func progressLine(th theme, p IndexProgress) line {
	const cells = 20
	filled := 0
	if p.Total > 0 {
		filled = min(cells, p.Done*cells/p.Total)
	}
	unit := cmp.Or(p.Unit, "files")
	text := fmt.Sprintf("%d/%d %s", p.Done, p.Total, unit)
	if p.Total <= 0 {
		text = fmt.Sprintf("%d %s", p.Done, unit)
	}
	l := line{spans: []span{
		{text: "· " + cmp.Or(p.Step, "indexing") + " ", style: th.notice},
		{text: strings.Repeat("▮", filled) + strings.Repeat("▯", cells-filled), style: th.notice},
		{text: " " + text, style: th.notice},
	}}
	if p.Path != "" {
		l.spans = append(l.spans, span{text: " · " + oneLine(p.Path, 60), style: th.dim})
	}
	return l
}

// cmdSearch searches in the background and shows the hits in a pane.
func (a *App) cmdSearch(query string) {
	if query == "" {
		a.fail("usage: /search QUERY")
		return
	}
	if a.deps.Search == nil {
		a.warn("/search: the repository index is not available in this build yet")
		return
	}
	ctx, cancel := a.jobContext()
	a.background(func() {
		defer cancel()
		hits, err := a.deps.Search.Search(ctx, query, 20)
		a.pump.post(func() {
			if err != nil {
				a.fail("search: " + err.Error())
				return
			}
			if len(hits) == 0 {
				a.note("no results for " + query)
				return
			}
			a.searchDialog(query, hits)
		})
	})
}

func (a *App) searchDialog(query string, hits []SearchHit) {
	th := a.th
	l := tview.NewList().ShowSecondaryText(false).SetUseStyleTags(false, false).SetHighlightFullLine(true)
	l.SetMainTextStyle(th.text).SetSelectedStyle(th.selected.Bold(true))
	th.plain(l.Box)
	preview := newConvo(th, 500)
	preview.follow = false
	show := func(i int) {
		preview.clear()
		preview.follow = false
		h := hits[i]
		lang := strings.TrimPrefix(extOf(h.Path), ".")
		lines := []line{styledLine(h.Ref(), th.bold)}
		lines = append(lines, a.md.hl.lines(h.Snippet, lang)...)
		preview.add(&block{kind: kindInfo, short: lines})
	}
	for _, h := range hits {
		ref := h.Ref()
		l.AddItem(searchRow(h, 0, 0), "", 0, func() {
			a.closeModal()
			a.insertRef("@" + ref) // a mention: the lines are attached when the prompt is sent
		})
	}
	l.SetChangedFunc(func(i int, _, _ string, _ rune) { show(i) })
	show(0)
	longest := 0
	for _, h := range hits {
		longest = max(longest, len([]rune(h.Ref())))
	}
	rows := &fitted{List: l, row: func(i, width int) string { return searchRow(hits[i], width, longest) }}
	body := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(rows, 0, 1, true).
		AddItem(newRule(th), 1, 0, false).
		AddItem(preview, 0, 1, false)
	keys := newKeyBar(th, a.guardLead, hint{"↑/↓", "choose"}, hint{"Enter", "put @reference in the prompt"}, hint{"Esc", "close"})
	a.openModal("search", a.newDialogBox("search: "+oneLine(query, 40), body, keys), rows, 9, 9, true, nil)
}

// searchRow is a hit's row in the search results, width cells wide (0:
// as wide as it likes): its path and lines (what Enter puts into the
// prompt) in a column as wide as the longest of them, longest, allows,
// then its symbol and score. Under 71 cells the score goes and the path
// keeps the whole width, the symbol what is left; at 60 columns both
// were cut short.
func searchRow(h SearchHit, width, longest int) string {
	const symbolCol, scoreCol = 24, 5
	if width == 0 || width >= 40+1+symbolCol+1+scoreCol {
		refCol := 40
		if width > 0 {
			refCol = max(40, min(longest, width-symbolCol-scoreCol-2))
		}
		return fmt.Sprintf("%-*s %-*s %.3f", refCol, oneLine(h.Ref(), refCol), symbolCol, oneLine(h.Symbol, symbolCol), h.Score)
	}
	ref := oneLine(h.Ref(), width)
	if rest := width - len([]rune(ref)) - 2; rest >= 6 && h.Symbol != "" {
		return ref + "  " + oneLine(h.Symbol, rest)
	}
	return ref
}

func extOf(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 && !strings.ContainsRune(path[i:], '/') {
		return path[i:]
	}
	return ""
}

// cmdDoctor runs the doctor's checks and shows the report.
func (a *App) cmdDoctor() {
	if a.deps.Doctor == nil {
		a.warn("/doctor is not available here; run `tern doctor` in a shell")
		return
	}
	a.note("checking Ollama, the models and the workspace…")
	ctx, cancel := a.jobContext()
	a.background(func() {
		defer cancel()
		report, err := a.deps.Doctor(ctx)
		lines := reportLines(report, a.th.text)
		a.pump.post(func() {
			if len(lines) > 0 {
				a.say(lines...)
			}
			if err != nil {
				a.warn("doctor found problems: " + err.Error())
			}
		})
	})
}

// cmdInit has the model explore the repository and draft AGENTS.md, then
// shows the draft for the user to accept or discard.
func (a *App) cmdInit() {
	if a.deps.Notes == nil {
		a.warn("/init is not available here: nothing can write the notes file")
		return
	}
	if !a.ready("run /init") {
		return
	}
	a.beginTurn("/init: write AGENTS.md for this repository", false)
	a.talked = true
	ctx := a.startJob("generating")
	runner, prompt := a.back.Agent, a.deps.Notes.Prompt()
	a.background(func() {
		var draft string
		err := runner.Run(ctx, prompt, func(e agent.Event) {
			if m, ok := e.(agent.Message); ok && len(m.Message.ToolCalls) == 0 {
				draft = m.Message.Content
			}
			a.pump.emit(e)
		})
		draft = stripFence(draft)
		lines := a.md.render(draft) // off the UI goroutine
		a.pump.post(func() {
			a.jobDone(err)
			if err != nil || strings.TrimSpace(draft) == "" {
				if err == nil {
					a.warn("/init: the model gave no draft; try again, or write AGENTS.md yourself")
				}
				return
			}
			a.notesDialog(draft, lines)
		})
	})
}

// stripFence removes a code fence around the whole draft.
func stripFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") {
		return s
	}
	t = strings.TrimSuffix(t, "```")
	_, body, ok := strings.Cut(t, "\n")
	if !ok {
		return s
	}
	return strings.TrimSpace(body) + "\n"
}

// notesDialog shows the AGENTS.md draft: y writes it, n discards it.
func (a *App) notesDialog(draft string, rendered []line) {
	a.confirm("AGENTS.md draft", rendered, "write AGENTS.md",
		func() { a.writeNotes(draft) },
		func() { a.note("draft discarded") })
}

func (a *App) writeNotes(draft string) {
	w := a.deps.Notes
	a.background(func() {
		path, err := w.WriteNotes(draft)
		a.pump.post(func() {
			if err != nil {
				a.fail("write notes: " + err.Error())
				return
			}
			a.note("wrote " + path + "; it is in the system prompt of new sessions")
		})
	})
}
