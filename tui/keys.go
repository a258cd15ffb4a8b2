package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
)

// maxInputRows is the tallest the prompt grows before it scrolls.
const maxInputRows = 8

// quitWindow is how soon a second Ctrl+C must follow the first to quit.
const quitWindow = 2 * time.Second

// globalKeys sees every key first. It runs on the event loop, so it
// touches widgets directly and never queues updates.
func (a *App) globalKeys(ev *tcell.EventKey) *tcell.EventKey {
	if ev.Key() != tcell.KeyCtrlC && ev.Key() != tcell.KeyCtrlQ && a.quitArmed {
		a.disarmQuit()
	}
	switch ev.Key() {
	case tcell.KeyCtrlC:
		a.interrupt()
		return nil
	case tcell.KeyCtrlQ:
		a.quitKeepingText()
		return nil
	}
	if a.holds(ev) {
		a.toPrompt(ev) // typed for the prompt, not an answer
		return nil
	}
	if a.modal != "" {
		if ev.Key() == tcell.KeyEscape {
			a.closeModal()
			return nil
		}
		return ev // the dialog has the keys
	}
	switch ev.Key() {
	case tcell.KeyCtrlT:
		a.cycleTier()
		return nil
	case tcell.KeyCtrlR:
		a.toggleRAG()
		return nil
	case tcell.KeyCtrlL:
		a.conv.clear()
		return nil
	case tcell.KeyCtrlS:
		a.showSessions()
		return nil
	case tcell.KeyPgUp:
		a.conv.page(-1)
		return nil
	case tcell.KeyPgDn:
		a.conv.page(1)
		return nil
	case tcell.KeyEscape:
		if a.job != nil || len(a.queue) > 0 {
			a.interrupt() // as Ctrl+C: the queue, then the reply
			if !a.input.HasFocus() {
				a.focusInput()
			}
			return nil
		}
		if !a.input.HasFocus() {
			a.focusInput()
			return nil
		}
		if a.hint != "" {
			a.setHint("")
			return nil
		}
	case tcell.KeyTab:
		if !a.input.HasFocus() {
			a.cycleFocus()
			return nil
		}
	case tcell.KeyBacktab:
		if a.input.HasFocus() {
			a.togglePlan()
		} else {
			a.cycleFocus()
		}
		return nil
	}
	return ev
}

// interrupt is Ctrl+C (and Esc while the agent works): it cancels the
// queued prompts first, then what runs; with nothing running it closes a
// dialog, else clears the prompt (Up brings the text back); on an empty
// prompt a second press within quitWindow quits.
func (a *App) interrupt() {
	switch {
	case a.cancelQueue():
		if a.job != nil {
			a.setHint(a.hint + " · Esc or Ctrl+C again stops " + a.job.kind)
		}
	case a.job != nil:
		a.job.cancel()
		a.setHint("cancelling…")
	case a.modal != "":
		a.closeModal()
	case a.input.GetText() != "":
		a.remember(a.input.GetText())
		a.input.SetText("", false)
		a.setHint("prompt cleared; Up brings it back")
	case a.quitArmed && a.now().Sub(a.quitAt) <= quitWindow:
		a.quit()
	default:
		a.armQuit("Press Ctrl+C again to quit (or Ctrl+Q)")
	}
}

// quitKeepingText is Ctrl+Q (and /quit): it quits, unless that would drop
// text typed into the prompt or queued, which a first press only warns
// about.
func (a *App) quitKeepingText() {
	pending := strings.TrimSpace(a.input.GetText()) != "" || len(a.queue) > 0
	if !pending || a.quitArmed && a.now().Sub(a.quitAt) <= quitWindow {
		a.quit()
		return
	}
	what := "the prompt holds unsent text"
	switch n := len(a.queue); {
	case n == 1:
		what = "a queued prompt is not sent yet"
	case n > 1:
		what = fmt.Sprintf("%d queued prompts are not sent yet", n)
	}
	a.armQuit(what + "; Ctrl+Q again quits without sending")
}

// armQuit makes the next Ctrl+C or Ctrl+Q within quitWindow quit, and says
// so until then.
func (a *App) armQuit(hint string) {
	a.quitArmed, a.quitAt = true, a.now()
	a.setHint(hint)
	at := a.quitAt
	time.AfterFunc(quitWindow, func() {
		a.pump.post(func() {
			if a.quitArmed && a.quitAt == at {
				a.disarmQuit()
			}
		})
	})
}

func (a *App) disarmQuit() {
	a.quitArmed = false
	a.setHint("")
}

// inputKeys handles the prompt's keys: Enter sends, Alt+Enter (or
// Shift+Enter where the terminal tells it apart, or Ctrl+J) starts a new
// line, Up and Down walk the history at the first and last row, and Tab
// completes a slash command or an @path mention.
func (a *App) inputKeys(ev *tcell.EventKey) *tcell.EventKey {
	switch ev.Key() {
	case tcell.KeyEnter:
		if ev.Modifiers()&(tcell.ModAlt|tcell.ModShift|tcell.ModCtrl) != 0 {
			return tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone)
		}
		a.submit()
		return nil
	case tcell.KeyCtrlJ:
		return tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone)
	case tcell.KeyUp:
		if row, _, _, _ := a.input.GetCursor(); row == 0 {
			a.historyStep(-1)
			return nil
		}
	case tcell.KeyDown:
		if row, _, _, _ := a.input.GetCursor(); row >= strings.Count(a.input.GetText(), "\n") {
			a.historyStep(1)
			return nil
		}
	case tcell.KeyTab:
		text := a.input.GetText()
		if mn, ok := mentionToken(text); ok {
			a.completeMention(mn)
		} else if strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \n") {
			a.complete(text)
		} else {
			a.cycleFocus()
		}
		return nil
	case tcell.KeyRune:
		if ev.Rune() == '?' && a.input.GetText() == "" {
			a.showHelp()
			return nil
		}
	}
	return ev
}

