// Package runner opens tern's agent sessions: it is the one constructor
// tern ask, eval and the TUI share, as cli/cli's factory is for gh's
// commands. Open connects the model server, creates or resumes the
// session in the store and wires its agent: the tool set and its tiers
// (saved in the session), the checkpoint, the MCP servers and their trust
// gate, the explore subagents, the calibration and the remembered tool
// mode. Package main gives it what only the command line knows (the
// workspace, the config with the flags over it, --tier, the approver).
//
// It must not import tui nor the commands' views: the TUI reaches a Run
// through package main's adapters.
package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/rag"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/lsp"
	"github.com/ternhq/tern/tools/mcp"
	"github.com/ternhq/tern/tools/sandbox"
)

// Run is one agent session, wired: the workspace, the store, the model
// and the agent that drives them.
type Run struct {
	root    string
	cfg     config.Config
	back    *backend.Conn
	store   *session.Store
	sess    session.Session
	resumed bool
	// tierFlag is set when --tier was given: it then moves a resumed
	// session to that tier.
	tierFlag bool
	ws       *tools.Workspace
	// checkpoint keeps the files before the session's first change, and
	// before each marked turn's.
	checkpoint *tools.Checkpoint
	counter    *budget.Counter
	agent      *agent.Agent
	tools      *disclosure.Set
	notices    []string
	// sandbox confines the commands run_command runs.
	sandbox *sandbox.Sandbox
	// mcp runs the configured MCP servers and the editor's (tier 3); nil
	// when there are none.
	mcp *mcp.Manager
	// editorMCP are the MCP servers the editor passed (tern acp).
	editorMCP []mcp.ServerConfig
	// lsp runs the language servers, found on path; nil when none can
	// run.
	lsp  *lsp.Manager
	path string
	// code is the workspace's search index, for search_code and RAG;
	// rag turns RAG on at the start.
	code *codeindex.Index
	rag  bool
	// plan starts the agent in plan mode.
	plan bool
	// reaper runs each command as a subreaper ("" runs them in a process
	// group only).
	reaper string
	// explorer runs explore's subagents; asker puts ask_user's questions
	// (nil headless: no one to ask).
	explorer *agent.Explorer
	asker    tools.Asker
	// terminal, when set, runs run_command's commands (tern acp).
	terminal tools.Terminal
	// vram plans the windows of models on other servers (escalate_host);
	// escalationErr is why escalate_model could not be used.
	vram          func(context.Context, config.Config) int64
	escalationErr error
}

// Env is what the sessions one tern process opens share: the workspace
// root, its config, the token counter, and in the TUI the session store
// and code index.
type Env struct {
	Root    string
	Config  config.Config
	Counter func() (*budget.Counter, error)
	// Store, when nil, is opened once the model server answers, and is
	// the run's own (closed with it).
	Store *session.Store
	// Code, when nil, is opened for the server the run resolved to, and
	// is the run's own (closed with it).
	Code *codeindex.Index
	// VRAM is the GPU memory the run plans the window for (backend.Connect).
	VRAM func(context.Context, config.Config) int64
	// Path is the PATH of tern's environment, where the language servers
	// are found.
	Path string
	// Reaper is the path of tern's binary, which runs each command as a
	// child subreaper (tools.CommandPolicy); "" runs commands in a process
	// group only.
	Reaper string
}

// Options say how one session opens.
type Options struct {
	// Resume names the session to continue; "" creates one, unless
	// Continue asks for the workspace's latest session (a new one when
	// there is none yet, with a notice).
	Resume   string
	Continue bool
	// Model, when set, is used instead of the configured model.
	Model    string
	Approver agent.Approver
	// Asker puts ask_user's questions; nil headless (no one to ask).
	Asker tools.Asker
	// TierFlag is set when --tier was given: it then moves a resumed
	// session to that tier.
	TierFlag bool
	// RAG turns RAG on at the start; Plan starts in plan mode.
	RAG, Plan bool
	// Editor, when set, is the user's editor as the file tools' hands,
	// and Terminal where run_command runs (tern acp); nil ones leave
	// them on the disk and in tern's own processes.
	Editor   tools.Editor
	Terminal tools.Terminal
	// MCPServers are the MCP servers the editor passed (tern acp), run
	// beside the config's; a config server of the same name wins. They
	// are the user's settings, so they start without the question a
	// repository's servers need.
	MCPServers []mcp.ServerConfig
	// Grants, when set, gives the session's tools allowed for the rest
	// of it, which outlive the run: the TUI keeps them across its
	// reconnects. Unset, each run starts with none.
	Grants func(sessionID string) *agent.Grants
	// Escalate runs the first turn on escalate_model (tern ask
	// --escalate); Open fails when there is none to run it on.
	// EscalateModel, when set, is used instead of the configured one
	// (tern eval --escalate-model).
	Escalate      bool
	EscalateModel string
}

