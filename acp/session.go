package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
)

// Session is one tern session as the front end drives it; package main
// opens it with the runner, as tern ask and the TUI open theirs. Its
// methods are called one at a time, except SetTier and Tier, which may
// be called while a turn runs.
type Session interface {
	ID() string
	// Run runs one turn on prompt: in plan mode, one that ends with a
	// plan. Its error is worded for the user; a cancel comes back as
	// context.Canceled.
	Run(ctx context.Context, prompt string, emit func(agent.Event)) error
	// AcceptPlan carries out the proposed plan, with the tier raised to
	// edit at least; RevisePlan sends it back with the user's comment.
	AcceptPlan(ctx context.Context, note string, emit func(agent.Event)) error
	RevisePlan(ctx context.Context, comment string, emit func(agent.Event)) error
	ProposedPlan() string
	PlanMode() bool
	SetPlanMode(on bool)
	// Tier is the unlocked tool tier, MaxTier the highest it may reach.
	Tier() int
	MaxTier() int
	SetTier(ctx context.Context, n int) error
	// History is the conversation so far; Calls what the tools said of
	// each call, by call id, to replay it.
	History() []models.Message
	Calls(ctx context.Context) (map[string]session.ToolCallRecord, error)
	// Describe is what a call is about, for its title ("main.go:1-40").
	Describe(tool string, args json.RawMessage) string
	// Notices are what the user should know about how the session opened.
	Notices() []string
	// Commands are tern's slash commands that make sense in an editor.
	Commands() []Command
	Close() error
}

// OpenOptions say how Deps.Open opens a session.
type OpenOptions struct {
	// Dir is the workspace: the client's cwd, checked by Deps.Place.
	Dir string
	// Resume names a stored session; "" creates one.
	Resume string
	// Approver asks the user through the editor; Ask puts ask_user's
	// questions to them there.
	Approver agent.Approver
	Ask      func(ctx context.Context, qs []Question) ([]string, error)
	// Files, when set, is the editor's file system, for the file tools.
	Files FileSystem
	// Terminal, when set, runs run_command's commands in the editor.
	Terminal *Terminal
	// MCPServers are the MCP servers the editor passed, for the session
	// to start beside its config's.
	MCPServers []MCPServer
}

// Command is a slash command the editor offers in its prompt box.
type Command struct {
	Name, Description string
	// Hint, when set, says what the command takes after its name.
	Hint string
	// Run does the command, showing what it has to say as events.
	Run func(ctx context.Context, arg string, emit func(agent.Event)) error
}

// live is an open session on the connection.
type live struct {
	a   *agentSide
	s   Session
	id  string
	dir string
	// real is dir with its symbolic links resolved, as tern's tools name
	// the workspace's files.
	real string

	// turn is held while a turn or a mode change uses the session.
	turn sync.Mutex

	mu sync.Mutex
	// cancel stops the turn in flight; nil between turns.
	cancel context.CancelFunc
	// unused names the MCP servers the client passed over a transport
	// tern does not speak.
	unused []string
	// mode is the mode the client was last told of.
	mode string
	// terminals are the editor terminals of run_command calls, by call.
	terminals map[string]string
}

// update sends u to the client. It uses the connection's life, not the
// turn's context, so that the last updates of a cancelled turn still go.
func (l *live) update(u sdk.SessionUpdate) {
	err := l.a.conn.SessionUpdate(l.a.life, sdk.SessionNotification{SessionId: sdk.SessionId(l.id), Update: u})
	if err != nil && l.a.life.Err() == nil {
		l.a.deps.Log.Warn("session update", "session", l.id, "err", err)
	}
}

func (l *live) cancelTurn() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		l.cancel()
	}
}

// prompt runs one turn on the user's blocks and says why it stopped.
func (l *live) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	text, dropped := l.promptText(blocks)
	if strings.TrimSpace(text) == "" {
		msg := "tern takes text and files; this prompt had neither"
		if dropped != "" {
			msg = fmt.Sprintf("tern takes text and files; this prompt had only %s, which the model cannot read", dropped)
		}
		l.update(sdk.UpdateAgentMessageText(msg + ". Nothing was sent to the model.\n"))
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	}
	l.turn.Lock()
	defer l.turn.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopOnExit := context.AfterFunc(l.a.life, cancel)
	defer stopOnExit()
	l.mu.Lock()
	l.cancel = cancel
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.cancel = nil
		l.mu.Unlock()
	}()
	if dropped != "" {
		l.notice(agent.Notice{Level: agent.Warn, Text: "left out of the prompt: " + dropped + " (tern takes text and files)"})
	}

	t := newTurnView(l)
	var err error
	if name, arg, ok := slashCommand(text); ok {
		if name == acceptCommand.Name {
			return l.finish(ctx, t, l.acceptPlan(ctx, t, arg))
		}
		if cmd, found := l.command(name); found {
			err = cmd.Run(ctx, arg, t.emit)
			return l.finish(ctx, t, err)
		}
		if commandName.MatchString(name) {
			l.update(sdk.UpdateAgentMessageText(fmt.Sprintf("There is no command /%s; the commands are %s. (To send a prompt that starts with a slash, start it with two.)\n",
				name, l.commandNames())))
			return l.finish(ctx, t, nil)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(text), "//") {
		text = strings.Replace(text, "/", "", 1) // "//path" is a prompt that starts with "/"
	}
	switch {
	case l.s.PlanMode() && l.s.ProposedPlan() != "":
		err = l.s.RevisePlan(ctx, text, t.emit)
	default:
		err = l.s.Run(ctx, text, t.emit)
	}
	if err == nil && t.plan != "" && ctx.Err() == nil {
		err = l.offerPlan(ctx, t)
	}
	return l.finish(ctx, t, err)
}

