// Package agent runs tern's turn loop: it sends the conversation to the
// model, recovers and checks the tool calls in the reply, runs them (reads
// in parallel, writes and commands after approval), feeds the results back,
// and repeats until the model answers, the user cancels or the turn limit is
// reached. It reports what happens as a small closed set of typed events.
// With RAG on, each prompt is sent with the repository code a Retriever
// finds for it (retrieve.go). The Agent holds the session; each turn's own
// state is a value passed through the turn (turn.go).
//
// agent declares the small interfaces it needs (chatModel, toolbox,
// recorder, Approver, Retriever) and the extras it looks for in them
// (capabilities.go), and is wired by cmd/tern. It must not import
// models/ollama, index, rag or tui.
package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// chatModel is the model backend; *ollama.Client satisfies it.
type chatModel interface {
	Chat(ctx context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error)
}

// toolbox is what the model may call; *tools.Set satisfies it.
type toolbox interface {
	All() []tools.Tool
	Get(name string) (tools.Tool, bool)
}

// recorder persists the conversation as it happens; *session.Store
// satisfies it.
type recorder interface {
	AppendMessage(ctx context.Context, sessionID string, m models.Message) error
	RecordToolCall(ctx context.Context, sessionID string, r session.ToolCallRecord) error
	RecordTurn(ctx context.Context, sessionID string, m session.TurnMetrics) error
}

// tokenCounter estimates prompt sizes; *budget.Counter satisfies it.
type tokenCounter interface {
	Count(text string) int
	MessageTokens(m models.Message) int
}

// Config holds the settings of one session. They stay fixed for its life:
// a changed window reloads the model, and a changed system prompt throws
// away the server's prompt cache.
type Config struct {
	SessionID string
	Model     string
	// NumCtx is the context window sent with every request.
	NumCtx int
	// Window, when set below NumCtx, is the part of the served window
	// this agent's prompts may fill: a subagent's share. Requests still
	// carry NumCtx, so the model is not reloaded.
	Window int
	// Reserve is the share of the window kept free for the reply, in tokens.
	// Zero means a fifth of the window, at least 512.
	Reserve int
	// MaxTurns caps the model requests of one Run (default 25).
	MaxTurns int
	// System is the rendered system prompt, without tools: in the text
	// tool protocol the agent appends their description itself.
	System string
	// TextTools selects the text tool protocol: tools are described in the
	// system prompt and calls parsed from the reply text, for models that
	// cannot take tools natively. The agent also falls back to it by
	// itself when native calls keep failing.
	TextTools bool
	// ToolFormat is how calls are written in the text tool protocol
	// (models.FormatTagged when empty); see models.Profile.
	ToolFormat string
	// Constrained selects the constrained tool mode: the text tool
	// protocol with every reply held to a JSON schema (one call or the
	// answer) that the server enforces while sampling. It implies
	// TextTools and turns thinking off. The agent also moves to it by
	// itself when calls written as text keep failing.
	Constrained bool
	// FixedToolMode is set when the tool mode was asked for (--tool-mode,
	// a profile's tool_mode) rather than left to auto: the session then
	// never moves to another protocol by itself.
	FixedToolMode bool
	// OneToolPerReply runs only the first call of a reply; the others are
	// answered with a request to send them one at a time.
	OneToolPerReply bool
	// Think turns thinking on ("" is off). ThinkBudget caps a reply's
	// thinking in tokens (0: half the reply reserve, at least 256).
	Think       string
	ThinkBudget int
	Temperature *float64
	KeepAlive   time.Duration
	// History is the conversation so far, for a resumed session.
	History []models.Message
	Logger  *slog.Logger
	Now     func() time.Time

	// Calibration is the model's token-count correction learnt so far (the
	// zero value: none yet); Calibrations, when set, keeps what is learnt.
	Calibration  budget.Calibration
	Calibrations CalibrationStore
	// CompactAt is the share of the window past which the history is
	// compacted before a request (default DefaultCompactAt); 1 or more
	// turns automatic compaction off.
	CompactAt float64

	// Retriever, when set, finds repository code for each prompt while
	// RAG is on (RAG sets the start; SetRAG changes it). RAGShare is the
	// share of the window that code may take (default DefaultRAGShare).
	Retriever Retriever
	RAG       bool
	RAGShare  float64

	// Goal is a plan the user accepted earlier in a resumed session,
	// pinned in the prompt; ProposedPlan one still awaiting an answer;
	// PlanMode starts the session in plan mode (plan.go).
	Goal, ProposedPlan string
	PlanMode           bool

	// Grants keeps the tools the user allowed for the rest of the
	// session; nil starts an empty set of the agent's own.
	Grants *Grants

	// Escalate, when set, is the larger model a turn moves to when the
	// loop guard would stop it as stuck, or when asked (escalate.go).
	Escalate *Escalation
}

