package tui

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
)

// Approve asks the user about a call that writes or runs something. The
// agent calls it from its own goroutine; it posts the dialog through the
// pump and waits for the answer, or for the turn to be cancelled.
func (a *App) Approve(ctx context.Context, ap agent.Approval) (agent.Decision, error) {
	if a.cfg.Yes && !ap.Destructive {
		a.pump.post(func() { a.note("allowed " + ap.Tool + " (--yes)") })
		return agent.Decision{Allow: true}, nil
	}
	answer := make(chan agent.Decision, 1)
	a.pump.post(func() { a.approvalDialog(ap, answer) })
	select {
	case d := <-answer:
		return d, nil
	case <-ctx.Done():
		a.pump.post(func() {
			if a.modal == "approve" && a.approval == answer {
				a.closeModal()
			}
		})
		return agent.Decision{}, ctx.Err()
	}
}

// approvalDialog shows what a call would do and takes y, p (a command's
// start, when the review offers one), a or n. Its keys
// wrap onto more rows at a narrow width, so none is ever cut off.
func (a *App) approvalDialog(ap agent.Approval, answer chan agent.Decision) {
	th := a.th
	decide := func(d agent.Decision) {
		select {
		case answer <- d:
		default:
		}
	}
	preview := newConvo(th, 2000)
	preview.follow = false
	preview.add(&block{kind: kindInfo, short: a.approvalLines(ap)})

	hints := []hint{{"y", "allow once"}}
	if ap.Prefix != "" && !ap.Once {
		hints = append(hints, hint{"p", "allow commands starting with `" + ap.Prefix + "` this session"})
	}
	if offersAlways(ap) {
		hints = append(hints, hint{"a", "always allow " + ap.Tool + " this session"})
	}
	hints = append(hints, hint{"n", "deny"}, hint{"PgUp/PgDn", "scroll"})
	question := newKeyBar(th, a.guardLead, hints...)
	title := "Allow " + ap.Tool + "?"
	if ap.Destructive {
		title += " DESTRUCTIVE"
	}
	box := a.newDialogBox(title, preview, question)

	reason := a.newEntry("Reason for the model (may be empty):", hint{"Enter", "deny"}, hint{"Esc", "deny without a reason"})
	reason.field.SetDoneFunc(func(key tcell.Key) {
		text := strings.TrimSpace(reason.field.GetText())
		a.modalClose = nil
		a.closeModal()
		decide(agent.Decision{Allow: false, Reason: text})
		if text != "" {
			a.note("denied " + ap.Tool + ": " + text)
		} else {
			a.note("denied " + ap.Tool)
		}
	})
	question.SetInputCapture(pageOrRune(preview, func(r rune) {
		switch r {
		case 'y', 'Y':
			a.modalClose = nil
			a.closeModal()
			decide(agent.Decision{Allow: true})
		case 'a', 'A':
			if !offersAlways(ap) {
				return
			}
			a.modalClose = nil
			a.closeModal()
			decide(agent.Decision{Allow: true, Always: true})
			a.note("allowed " + ap.Tool + " for the rest of this session")
		case 'p', 'P':
			if ap.Prefix == "" || ap.Once {
				return
			}
			a.modalClose = nil
			a.closeModal()
			decide(agent.Decision{Allow: true, Prefix: ap.Prefix})
			a.note("allowed commands starting with `" + ap.Prefix + "` for the rest of this session")
		case 'n', 'N':
			box.swap(a, reason)
		}
	}))
	a.openModal("approve", box, question, 9, 8, true, func() {
		// Closed without an answer (Esc): deny.
		decide(agent.Decision{Allow: false})
		a.note("denied " + ap.Tool)
	})
	a.approval = answer
}

// approvalLines shows what the call would do: the tool's own summary of it
// (the review's preview: a diff, a command line with its directory and
// timeout) when it gives one, else its arguments, each on its line.
func (a *App) approvalLines(ap agent.Approval) []line {
	th := a.th
	var out []line
	if ap.Destructive {
		why := "DESTRUCTIVE"
		if ap.Why != "" {
			why += ": " + ap.Why
		}
		out = append(out, line{spans: []span{{text: why + " — asks every time", style: th.errorText}}, hang: 2})
	}
	if effect := ap.Effect.Doing(); effect != "" {
		out = append(out, styledLine(ap.Tool+" "+effect+".", th.dim))
	}
	if ap.Preview != "" {
		out = append(out, line{})
		if looksLikeDiff(ap.Preview) {
			out = append(out, diffLines(th, ap.Preview)...)
		} else {
			out = append(out, textLines(ap.Preview, th.text)...)
		}
		return out
	}
	var args map[string]any
	_ = json.Unmarshal(ap.Args, &args)
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := args[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		if strings.Contains(s, "\n") {
			out = append(out, styledLine(k+":", th.bold))
			out = append(out, indent(textLines(s, th.code), 2)...)
			continue
		}
		out = append(out, line{spans: []span{{text: k + ": ", style: th.bold}, {text: s, style: th.text}}, hang: len(k) + 2})
	}
	return out
}

// offersAlways says whether "a" (allow for the session) is offered:
// destructive calls, and those the tool wants asked every time (commits),
// always ask.
func offersAlways(ap agent.Approval) bool { return !ap.Destructive && !ap.Once }

func looksLikeDiff(s string) bool {
	return strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "diff ") || strings.HasPrefix(s, "@@") || strings.Contains(s, "\n@@ ")
}
