package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ternhq/tern/session"
)

// modal wraps p in a page centred over the main view, taking the given
// share (in tenths) of the width and height, or nearly all of a small
// terminal (see centered). p clears the cells it covers (see opaque); the
// rest of the main view stays visible around it.
func modal(p tview.Primitive, wTenths, hTenths int, style tcell.Style) tview.Primitive {
	return &centered{Primitive: newOpaque(p, style), wTenths: wTenths, hTenths: hTenths}
}

// openModal shows a dialog; onClose runs when it closes for any reason.
// An open dialog is closed first. A guarded dialog, one that opens by
// itself rather than at the user's key, takes no key typed for the prompt
// (see keyGuard).
func (a *App) openModal(name string, p, focus tview.Primitive, wTenths, hTenths int, guarded bool, onClose func()) {
	if a.modal != "" {
		a.closeModal()
	}
	a.hideToolList()
	a.pages.AddPage(name, modal(p, wTenths, hTenths, a.th.text), true, true)
	a.modal, a.modalClose = name, onClose
	if guarded {
		a.armGuard()
	}
	a.setHint("")
	a.app.SetFocus(focus)
}

// closeModal closes the open dialog and returns to the prompt.
func (a *App) closeModal() {
	if a.modal == "" {
		return
	}
	name, onClose := a.modal, a.modalClose
	a.modal, a.modalClose, a.approval = "", nil, nil
	a.stopGuard()
	a.pages.RemovePage(name)
	a.app.SetFocus(a.input)
	if onClose != nil {
		onClose()
	}
	a.drainQueue()
}

// framed gives a primitive a border and a title.
func (a *App) framed(b *tview.Box, title string) {
	b.SetBorder(true).SetTitle(" "+title+" ").SetTitleColor(titleColor(a.th)).SetBorderPadding(0, 0, 1, 1)
}

func titleColor(th theme) tcell.Color {
	fg, _, _ := th.dialogTitle.Decompose()
	return fg
}

// showHelp opens the full help: every key and command.
func (a *App) showHelp() {
	v := newConvo(a.th, 1000)
	v.add(&block{kind: kindInfo, short: a.helpLines()})
	v.follow = false
	keys := newKeyBar(a.th, nil, hint{"↑/↓ PgUp/PgDn", "scroll"}, hint{"Esc", "close"})
	keys.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		switch ev.Key() {
		case tcell.KeyUp:
			v.scroll(-1)
		case tcell.KeyDown:
			v.scroll(1)
		case tcell.KeyPgUp:
			v.page(-1)
		case tcell.KeyPgDn:
			v.page(1)
		case tcell.KeyRune:
			if ev.Rune() == 'q' || ev.Rune() == '?' {
				a.closeModal()
			}
		}
		return nil
	})
	a.openModal("help", a.newDialogBox("help", v, keys), keys, 8, 8, false, nil)
}

func (a *App) helpLines() []line {
	th := a.th
	var out []line
	head := func(s string) { out = append(out, line{}, styledLine(s, th.heading2)) }
	row := func(k, what string) {
		out = append(out, line{spans: []span{{text: fmt.Sprintf("  %-18s", k), style: th.bold}, {text: what, style: th.text}}, hang: 20})
	}
	out = append(out, styledLine("tern — a coding agent for small local models", th.heading))
	head("Keys")
	for _, k := range [][2]string{
		{"Enter", "send the prompt; while tern works, queue it (sent in order when it is free)"},
		{"Alt+Enter, Ctrl+J", "new line in the prompt (Shift+Enter where the terminal reports it)"},
		{"Up / Down", "earlier and later prompts (at the first and last line)"},
		{"Ctrl+T", "cycle the tool tier 0 → 1 → 2 → 3 → 0; lowering it starts a fresh prompt prefix"},
		{"Tab", "complete a /command; else move the focus: prompt → conversation → tool list"},
		{"Shift+Tab", "plan mode on or off: the model only reads and proposes a plan to accept (tier 1 or 2) or send back"},
		{"Ctrl+R", "RAG on or off: retrieved repository code in each prompt"},
		{"Ctrl+C", "cancel the queued prompts, then the running turn; when idle, clear the prompt (Up brings it back), and on an empty prompt press twice within 2 s to quit"},
		{"Ctrl+Q", "quit (with text in the prompt or queued, press it twice)"},
		{"Ctrl+L", "clear the screen (the session keeps everything)"},
		{"Ctrl+S", "sessions: Enter resumes one"},
		{"PgUp / PgDn", "scroll the conversation"},
		{"Esc", "while tern works, as Ctrl+C; else close a dialog, or return to the prompt"},
		{"?", "this help (when the prompt is empty)"},
	} {
		row(k[0], k[1])
	}
	head("In the conversation (Tab)")
	row("↑/↓  j/k", "select a tool call or a thought")
	row("Enter / Space", "open or close it: a call's output, a diff, the thinking")
	row("Home / End", "the start and the end")
	head("Approvals")
	row("y", "allow this call once")
	row("p", "allow the commands that start as this one does (go test) for the rest of the session; offered for one plain command, never a destructive one")
	row("a", "allow this tool for the rest of the session (destructive commands always ask)")
	row("n", "deny; type a reason for the model, or just press Enter")
	head("Commands")
	for _, c := range commandList() {
		row("/"+c.name+argHint(c.args), c.help)
	}
	out = append(out, line{}, styledLine("A prompt that starts with // sends a literal /.", th.dim))
	return out
}