// inputChanged grows the prompt with its text and hints at slash commands.
func (a *App) inputChanged() {
	text := a.input.GetText()
	lines := strings.Count(text, "\n") + 1
	a.layout.ResizeItem(a.input, min(maxInputRows, lines), 0)
	a.keepCursorInView(lines)
	defer a.measurePrompt(text)
	if mn, ok := mentionToken(text); ok {
		a.mentionHint(mn)
	} else if strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \n") {
		var names []string
		for _, c := range commandList() {
			if strings.HasPrefix("/"+c.name, text) {
				names = append(names, "/"+c.name+argHint(c.args))
			}
		}
		switch {
		case len(names) == 0:
			a.setHint("no command " + text + "; /help lists them")
		default:
			a.setHint(strings.Join(names, "   ") + "   (Tab completes)")
		}
	} else if c, ok := typedCommand(text); ok && c.args != "" {
		a.setHint("/" + c.name + " " + c.args + " — " + c.help)
	} else if a.hint != "" && !a.quitArmed && a.job == nil {
		a.setHint("")
	}
}

// typedCommand finds the command whose name and a space start text.
func typedCommand(text string) (command, bool) {
	name, _, ok := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	if !ok || !strings.HasPrefix(text, "/") {
		return command{}, false
	}
	for _, c := range commandList() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func argHint(args string) string {
	if args == "" {
		return ""
	}
	return " " + args
}

// complete extends a partly typed command to the longest common prefix of
// the commands it matches.
func (a *App) complete(text string) {
	var match []string
	for _, c := range commandList() {
		if strings.HasPrefix("/"+c.name, text) {
			match = append(match, "/"+c.name)
		}
	}
	if len(match) == 0 {
		return
	}
	common := match[0]
	for _, m := range match[1:] {
		for !strings.HasPrefix(m, common) {
			common = common[:len(common)-1]
		}
	}
	if len(match) == 1 {
		common += " "
	}
	a.input.SetText(common, true)
}

// historyStep recalls an earlier (-1) or later (1) prompt.
func (a *App) historyStep(dir int) {
	if len(a.history) == 0 {
		return
	}
	pos := a.histPos
	if pos < 0 {
		if dir > 0 {
			return
		}
		a.draft = a.input.GetText()
		pos = len(a.history)
	}
	pos += dir
	switch {
	case pos < 0:
		pos = 0
	case pos >= len(a.history):
		a.histPos = -1
		a.input.SetText(a.draft, true)
		return
	}
	a.histPos = pos
	a.input.SetText(a.history[pos], true)
}

func (a *App) remember(prompt string) {
	if n := len(a.history); n == 0 || a.history[n-1] != prompt {
		a.history = append(a.history, prompt)
	}
	a.histPos, a.draft = -1, ""
}

// cycleFocus moves the focus prompt → conversation → tool list → prompt.
func (a *App) cycleFocus() {
	switch {
	case a.input.HasFocus():
		a.app.SetFocus(a.conv)
		a.conv.selectLast()
		a.setHint("↑/↓ select a tool call or thought · Enter opens it · Tab tool list · Esc back")
	case a.conv.HasFocus():
		a.showToolList()
	default:
		a.focusInput()
	}
}

func (a *App) focusInput() {
	a.hideToolList()
	a.setHint("")
	a.app.SetFocus(a.input)
}

// showToolList opens the side panel with the tools of every tier.
func (a *App) showToolList() {
	a.side.SetText(a.toolListText())
	if a.body.GetItemCount() == 1 {
		a.body.AddItem(a.side, 34, 0, false)
	}
	a.app.SetFocus(a.side)
	a.setHint("the tools of each tier; Ctrl+T changes the tier · Tab or Esc back")
}

func (a *App) hideToolList() {
	if a.body.GetItemCount() > 1 {
		a.body.RemoveItem(a.side)
	}
}

// toolListText lists the tools by tier, marking the ones the model has.
func (a *App) toolListText() string {
	if a.back == nil {
		return "Not connected: the tools come with the model.\n"
	}
	if len(a.tools) == 0 {
		return "The tool list is not available in this build.\n"
	}
	var b strings.Builder
	total := 0
	for tier := 0; tier <= 3; tier++ {
		header := false
		for _, t := range a.tools {
			if t.Tier != tier {
				continue
			}
			if !header {
				state := "locked"
				if tier <= a.tier {
					state = "on"
				}
				fmt.Fprintf(&b, "tier %d (%s)\n", tier, state)
				header = true
			}
			mark := "  "
			if t.Active {
				mark = "✓ "
				total += t.Tokens
			}
			fmt.Fprintf(&b, " %s%-20s %5d\n", mark, t.Name, t.Tokens)
		}
	}
	fmt.Fprintf(&b, "\nschemas sent: %d tokens\n", total)
	return b.String()
}