// Agent runs the turns of one session and keeps what outlives a turn;
// what lives only for one is a turn value (turn.go). Its methods must not
// be called concurrently.
type Agent struct {
	cfg      Config
	model    chatModel
	tools    toolbox
	rec      recorder
	approver Approver
	counter  tokenCounter
	log      *slog.Logger
	now      func() time.Time
	// pause waits before a retry, and reports false if ctx ended first
	// (sleep; a test has it return at once and note the wait).
	pause func(ctx context.Context, d time.Duration) bool

	history []models.Message
	// costs[i] is the token estimate of history[i], counted once.
	costs   []int
	callSeq int
	// lastPrint is the prompt of the last request, for telling how much
	// of the next one the server's cache holds (cache.go).
	lastPrint promptPrint
	// prefixCost caches PrefixTokens for the tool list named prefixKey.
	prefixCost int
	prefixKey  string
	// bounded is set while costs and prefixCost are upper bounds of the
	// counts rather than counts (see settle).
	bounded bool
	// grants are the tools the user allowed for the rest of the session.
	grants *Grants

	// win is the window with its reserve and the calibration that corrects
	// token counts toward the model's.
	win budget.Window
	// stalledAt is the history's cost after a compaction that freed too
	// little to repeat; 0 when none did.
	stalledAt int
	// notices wait for the next request to be sent; roomWarned is set once
	// the user was told the prefix leaves little room.
	notices    []Notice
	roomWarned bool

	// mode is the tool protocol state.
	mode toolMode

	// rag is set while each prompt gets retrieved code.
	rag bool

	// partialSaved is set while the store holds the text of a reply in
	// flight (see partial).
	partialSaved bool

	// planMode is set while turns may only read and end with a plan;
	// proposed is the plan awaiting the user's answer, goal the one
	// accepted and goalText its rendering pinned in the prompt (plan.go).
	planMode                 bool
	proposed, goal, goalText string

	// escalateNext runs the next turn on the escalation model; escalation
	// is that model's state between its turns, escalated is set while a
	// turn runs on it, and reloadWatch names the session's model while
	// its load time after an escalation is still to be told
	// (escalate.go).
	escalateNext bool
	escalation   *seat
	escalated    bool
	reloadWatch  string
}

// New returns an agent for one session.
func New(cfg Config, model chatModel, tb toolbox, rec recorder, ap Approver, counter tokenCounter) *Agent {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 25
	}
	if cfg.Reserve <= 0 {
		cfg.Reserve = budget.DefaultReserve(cfg.NumCtx)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CompactAt <= 0 {
		cfg.CompactAt = DefaultCompactAt
	}
	if cfg.ToolFormat == "" {
		cfg.ToolFormat = models.FormatTagged
	}
	a := &Agent{
		cfg: cfg, model: model, tools: tb, rec: rec, approver: ap, counter: counter,
		log: cfg.Logger, now: cfg.Now, pause: sleep,
		grants:    cmp.Or(cfg.Grants, &Grants{}),
		prefixKey: "\xff", // no tool list
		win: budget.Window{
			NumCtx: cfg.NumCtx, Limit: cfg.Window, Reserve: cfg.Reserve, Calibration: cfg.Calibration,
		},
		rag:      cfg.RAG,
		planMode: cfg.PlanMode,
		proposed: cfg.ProposedPlan,
	}
	_, a.bounded = counter.(BoundingCounter)
	a.setGoal(cfg.Goal)
	for _, m := range closeCalls(cfg.History) {
		a.remember(nil, m)
		for _, c := range m.ToolCalls {
			// New calls get ids that the resumed ones do not have.
			var n int
			if _, err := fmt.Sscanf(c.ID, "call_%d", &n); err == nil {
				a.callSeq = max(a.callSeq, n)
			}
		}
	}
	return a
}