// Open opens a session in the workspace: it reaches the model server,
// creates or resumes the session and builds its agent. tern ask, eval and
// the TUI (each time it connects) open sessions through it.
func Open(ctx context.Context, w Env, o Options) (*Run, error) {
	cfg := w.Config
	if o.Model != "" {
		cfg.Model = o.Model
	}
	if o.EscalateModel != "" {
		cfg.EscalateModel = o.EscalateModel
	}
	// Whether bubblewrap works is learnt while the server answers.
	cfg.Sandbox.Prepare()
	back, err := backend.Connect(ctx, cfg, w.VRAM)
	if err != nil {
		return nil, err
	}
	counter, err := w.Counter()
	if err != nil {
		return nil, err
	}
	ws, err := tools.NewWorkspace(w.Root, cfg.AllowRead...)
	if err != nil {
		return nil, err
	}
	ws.UseEditor(o.Editor)
	cfg.Sandbox.MakeWritable()
	sb, notice, err := cfg.Sandbox.Open(ws.Root(), w.Reaper)
	if err != nil {
		return nil, err
	}
	store, code := w.Store, w.Code
	if store == nil {
		if store, err = session.OpenWorkspace(ctx, w.Root); err != nil {
			return nil, err
		}
	}
	if code == nil {
		code = codeindex.New(w.Root, back.Resolved(cfg))
	}
	r := &Run{root: w.Root, cfg: cfg, back: back, store: store, ws: ws, counter: counter,
		tierFlag: o.TierFlag, code: code, rag: o.RAG, plan: o.Plan, reaper: w.Reaper, asker: o.Asker, terminal: o.Terminal, sandbox: sb, path: w.Path,
		vram: w.VRAM, editorMCP: o.MCPServers}
	if notice != "" {
		r.notices = append(r.notices, notice)
	}
	if clamp := back.Plan.Clamp(); clamp != "" {
		r.notices = append(r.notices, clamp)
	}
	err = r.openSession(ctx, o.Resume, o.Continue)
	if err == nil {
		r.recallToolMode(ctx)
		var grants *agent.Grants
		if o.Grants != nil {
			grants = o.Grants(r.sess.ID)
		}
		err = r.newAgent(ctx, o.Approver, grants)
	}
	if err == nil && o.Escalate && !r.agent.EscalateNext() {
		err = r.noEscalation()
	}
	if err != nil {
		if r.sess.ID != "" && !r.resumed {
			// The session made for this run never ran: leave no empty one
			// behind in tern sessions.
			store.Delete(context.WithoutCancel(ctx), r.sess.ID)
		}
		r.CloseTools()
		if w.Code == nil {
			code.Close()
		}
		if w.Store == nil {
			store.Close()
		}
		return nil, err
	}
	return r, nil
}

// Latest is the session of root's store used last that has a
// conversation: what tern -c and tern ask -c continue. A session with no
// turn (a TUI opened and closed without a word) has nothing to continue,
// as the TUI's sessions list says by leaving it out. ok is false when
// there is none yet.
func Latest(ctx context.Context, store *session.Store) (s session.Session, ok bool, err error) {
	list, err := store.List(ctx, 0)
	if err != nil {
		return session.Session{}, false, err
	}
	for _, s := range list {
		if s.Turns > 0 {
			return s, true, nil
		}
	}
	return session.Session{}, false, nil
}

