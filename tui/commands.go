package tui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
)

// command is one slash command.
type command struct {
	name, args, help string
	run              func(a *App, arg string)
}

// commandList is the slash commands, in the order /help shows them.
func commandList() []command {
	return []command{
		{"help", "", "keys and commands", func(a *App, _ string) { a.showHelp() }},
		{"model", "[NAME]", "list the models, or switch to NAME (the server loads it on the next request)", (*App).cmdModel},
		{"escalate", "[PROMPT]", "run the next turn (or PROMPT now) on escalate_model, the larger model; a stuck turn moves to it by itself", (*App).cmdEscalate},
		{"tier", "N", "set the tool tier: 0 read, 1 edit, 2 commands, 3 external", (*App).cmdTier},
		{"tools", "", "the tools of each tier and what their schemas cost", func(a *App, _ string) { a.cmdTools() }},
		{"plan", "", "plan mode on or off (Shift+Tab): the model only reads and proposes a plan; with a plan waiting, answer it", (*App).cmdPlan},
		{"compact", "", "shrink the conversation to free the window", func(a *App, _ string) { a.cmdCompact() }},
		{"diff", "", "what this session changed: the diff from before its first write to the files now", func(a *App, _ string) { a.cmdDiff() }},
		{"undo", "", "take back the last turn: the files it changed, and the turn from the conversation (its prompt comes back); `tern undo` restores a whole session", func(a *App, _ string) { a.cmdUndo() }},
		{"sessions", "", "past sessions; Enter resumes one", func(a *App, _ string) { a.showSessions() }},
		{"resume", "ID", "continue session ID (a unique prefix or suffix is enough)", (*App).cmdResume},
		{"new", "", "start a new session", func(a *App, _ string) { a.cmdNew() }},
		{"clear", "", "clear the screen (the session keeps everything)", func(a *App, _ string) { a.conv.clear() }},
		{"index", "", "build or update the repository index, with progress", func(a *App, _ string) { a.cmdIndex() }},
		{"search", "QUERY", "search the repository; Enter puts a reference into the prompt", (*App).cmdSearch},
		{"doctor", "", "check Ollama, the model, the context plan and the workspace", func(a *App, _ string) { a.cmdDoctor() }},
		{"init", "", "have the model write AGENTS.md for this repository (you review it first)", func(a *App, _ string) { a.cmdInit() }},
		{"quit", "", "leave tern", func(a *App, _ string) { a.quitKeepingText() }},
	}
}

// submit sends the prompt or runs the slash command in the input.
func (a *App) submit() {
	text := a.input.GetText()
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return
	}
	a.setHint("")
	if strings.HasPrefix(trimmed, "/") && !strings.HasPrefix(trimmed, "//") {
		name, arg, _ := strings.Cut(trimmed[1:], " ")
		arg = strings.TrimSpace(arg)
		i := slices.IndexFunc(commandList(), func(c command) bool { return c.name == name })
		if i < 0 {
			a.fail(fmt.Sprintf("unknown command /%s; /help lists the commands", name))
			return
		}
		a.remember(trimmed)
		a.input.SetText("", false)
		commandList()[i].run(a, arg)
		return
	}
	if strings.HasPrefix(trimmed, "//") {
		trimmed = trimmed[1:] // "//path" sends a prompt that starts with "/"
	}
	if a.job != nil && a.back != nil {
		a.remember(trimmed)
		a.input.SetText("", false)
		a.enqueue(trimmed)
		return
	}
	if !a.ready("send a prompt") {
		return
	}
	a.remember(trimmed)
	a.input.SetText("", false)
	a.send(trimmed)
}

// send starts the turn of a prompt the user sent.
func (a *App) send(prompt string) {
	if a.planMode && a.plan != "" {
		a.sendPlanBack(prompt) // words typed under a waiting plan comment on it
		return
	}
	a.beginTurn(prompt, true)
	a.startTurn(prompt)
}

// ready says whether the agent can take a job now, and tells the user why
// not.
func (a *App) ready(what string) bool {
	switch {
	case a.back == nil && a.conn == offlineState:
		a.warn("cannot " + what + ": the model is offline (see above); trying again now, and every " + a.cfg.RetryEvery.String())
		select {
		case a.retryNow <- struct{}{}:
		default:
		}
		return false
	case a.back == nil:
		a.warn("cannot " + what + " yet: still connecting to the model")
		return false
	case a.job != nil:
		a.warn("cannot " + what + " while " + a.job.kind + "; wait, or press Ctrl+C to cancel")
		return false
	}
	return true
}

func (a *App) cmdTier(arg string) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 0 || n > 3 {
		a.fail("usage: /tier N, where N is 0 (read), 1 (edit), 2 (commands) or 3 (external)")
		return
	}
	a.setTier(n)
}

// cycleTier is Ctrl+T: 0 → 1 → 2 → 3 → 0. A tier the session may not
// reach (--max-tier) cycles back to 0.
func (a *App) cycleTier() {
	next := (a.tier + 1) % 4
	if !a.setTier(next) && next != 0 && a.back != nil && a.back.Tiers != nil && a.job == nil {
		a.setTier(0)
	}
}