// finish reports a mode the turn changed and says why it stopped.
func (l *live) finish(ctx context.Context, t *turnView, err error) (sdk.PromptResponse, error) {
	t.close()
	l.reportMode()
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.PromptResponse{StopReason: t.stopReason()}, nil
}

// promptText joins the prompt's text, with the files the editor attached
// as @-mentions the agent reads (workspace-relative where they can be),
// and names what tern cannot take.
func (l *live) promptText(blocks []sdk.ContentBlock) (text, dropped string) {
	var b strings.Builder
	var left []string
	sep := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte(' ')
		}
	}
	for _, blk := range blocks {
		switch {
		case blk.Text != nil:
			b.WriteString(blk.Text.Text)
		case blk.ResourceLink != nil:
			sep()
			b.WriteString("@" + l.mention(blk.ResourceLink.Uri))
		case blk.Resource != nil && blk.Resource.Resource.TextResourceContents != nil:
			sep()
			b.WriteString("@" + l.mention(blk.Resource.Resource.TextResourceContents.Uri))
		case blk.Image != nil:
			left = append(left, "an image")
		case blk.Audio != nil:
			left = append(left, "audio")
		default:
			left = append(left, "a binary resource")
		}
	}
	return b.String(), strings.Join(left, ", ")
}

// mention turns a file URI into what an @-mention names: its path, with
// the lines a #L10:20 fragment names (a selection; also #L10-20,
// #L10-L20 and #L10) as the mention's :10-20.
func (l *live) mention(uri string) string {
	p, lines := uri, ""
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		p = u.Path
		if m := fragmentLines.FindStringSubmatch(u.Fragment); m != nil {
			lines = ":" + m[1]
			if m[2] != "" && m[2] != m[1] {
				lines += "-" + m[2]
			}
		}
	}
	if rel, err := filepath.Rel(l.dir, p); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(p) {
		p = filepath.ToSlash(rel)
	}
	if strings.ContainsAny(p, " \t") {
		p = `"` + p + `"`
	}
	return p + lines
}

// fragmentLines reads the lines a file URI's fragment names.
var fragmentLines = regexp.MustCompile(`^L(\d+)(?:[:-]L?(\d+))?$`)

// slashCommand splits "/name arg" into its parts.
func slashCommand(text string) (name, arg string, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") || strings.HasPrefix(t, "//") {
		return "", "", false
	}
	name, arg, _ = strings.Cut(t[1:], " ")
	return name, strings.TrimSpace(arg), name != ""
}

// commandName is what a slash command's name looks like; "/usr/bin is
// slow" is a prompt.
var commandName = regexp.MustCompile(`^[a-z][a-z-]*$`)

// commandNames lists the slash commands: "/accept, /compact, …".
func (l *live) commandNames() string {
	var names []string
	for _, c := range append([]Command{acceptCommand}, l.s.Commands()...) {
		names = append(names, "/"+c.Name)
	}
	return strings.Join(names, ", ")
}

func (l *live) command(name string) (Command, bool) {
	for _, c := range l.s.Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// acceptCommand accepts the plan waiting for an answer, as the TUI's
// /plan does; the rest of the line adds to it.
var acceptCommand = Command{Name: "accept", Hint: "anything to add to the plan",
	Description: "carry out the plan waiting for your answer (plan mode)"}

// acceptPlan carries out the session's proposed plan, sent as a plan
// update first.
func (l *live) acceptPlan(ctx context.Context, t *turnView, note string) error {
	plan := l.s.ProposedPlan()
	if plan == "" {
		l.update(sdk.UpdateAgentMessageText("There is no plan waiting: switch to plan mode and ask for one.\n"))
		return nil
	}
	l.update(sdk.UpdatePlan(planEntries(plan)...))
	return l.s.AcceptPlan(ctx, note, t.emit)
}

// greet tells the user what they should know about how the session
// opened (the model chosen, a window lowered, a text tool protocol), and
// the client the slash commands it may offer.
func (l *live) greet() {
	for _, n := range l.s.Notices() {
		l.notice(agent.Notice{Level: agent.Info, Text: n})
	}
	if len(l.unused) > 0 {
		which := "server " + l.unused[0] + " is"
		if len(l.unused) > 1 {
			which = "servers " + strings.Join(l.unused, ", ") + " are"
		}
		l.notice(agent.Notice{Level: agent.Info, Text: fmt.Sprintf("the editor's MCP %s not started: tern reaches MCP servers over stdio and HTTP only", which)})
	}
	l.sendCommands()
}

// sendCommands tells the client the slash commands it may offer.
func (l *live) sendCommands() {
	var list []sdk.AvailableCommand
	for _, c := range append([]Command{acceptCommand}, l.s.Commands()...) {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		list = append(list, ac)
	}
	if len(list) == 0 {
		return
	}
	l.update(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: list}})
}

// notice shows something the user should know that is not the model's
// words: warnings in the answer, the rest as a thought.
func (l *live) notice(n agent.Notice) {
	text := "tern: " + n.Text + "\n"
	if n.Level == agent.Warn {
		l.update(sdk.UpdateAgentMessageText("\n> " + text))
		return
	}
	l.update(sdk.UpdateAgentThoughtText(text))
}