// welcome is the first thing in the conversation.
func (a *App) welcome() []line {
	th := a.th
	return []line{
		{spans: []span{{text: "tern", style: th.heading}, {text: " · " + a.cfg.Root, style: th.dim}}},
		styledLine("Ask about the code, or type / for commands and ? for help.", th.dim),
	}
}

// showSessions lists past sessions; Enter resumes one. The list is read
// in the background.
func (a *App) showSessions() {
	if a.deps.Sessions == nil {
		a.warn("sessions are not available: no session store")
		return
	}
	ctx, cancel := a.jobContext()
	a.background(func() {
		defer cancel()
		list, err := a.deps.Sessions.List(ctx, 100)
		a.pump.post(func() {
			if err != nil {
				a.fail("sessions: " + err.Error())
				return
			}
			a.sessionDialog(list)
		})
	})
}

func (a *App) sessionDialog(list []session.Session) {
	l := tview.NewList().ShowSecondaryText(false).SetUseStyleTags(false, false).SetHighlightFullLine(true)
	l.SetMainTextStyle(a.th.text).SetSelectedStyle(a.th.selected.Bold(true))
	a.th.plain(l.Box)
	current := ""
	if a.back != nil {
		current = a.back.SessionID
	}
	var shown []session.Session
	for _, s := range list {
		if s.Turns == 0 && s.ID != current {
			continue // nothing to resume
		}
		shown = append(shown, s)
		id := s.ID
		l.AddItem(sessionRow(s, current, 0), "", 0, func() {
			a.closeModal()
			if id != current {
				a.resume(id)
			}
		})
	}
	if l.GetItemCount() == 0 {
		a.note("no sessions with a conversation yet in this workspace")
		return
	}
	rows := &fitted{List: l, row: func(i, width int) string { return sessionRow(shown[i], current, width) }}
	keys := newKeyBar(a.th, a.guardLead, hint{"↑/↓", "choose"}, hint{"Enter", "resume"}, hint{"Esc", "close"})
	a.openModal("sessions", a.newDialogBox("sessions", rows, keys), rows, 9, 7, true, nil)
}

// insertRef puts a reference into the prompt at the cursor.
func (a *App) insertRef(ref string) {
	text := a.input.GetText()
	if text != "" && !strings.HasSuffix(text, " ") && !strings.HasSuffix(text, "\n") {
		ref = " " + ref
	}
	a.input.SetText(text+ref+" ", true)
}

// confirm shows lines in a dialog and asks y (doing what yes says) or n.
// Esc counts as n.
func (a *App) confirm(title string, lines []line, yes string, onYes, onNo func()) {
	th := a.th
	preview := newConvo(th, 2000)
	preview.follow = false
	preview.add(&block{kind: kindInfo, short: lines})
	question := newKeyBar(th, a.guardLead, hint{"y", yes}, hint{"n", "no"}, hint{"PgUp/PgDn", "scroll"})
	question.SetInputCapture(pageOrRune(preview, func(r rune) {
		switch r {
		case 'y', 'Y':
			a.modalClose = nil
			a.closeModal()
			onYes()
		case 'n', 'N':
			a.closeModal()
		}
	}))
	a.openModal("confirm", a.newDialogBox(title, preview, question), question, 9, 9, true, onNo)
}