// remember adds m to the in-memory history with its token cost; t is the
// turn in progress (nil between turns).
func (a *Agent) remember(t *turn, m models.Message) {
	m, cost := a.admit(t, m)
	a.history = append(a.history, m)
	a.costs = append(a.costs, cost)
}

// LastPrompt is the user's words of the last turn's message (as they were
// shown, for a plan-mode turn), false when the conversation has none.
func (a *Agent) LastPrompt() (string, bool) {
	i := a.lastUser()
	if i < 0 {
		return "", false
	}
	return cmp.Or(a.history[i].Shown, a.history[i].Content), true
}

// TakeBack drops the last turn from the conversation: its user message
// and all that followed, from the history and from the store, where they
// stay on record, superseded, as a compaction's messages do. It reports
// whether there was a turn to drop. Like Run, it must not run together
// with another method.
func (a *Agent) TakeBack(ctx context.Context) (bool, error) {
	i := a.lastUser()
	if i < 0 {
		return false, nil
	}
	if r, ok := a.rec.(HistoryReplacer); ok {
		if err := r.ReplaceHistory(ctx, a.cfg.SessionID, a.history[:i]); err != nil {
			return false, fmt.Errorf("take back the last turn: %w", err)
		}
	}
	a.history, a.costs = slices.Clone(a.history[:i]), slices.Clone(a.costs[:i])
	return true, nil
}

// lastUser is the index of the last user message of the history, -1 for
// none.
func (a *Agent) lastUser() int {
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].Role == models.RoleUser {
			return i
		}
	}
	return -1
}

// History returns a copy of the conversation so far.
func (a *Agent) History() []models.Message {
	return append([]models.Message(nil), a.history...)
}

// Run answers one user message. Events go to emit, on the calling
// goroutine or, while tools run in parallel, on others, one at a time.
// The last event is always Done. Run returns an error only when the turn
// could not go on: the context was cancelled (the error wraps
// context.Canceled), the model could not be reached, or the store failed.
// Everything said before such an error is kept in the session.
//
// In plan mode the prompt is sent wrapped in the plan prompt, and the turn
// may only read (see plan.go).
func (a *Agent) Run(ctx context.Context, prompt string, emit func(Event)) error {
	if a.planMode {
		text, err := prompts.RenderPlan(prompts.PlanAsk, prompts.Plan{Prompt: prompt})
		if err != nil {
			return err
		}
		return a.planTurn(ctx, text, prompt, prompt, emit)
	}
	return a.runTurn(ctx, prompt, prompt, "", true, emit)
}