// Find is the session of root's store that id names (its ID, or a unique
// prefix or suffix of it), with an error that says how to list them when
// there is none: --resume's lookup, in tern ask and in the TUI.
func Find(ctx context.Context, store *session.Store, root, id string) (session.Session, error) {
	s, err := store.Get(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return session.Session{}, missing{fmt.Sprintf("no session %q in %s; list them with `tern sessions`", id, root), err}
	}
	return s, err
}

// missing is Find's error for a session that is not there: worded for
// the user, and still a session.ErrNotFound.
type missing struct {
	msg string
	err error
}

func (e missing) Error() string { return e.msg }
func (e missing) Unwrap() error { return e.err }

func (r *Run) openSession(ctx context.Context, resume string, latest bool) error {
	if latest && resume == "" {
		s, ok, err := Latest(ctx, r.store)
		if err != nil {
			return err
		}
		if ok {
			resume = s.ID
		} else {
			r.notices = append(r.notices, "no session to continue in this workspace yet; this is a new one")
		}
	}
	if resume == "" {
		s, err := r.store.Create(ctx, r.back.Info.Name, r.root)
		if err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		r.sess = s
		return nil
	}
	s, err := Find(ctx, r.store, r.root, resume)
	if err != nil {
		return err
	}
	r.sess, r.resumed = s, true
	if s.Model != r.back.Info.Name {
		r.notices = append(r.notices, fmt.Sprintf("session %s was started with %s; continuing with %s", s.ID, s.Model, r.back.Info.Name))
	}
	return nil
}

func (r *Run) newAgent(ctx context.Context, approver agent.Approver, grants *agent.Grants) error {
	if r.mcp == nil {
		m, notices, err := newMCPManager(r.cfg, r.editorMCP, r.ws, func() []string { return disclosure.ReservedNames(r.ws) }, trustGate(r.root, approver))
		if err != nil {
			return err
		}
		r.mcp = m
		r.notices = append(r.notices, notices...)
	}
	if r.lsp == nil {
		m, err := newLanguageServers(r.root, r.cfg, r.path, func(n string) { r.tools.Notify(n) })
		if err != nil {
			return err
		}
		r.lsp = m
	}
	temperature := r.back.Profile.EffectiveTemperature(r.cfg.Temperature)
	cal, err := r.calibration(ctx)
	if err != nil {
		return err
	}
	ex, err := r.newExplorer(ctx, temperature, cal)
	if err != nil {
		return err
	}
	r.explorer = ex
	set, err := r.toolSet(ctx, r.tierFlag)
	if err != nil {
		return err
	}
	r.tools = set
	ex.UseTools(set)
	think := r.cfg.Think
	if !r.back.Info.Has(models.CapThinking) {
		think = ""
	}
	prof := r.back.Profile
	system, notes, err := prompts.ForModel(r.root, prof, think)
	if err != nil {
		return err
	}
	r.notices = append(r.notices, notes...)
	if r.back.Proto.Text {
		r.notices = append(r.notices, r.back.Proto.Why)
	}
	r.notices = append(r.notices, r.back.Notes...)
	escalate := r.escalation(ctx)
	var history []models.Message
	var goal, proposed string
	if r.resumed {
		if goal, proposed, err = r.plans(ctx); err != nil {
			return err
		}
		// A reply cut off by a crash is kept, marked as interrupted.
		if _, err := r.store.RecoverPartial(ctx, r.sess.ID); err != nil {
			return fmt.Errorf("load session %s: %w", r.sess.ID, err)
		}
		if history, err = r.store.Messages(ctx, r.sess.ID); err != nil {
			return fmt.Errorf("load session %s: %w", r.sess.ID, err)
		}
	}
	r.agent = agent.New(agent.Config{
		SessionID:   r.sess.ID,
		Model:       r.back.Info.Name,
		NumCtx:      r.back.Plan.NumCtx,
		MaxTurns:    r.cfg.MaxTurns,
		System:      system,
		TextTools:   r.back.Proto.Text,
		Constrained: r.back.Proto.Constrained,
		// A tool mode asked for (--tool-mode, the profile's) is kept:
		// the session moves to another protocol by itself only in auto.
		FixedToolMode: r.back.Profile.EffectiveToolMode(r.cfg.ToolMode) != models.ToolModeAuto,
		Think:         think,
		Temperature:   temperature,
		KeepAlive:     r.cfg.KeepAlive.Duration,
		History:       history,

		Calibration:  cal,
		Calibrations: r.store,
		CompactAt:    r.cfg.CompactThreshold,

		ToolFormat:      prof.ToolFormat,
		OneToolPerReply: prof.OneToolPerReply,
		ThinkBudget:     r.cfg.ThinkBudget,

		Retriever: r.retriever(),
		RAG:       r.rag,
		RAGShare:  r.cfg.RAGShare,

		Goal:         goal,
		ProposedPlan: proposed,
		PlanMode:     r.plan,
		Grants:       grants,

		Escalate: escalate,
	}, r.back.Client, set, r.store, approver, r.counter)
	return nil
}