// undoDialog lists what /undo would change and asks before doing it.
func (a *App) undoDialog(u Undoer, plan UndoPlan) {
	th := a.th
	var lines []line
	if plan.Prompt != "" {
		lines = append(lines, styledLine("The turn leaves the conversation, and its prompt comes back into yours:", th.bold))
		lines = append(lines, indent(userLines(th, oneLine(plan.Prompt, 200)), 2)...)
	}
	if n := len(plan.Restore); n > 0 {
		lines = append(lines, styledLine(fmt.Sprintf("Restore %s to what it held before the turn:", countOf(n, "file")), th.bold))
		for _, p := range plan.Restore {
			lines = append(lines, styledLine("  "+p, th.text))
		}
	}
	if n := len(plan.Delete); n > 0 {
		lines = append(lines, styledLine(fmt.Sprintf("Delete %s the turn created:", countOf(n, "file")), th.bold))
		for _, p := range plan.Delete {
			lines = append(lines, styledLine("  "+p, th.diffDel))
		}
	}
	switch {
	case plan.Kept != "":
		lines = append(lines, line{}, styledLine("The files stay as they are: "+plan.Kept+".", th.warn))
	case len(plan.Restore)+len(plan.Delete) > 0:
		lines = append(lines, line{}, styledLine("Changes made to those files since, by anyone, are undone too.", th.dim))
	default:
		lines = append(lines, line{}, styledLine("The turn changed no files.", th.dim))
	}
	lines = append(lines, styledLine("Only the last turn can be taken back; `tern undo` restores the whole session.", th.dim))
	a.confirm("undo: take back the last turn?", lines, "take it back",
		func() { a.applyUndo(u, plan) },
		func() { a.note("undo cancelled; nothing was changed") })
}

// pageOrRune is the input of a dialog under a scrolling preview: Up/PgUp
// and Down/PgDn scroll the preview, a typed character goes to onRune, and
// no key goes further.
func pageOrRune(preview *convo, onRune func(rune)) func(*tcell.EventKey) *tcell.EventKey {
	return func(ev *tcell.EventKey) *tcell.EventKey {
		switch ev.Key() {
		case tcell.KeyPgUp, tcell.KeyUp:
			preview.page(-1)
		case tcell.KeyPgDn, tcell.KeyDown:
			preview.page(1)
		case tcell.KeyRune:
			onRune(ev.Rune())
		}
		return nil
	}
}

// sessionRow is a session's row in the sessions list, width cells wide
// (0: as wide as it likes): its id, start, model, turns and first
// prompt. The first prompt is what tells sessions apart, so a narrow
// list drops the model, then the start, to keep at least 20 cells of it.
func sessionRow(s session.Session, current string, width int) string {
	mark := "  "
	if s.ID == current {
		mark = "▸ "
	}
	turns := fmt.Sprintf("%d turns", s.Turns)
	if s.Turns == 1 {
		turns = "1 turn"
	}
	const titleMin = 20
	fields := []string{s.ID, s.Started.Local().Format("Jan 02 15:04"), fmt.Sprintf("%-14s %9s", oneLine(s.Model, 14), turns)}
	switch n := 2 + len(s.ID); { // the mark is 2 cells
	case width == 0 || width >= n+2+12+2+24+2+titleMin:
	case width >= n+2+12+2+8+2+titleMin:
		fields[2] = fmt.Sprintf("%8s", turns)
	default:
		fields = []string{s.ID, fmt.Sprintf("%8s", turns)}
	}
	return mark + strings.Join(append(fields, oneLine(s.Title, 60)), "  ")
}

// fitted is a list whose rows are laid out for the width it is drawn at,
// again whenever that changes (a resize).
type fitted struct {
	*tview.List
	row   func(i, width int) string
	width int
}

func (f *fitted) Draw(screen tcell.Screen) {
	if _, _, w, _ := f.GetInnerRect(); w != f.width {
		f.width = w
		for i := range f.GetItemCount() {
			f.SetItemText(i, f.row(i, w), "")
		}
	}
	f.List.Draw(screen)
}
