package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Question is one multiple-choice question the model asks (ask_user).
type Question struct {
	Text    string
	Options []string
}

// Asker puts the model's questions to the user; the App is one. cmd/tern
// adapts it to the ask_user tool.
type Asker interface {
	Ask(ctx context.Context, qs []Question) ([]string, error)
}

// ErrNotAnswered is returned by Ask when the user closed the questions.
var ErrNotAnswered = errors.New("the user did not answer")

var _ Asker = (*App)(nil)

// Ask shows the questions one after another in a dialog and returns the
// answers: the option chosen, or what the user typed under "Other". It is
// called from the agent's goroutine and waits for the user, or for the
// turn to be cancelled.
func (a *App) Ask(ctx context.Context, qs []Question) ([]string, error) {
	a.askMu.Lock()
	defer a.askMu.Unlock()
	answer := make(chan []string, 1)
	a.pump.post(func() { a.askDialog(qs, 0, nil, answer) })
	select {
	case ans := <-answer:
		if ans == nil {
			return nil, ErrNotAnswered
		}
		return ans, nil
	case <-ctx.Done():
		a.pump.post(func() {
			if a.modal == "ask" {
				a.closeModal()
			}
		})
		return nil, ctx.Err()
	}
}

// askDialog shows question i; got holds the answers so far. Enter or a
// digit chooses an option; "Other" takes typed words; Esc closes all
// questions unanswered.
func (a *App) askDialog(qs []Question, i int, got []string, answer chan []string) {
	th := a.th
	q := qs[i]
	decide := func(ans []string) {
		select {
		case answer <- ans:
		default:
		}
	}
	choose := func(text string) {
		got := append(got, text)
		a.modalClose = nil
		a.closeModal()
		a.note(fmt.Sprintf("%s → %s", oneLine(q.Text, 60), text))
		if i+1 < len(qs) {
			a.askDialog(qs, i+1, got, answer)
			return
		}
		decide(got)
	}
	question := newKeyBar(th, func() []span { return []span{{text: cleanText(q.Text), style: th.bold}} })
	list := tview.NewList().ShowSecondaryText(false).SetHighlightFullLine(true)
	list.SetMainTextStyle(th.text).SetSelectedStyle(th.selected.Bold(true))
	th.plain(list.Box)
	for k, o := range q.Options {
		list.AddItem(o, "", rune('1'+k), func() { choose(o) })
	}
	body := newColumn()
	body.AddItem(question, 1, 0, false).AddItem(nil, 1, 0, false).AddItem(list, 0, 1, true)
	n := len(q.Options) + 1
	keys := newKeyBar(th, a.guardLead, hint{fmt.Sprintf("1-%d", n), "choose"}, hint{"↑/↓ Enter", "choose"}, hint{"Esc", "skip the questions"})
	title := "The model asks"
	if len(qs) > 1 {
		title += fmt.Sprintf(" (%d of %d)", i+1, len(qs))
	}
	box := a.newDialogBox(title, body, keys)
	other := a.newEntry("Your answer:", hint{"Enter", "send"}, hint{"Esc", "skip the questions"})
	list.AddItem("Other: type an answer", "", rune('1'+len(q.Options)), func() { box.swap(a, other) })
	other.field.SetDoneFunc(func(key tcell.Key) {
		if t := strings.TrimSpace(other.field.GetText()); key == tcell.KeyEnter && t != "" {
			choose(t)
		}
	})
	a.openModal("ask", box, list, 8, 5, true, func() {
		a.note("questions closed without an answer; the model decides")
		decide(nil)
	})
}