// plans reads a resumed session's plan mode state: the accepted plan
// pinned as its goal, and a plan awaiting an answer.
func (r *Run) plans(ctx context.Context) (goal, proposed string, err error) {
	if goal, _, err = r.store.Meta(ctx, r.sess.ID, agent.MetaGoal); err != nil {
		return "", "", fmt.Errorf("load session %s: %w", r.sess.ID, err)
	}
	if proposed, _, err = r.store.Meta(ctx, r.sess.ID, agent.MetaProposed); err != nil {
		return "", "", fmt.Errorf("load session %s: %w", r.sess.ID, err)
	}
	return goal, proposed, nil
}

// retriever is the agent's RAG over the code index, if the run has one.
func (r *Run) retriever() agent.Retriever {
	if r.code == nil {
		return nil
	}
	return rag.PromptRetriever{Code: r.code.Workspace, Counter: r.counter}
}

// Close stops the MCP servers and releases the index and the store.
func (r *Run) Close() error {
	r.CloseTools()
	if r.code != nil {
		r.code.Close()
	}
	return r.store.Close()
}

// CloseTools stops the MCP and language servers the session started, if
// any, and leaves the store and the index open: the TUI's store and index
// outlive its sessions.
func (r *Run) CloseTools() {
	if r.mcp != nil {
		r.mcp.Close()
		r.mcp = nil
	}
	if r.lsp != nil {
		r.lsp.Close()
		r.lsp = nil
	}
}

// AcceptPlan accepts the session's proposed plan: it unlocks tier 1, or
// the --tier given (at least 1), and has the agent carry the plan out
// with it pinned as the goal.
func (r *Run) AcceptPlan(ctx context.Context, note string, emit func(agent.Event)) error {
	if r.agent.ProposedPlan() == "" {
		return agent.ErrNoPlan
	}
	want := disclosure.Edit
	if r.tierFlag {
		want = max(disclosure.Tier(r.cfg.Tier), disclosure.Edit)
	}
	if want > r.tools.Tier() {
		if err := r.tools.SetTier(ctx, want, "the plan was accepted"); err != nil {
			return fmt.Errorf("accept the plan: %w", err)
		}
	}
	return r.agent.AcceptPlan(ctx, note, emit)
}

// Agent is the session's agent.
func (r *Run) Agent() *agent.Agent { return r.agent }

// SessionID is the ID of the session created or resumed.
func (r *Run) SessionID() string { return r.sess.ID }

// Conn is the connection to the model server: the model, why it was
// chosen, its window and the wording of its errors (Conn.Explain).
func (r *Run) Conn() *backend.Conn { return r.back }

// Notices are what the user should know about how the session opened: a
// clamped window, another model than the session's, a text tool protocol,
// a broken index, a subagent model that cannot be used.
func (r *Run) Notices() []string { return r.notices }

// Sandbox is what confines the run's commands.
func (r *Run) Sandbox() *sandbox.Sandbox { return r.sandbox }

// Tools is the session's tool set, with its tiers.
func (r *Run) Tools() *disclosure.Set { return r.tools }

// Checkpoint keeps the files as they were before the session's first
// change, and before each marked turn's (tools.Checkpoint.MarkTurn).
func (r *Run) Checkpoint() *tools.Checkpoint { return r.checkpoint }

// Workspace is the workspace the session's tools work in.
func (r *Run) Workspace() *tools.Workspace { return r.ws }

// Counter is the token counter the agent counts with.
func (r *Run) Counter() *budget.Counter { return r.counter }

// Store is the session store the run records in.
func (r *Run) Store() *session.Store { return r.store }