// runTurn runs one turn on text, the user message the model gets; words are
// the user's own in it, for retrieval, and shown what the user sees of
// it when that is not text (models.Message.Shown). With unlock the
// toolbox reads the words for the tools the request needs; turns of plan
// mode unlock nothing.
func (a *Agent) runTurn(ctx context.Context, text, words, shown string, unlock bool, emit func(Event)) (err error) {
	var mu sync.Mutex
	send := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(e)
	}
	start := a.now()
	t := newTurn()
	done := &t.done
	defer func() {
		a.endEscalation(t)
		if t.escalatedTo != "" {
			done.Escalated, done.EscalatedTurns = t.escalatedTo, done.Turns-t.escalatedAfter
		}
		done.Duration = a.now().Sub(start)
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			done.Reason, done.Error = DoneCanceled, err.Error()
		default:
			done.Reason, done.Error = DoneError, err.Error()
		}
		send(*done)
	}()

	if unlock {
		a.readPrompt(ctx, words, send)
	} else {
		a.relayNotices(send)
	}
	if err := a.append(ctx, t, models.Message{Role: models.RoleUser, Content: text, Shown: shown}); err != nil {
		return err
	}
	if err := a.retrieve(ctx, t, cmp.Or(words, text), send); err != nil {
		return err
	}
	if err := a.attachMentions(ctx, t, cmp.Or(words, text), send); err != nil {
		return err
	}
	if a.escalateNext && a.canEscalate(t) {
		a.escalateNext = false
		a.escalate(t, "escalation asked for", send)
	}
	warnAt := (a.cfg.MaxTurns*4 + 4) / 5
	for n := 1; ; n++ {
		if n > a.cfg.MaxTurns {
			send(Notice{Level: Warn, Text: fmt.Sprintf("stopped after %d model requests (--max-turns); ask again to continue", a.cfg.MaxTurns)})
			done.Reason = DoneMaxTurns
			return nil
		}
		if n == warnAt && warnAt < a.cfg.MaxTurns {
			send(Notice{Level: Warn, Text: fmt.Sprintf("turn %d of %d: the model should finish soon", n, a.cfg.MaxTurns)})
		}
		done.Turns = n + t.retries

		reply, usage, err := a.answer(ctx, t, send)
		a.noteLoad(t, reply.Metrics.LoadDuration, send)
		done.PromptTokens += reply.Metrics.PromptTokens
		done.EvalTokens += reply.Metrics.EvalTokens
		if usage != nil {
			done.CachedTokens += usage.CachedTokens
			done.CacheEstimated = done.CacheEstimated || usage.CacheEstimated
		}
		if err != nil {
			if reply.Message.Content != "" || reply.Message.Thinking != "" {
				// Keep what was said before the failure, marked when the
				// user stopped it, so that a resumed session (and the
				// model) can tell it from a whole answer.
				if errors.Is(err, context.Canceled) {
					reply.Message.Content += CancelledNote
				}
				if perr := a.append(context.WithoutCancel(ctx), t, reply.Message); perr != nil {
					a.log.Error("save partial reply", "err", perr)
				}
			}
			return err
		}

		rec := a.recoverCalls(t, &reply.Message, reply.DoneReason)
		// The reply and the results of its calls are saved even if the turn
		// is cancelled meanwhile: a call in the history always has its result.
		if err := a.append(context.WithoutCancel(ctx), t, reply.Message); err != nil {
			return err
		}
		shown := reply.Message
		shown.Content = rec.shown
		send(Message{Message: shown, Usage: usage})
		if reply.DoneReason == "length" && len(rec.plan.calls) == 0 {
			send(Notice{Level: Warn, Text: fmt.Sprintf("the reply was cut at the output limit (%d tokens)", a.win.Reserve)})
		}
		if len(rec.plan.calls) == 0 {
			if more, err := a.noCalls(ctx, t, rec, reply, send); !more || err != nil {
				return err
			}
			continue
		}
		rec.plan.limit = a.outputLimit(t, len(rec.plan.calls))
		results := a.runCalls(ctx, t, rec.plan, send)
		a.relayNotices(send)
		for _, m := range results {
			if err := a.append(context.WithoutCancel(ctx), t, m); err != nil {
				return err
			}
		}
		if a.stuck(t, send) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// append adds m to the history and the store; t is the turn in progress.
func (a *Agent) append(ctx context.Context, t *turn, m models.Message) error {
	a.remember(t, m)
	if err := a.rec.AppendMessage(ctx, a.cfg.SessionID, m); err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	if m.Role == models.RoleAssistant {
		a.clearPartial(ctx)
	}
	return nil
}