// setTier changes the tier and tells the user; it reports whether it did.
func (a *App) setTier(n int) bool {
	if !a.ready("change the tier") {
		return false
	}
	tc := a.back.Tiers
	if tc == nil {
		a.warn("tiers are not available in this build; the model has the read-only tools")
		return false
	}
	old := a.tier
	ctx, cancel := a.jobContext()
	defer cancel()
	notice, err := tc.SetTier(ctx, n)
	if err != nil {
		a.fail(fmt.Sprintf("tier %d: %v", n, err))
		return false
	}
	a.refreshTier()
	if notice == "" {
		notice = fmt.Sprintf("tier %d: %s", a.tier, a.tierToolNames())
	}
	if a.tier < old {
		notice += "; lowering the tier starts a fresh prompt prefix, so the next reply re-reads the whole prompt"
	}
	a.note(notice)
	return true
}

// refreshTier reads the tier and tools after a change or a turn (the model
// may unlock a tier by itself).
func (a *App) refreshTier() {
	if a.back == nil || a.back.Tiers == nil {
		return
	}
	a.tier = a.back.Tiers.Tier()
	a.tools = a.back.Tiers.Tools()
}

func (a *App) cmdTools() {
	if a.back == nil {
		a.warn("the tools come with the model; not connected yet")
		return
	}
	a.say(textLines(a.toolListText(), a.th.text)...)
}

// toggleRAG is Ctrl+R.
func (a *App) toggleRAG() {
	if a.back == nil || a.back.RAG == nil {
		a.warn("RAG is not available in this build: the repository index has not landed yet")
		return
	}
	if a.job != nil {
		a.warn("RAG changes between turns; wait, or press Ctrl+C to cancel")
		return
	}
	notice, err := a.back.RAG.SetRAG(!a.rag)
	if err != nil {
		a.fail("RAG: " + err.Error())
		return
	}
	a.rag = a.back.RAG.RAG()
	if notice == "" {
		notice = "RAG off: prompts carry no retrieved code"
		if a.rag {
			notice = "RAG on: each prompt carries the repository code that matches it"
		}
	}
	a.note(notice)
}

func (a *App) cmdModel(arg string) {
	if arg == "" {
		if a.back == nil {
			a.warn("the models are listed once the server answers")
			return
		}
		title := "Models the server offers (switch with /model NAME):"
		if a.back.Ollama {
			title = "Installed models (switch with /model NAME):"
		}
		lines := []line{styledLine(title, a.th.bold)}
		for _, m := range a.back.Installed {
			mark := "  "
			if m.Name == a.back.Model {
				mark = "▸ "
			}
			caps := make([]string, len(m.Capabilities))
			for i, c := range m.Capabilities {
				caps[i] = string(c)
			}
			lines = append(lines, styledLine(fmt.Sprintf("%s%-28s %6s  %s", mark, m.Name, m.ParameterSize, strings.Join(caps, " ")), a.th.text))
		}
		a.say(lines...)
		return
	}
	if !a.ready("switch models") {
		return
	}
	cur := a.back.Model
	name, problem := checkModel(arg, cur, a.back.Installed, a.back.Ollama)
	if problem != "" {
		a.warn(problem + "; staying on " + cur)
		return
	}
	a.note(fmt.Sprintf("switching to %s: the conversation continues, but the server loads the model on the next request (seconds) and its prompt cache starts empty", name))
	a.switchBackend(ConnectRequest{Model: name, Resume: a.back.SessionID}, func(err error) {
		a.fail(fmt.Sprintf("could not switch to %s: %v", name, err))
		a.warn("staying on " + cur)
	})
}

// checkModel finds the model /model NAME asks for among the installed ones
// (none listed: the server is asked as it is), or says why it is not one to
// switch to, naming what is installed.
func checkModel(name, current string, installed []models.ModelInfo, ollama bool) (string, string) {
	if len(installed) == 0 {
		return name, ""
	}
	m, ok := models.Installed(name, installed)
	switch {
	case ok && m.Name == current:
		return "", "already on " + current
	case ok && !models.CanChat(m):
		return "", fmt.Sprintf("%s cannot chat (it is an embedding model)", m.Name)
	case ok:
		return m.Name, ""
	}
	base, _, _ := strings.Cut(name, ":")
	var near, all []string
	for _, m := range installed {
		if !models.CanChat(m) {
			continue
		}
		all = append(all, m.Name)
		if b, _, _ := strings.Cut(m.Name, ":"); b == base {
			near = append(near, m.Name)
		}
	}
	msg := fmt.Sprintf("no model %s is installed", name)
	if len(near) > 0 {
		msg += " (did you mean " + strings.Join(near, " or ") + "?)"
	} else if len(all) > 0 {
		msg += "; installed: " + strings.Join(all, ", ")
	}
	if ollama {
		msg += "; `ollama pull " + name + "` fetches it"
	}
	return "", msg
}

func (a *App) cmdResume(arg string) {
	if arg == "" {
		a.showSessions()
		return
	}
	a.resume(arg)
}

func (a *App) resume(id string) {
	if a.back == nil {
		req := a.req
		req.Resume = id
		a.startConnect(req)
		a.note("session " + id + " opens once the model is reachable")
		return
	}
	if !a.ready("resume a session") {
		return
	}
	a.switchBackend(ConnectRequest{Model: a.back.Model, Resume: id}, func(err error) {
		if errors.Is(err, session.ErrNotFound) {
			// Said here, where /sessions lists them (tern sessions is the
			// shell's way).
			a.fail(fmt.Sprintf("no session %q in this workspace; /sessions lists them", id))
			return
		}
		a.fail(err.Error())
	})
}

func (a *App) cmdNew() {
	if a.back == nil {
		req := a.req
		req.Resume = ""
		a.startConnect(req)
		a.note("a new session starts once the model is reachable")
		return
	}
	if !a.ready("start a new session") {
		return
	}
	a.switchBackend(ConnectRequest{Model: a.back.Model}, nil)
}
