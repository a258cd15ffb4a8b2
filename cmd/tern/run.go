package main

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
	"github.com/ternhq/tern/tools/mcp"
)

// run is one agent session, wired: the workspace, the store, the model and
// the agent that drives them.
type run struct {
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
	counter  *budget.Counter
	agent    *agent.Agent
	tools    *disclosure.Set
	notices  []string
	// mcp runs the configured MCP servers (tier 3); nil when there are none.
	mcp *mcp.Manager
	// code is the workspace's search index, for search_code and RAG;
	// rag turns RAG on at the start.
	code *codeindex.Index
	rag  bool
	// plan starts the agent in plan mode.
	plan bool
	// explorer runs explore's subagents; asker puts ask_user's questions
	// (nil headless: no one to ask).
	explorer *agent.Explorer
	asker    tools.Asker
}

// startRun opens the workspace and the model, and creates a session or
// resumes the one o names: tern ask's session, and eval's. The config's
// rag turns RAG on too; --tier given moves a resumed session to it.
func (a *app) startRun(ctx context.Context, o runOptions) (*run, error) {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config(root)
	if err != nil {
		return nil, err
	}

	// The counter builds its encoder only when something must be counted:
	// the agent sends its first request by upper bounds when they fit, and
	// has the encoder built while the model reads it.
	counter, err := budget.NewCounter()
	if err != nil {
		return nil, err
	}
	o.rag = o.rag || cfg.RAG
	o.tierFlag = a.cmd.PersistentFlags().Changed("tier")
	return a.openRun(ctx, runEnv{root: root, cfg: cfg, counter: func() (*budget.Counter, error) { return counter, nil }}, o)
}

// runEnv is what the sessions one tern process opens share: the
// workspace root, its config, the token counter, and in the TUI the
// session store and code index.
type runEnv struct {
	root    string
	cfg     config.Config
	counter func() (*budget.Counter, error)
	// store, when nil, is opened once the model server answers, and is
	// the run's own (closed with it).
	store *session.Store
	// code, when nil, is opened for the server the run resolved to, and
	// is the run's own (closed with it).
	code *codeindex.Index
}

// runOptions say how one session opens.
type runOptions struct {
	// resume names the session to continue; "" creates one.
	resume string
	// model, when set, is used instead of the configured model.
	model    string
	approver agent.Approver
	// asker puts ask_user's questions; nil headless (no one to ask).
	asker tools.Asker
	// tierFlag is set when --tier was given: it then moves a resumed
	// session to that tier.
	tierFlag bool
	// rag turns RAG on at the start; plan starts in plan mode.
	rag, plan bool
}

// openRun opens a session in the workspace: it reaches the model server,
// creates or resumes the session and builds its agent. tern ask (through
// startRun) and the TUI (each time it connects) open sessions through it.
func (a *app) openRun(ctx context.Context, w runEnv, o runOptions) (*run, error) {
	cfg := w.cfg
	if o.model != "" {
		cfg.Model = o.model
	}
	back, err := backend.Connect(ctx, cfg, a.vramBytes)
	if err != nil {
		return nil, err
	}
	counter, err := w.counter()
	if err != nil {
		return nil, err
	}
	ws, err := tools.NewWorkspace(w.root, cfg.AllowRead...)
	if err != nil {
		return nil, err
	}
	store, code := w.store, w.code
	if store == nil {
		if store, err = session.OpenWorkspace(ctx, w.root); err != nil {
			return nil, err
		}
	}
	if code == nil {
		code = codeindex.New(w.root, back.Resolved(cfg))
	}
	r := &run{root: w.root, cfg: cfg, back: back, store: store, ws: ws, counter: counter,
		tierFlag: o.tierFlag, code: code, rag: o.rag, plan: o.plan, asker: o.asker}
	if clamp := back.Plan.Clamp(); clamp != "" {
		r.notices = append(r.notices, clamp)
	}
	err = r.openSession(ctx, o.resume)
	if err == nil {
		r.recallToolMode(ctx)
		err = r.newAgent(ctx, o.approver)
	}
	if err != nil {
		r.closeTools()
		if w.code == nil {
			code.Close()
		}
		if w.store == nil {
			store.Close()
		}
		return nil, err
	}
	return r, nil
}

func (r *run) openSession(ctx context.Context, resume string) error {
	if resume == "" {
		s, err := r.store.Create(ctx, r.back.Info.Name, r.root)
		if err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		r.sess = s
		return nil
	}
	s, err := r.store.Get(ctx, resume)
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("no session %q in %s; list them with `tern sessions`", resume, r.root)
	}
	if err != nil {
		return err
	}
	r.sess, r.resumed = s, true
	if s.Model != r.back.Info.Name {
		r.notices = append(r.notices, fmt.Sprintf("session %s was started with %s; continuing with %s", s.ID, s.Model, r.back.Info.Name))
	}
	return nil
}

func (r *run) newAgent(ctx context.Context, approver agent.Approver) error {
	if r.mcp == nil {
		m, err := newMCPManager(r.cfg, r.ws, func() []string { return disclosure.ReservedNames(r.ws) }, trustGate(r.root, approver))
		if err != nil {
			return err
		}
		r.mcp = m
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
		Think:       think,
		Temperature: temperature,
		KeepAlive:   r.cfg.KeepAlive.Duration,
		History:     history,

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
	}, r.back.Client, set, r.store, approver, r.counter)
	return nil
}

// plans reads a resumed session's plan mode state: the accepted plan
// pinned as its goal, and a plan awaiting an answer.
func (r *run) plans(ctx context.Context) (goal, proposed string, err error) {
	if goal, _, err = r.store.Meta(ctx, r.sess.ID, agent.MetaGoal); err != nil {
		return "", "", fmt.Errorf("load session %s: %w", r.sess.ID, err)
	}
	if proposed, _, err = r.store.Meta(ctx, r.sess.ID, agent.MetaProposed); err != nil {
		return "", "", fmt.Errorf("load session %s: %w", r.sess.ID, err)
	}
	return goal, proposed, nil
}

// retriever is the agent's RAG over the code index, if the run has one.
func (r *run) retriever() agent.Retriever {
	if r.code == nil {
		return nil
	}
	return rag.PromptRetriever{Code: r.code.Workspace, Counter: r.counter}
}

// Close stops the MCP servers and releases the index and the store.
func (r *run) Close() error {
	r.closeTools()
	if r.code != nil {
		r.code.Close()
	}
	return r.store.Close()
}

// closeTools stops the MCP servers the session started, if any.
func (r *run) closeTools() {
	if r.mcp != nil {
		r.mcp.Close()
		r.mcp = nil
	}
}

// acceptPlan accepts the session's proposed plan: it unlocks tier 1, or
// the --tier given (at least 1), and has the agent carry the plan out
// with it pinned as the goal.
func (r *run) acceptPlan(ctx context.Context, note string, emit func(agent.Event)) error {
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
