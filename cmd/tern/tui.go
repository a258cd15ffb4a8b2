package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/index/ignore"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/statedir"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/sandbox"
	"github.com/ternhq/tern/tui"
)

// openTUI runs the TUI on the terminal (or on a.screen in tests). Without
// a terminal it says what to use instead.
func (a *app) openTUI(ctx context.Context, o *tuiOptions) error {
	if o.cont && o.resume != "" {
		return exitCodeError{code: exitUsage, err: errors.New("--continue and --resume exclude each other: -c continues the latest session, --resume ID the one named")}
	}
	if a.screen == nil && !(isTerminal(a.stdin) && isTerminal(a.rawStdout)) {
		return errors.New("the TUI needs a terminal; for one headless turn use tern ask \"PROMPT\"")
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	id, err := a.runTUI(ctx, o)
	if id != "" {
		fmt.Fprintf(a.stderr, "tern: session %s is saved; continue it with `tern -c` (the latest session) or `tern --resume %s`\n", id, id)
	}
	return err
}

// isTerminal reports whether f is a character device, as a terminal is.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runTUI opens the TUI in the workspace. It opens before the model is
// reached: the session store (for /sessions) is ready at once, and the TUI
// connects in the background, retrying while Ollama is down.
func (a *app) runTUI(ctx context.Context, o *tuiOptions) (string, error) {
	resume := o.resume
	root, err := a.workspaceRoot()
	if err != nil {
		return "", err
	}
	cfg, err := a.config(root)
	if err != nil {
		return "", err
	}
	// Asked on the terminal before the TUI takes it; said in the TUI,
	// by the first session it opens.
	var first []string
	stateNote, err := a.prepareState(root, a.screen == nil)
	if err != nil {
		return "", err
	}
	if stateNote != "" {
		first = append(first, stateNote)
	}
	store, err := session.OpenWorkspace(ctx, root)
	if err != nil {
		return "", err
	}
	defer store.Close()
	if resume != "" {
		s, err := runner.Find(ctx, store, root, resume)
		if err != nil {
			return "", err
		}
		resume = s.ID
	} else if o.cont {
		s, ok, err := runner.Latest(ctx, store)
		if err != nil {
			return "", err
		}
		if ok {
			resume = s.ID
		} else {
			first = append(first, "no session to continue in this workspace yet; this is a new one")
		}
	}
	// The token tables load while the TUI draws and Ollama answers: the
	// status bar shows counts from the start.
	counter := sync.OnceValues(budget.NewCounter)
	go func() {
		if c, err := counter(); err == nil {
			c.Warm()
		}
	}()
	// The index serves /search and /index offline, and every session's
	// search_code and RAG; Ctrl+R's choice carries over to new sessions.
	code := codeindex.New(root, cfg)
	defer code.Close()
	var ragOn atomic.Bool
	ragOn.Store(cfg.RAG || o.rag)
	// What the user allowed for the rest of a session outlives the
	// session's agent: a reconnect to the model keeps it.
	var grantsMu sync.Mutex
	grants := map[string]*agent.Grants{}
	grantsFor := func(id string) *agent.Grants {
		grantsMu.Lock()
		defer grantsMu.Unlock()
		if grants[id] == nil {
			grants[id] = &agent.Grants{}
		}
		return grants[id]
	}

	var noted atomic.Bool
	notices := func(list []string) []string {
		if !noted.Swap(true) {
			return append(first, list...)
		}
		return list
	}
	connect := func(ctx context.Context, req tui.ConnectRequest) (*tui.Backend, error) {
		w := a.runEnv(root, cfg, counter)
		w.Store, w.Code = store, code
		r, err := runner.Open(ctx, w, runner.Options{Resume: req.Resume, Model: req.Model,
			Approver: req.Approver, Asker: asker(req.Asker), RAG: ragOn.Load(), Grants: grantsFor})
		if err != nil {
			return nil, err
		}
		back, cnt, ws, ag := r.Conn(), r.Counter(), r.Workspace(), r.Agent()
		history := ag.History()
		var calls map[string]tui.CallSummary
		if len(history) > 0 {
			if calls, err = callSummaries(ctx, store, r.SessionID()); err != nil {
				return nil, err
			}
		}
		return &tui.Backend{
			Agent:        ag,
			SessionID:    r.SessionID(),
			Model:        back.Info.Name,
			Why:          back.Why,
			Host:         back.Client.Host(),
			NumCtx:       back.Plan.NumCtx,
			PrefixTokens: ag.PrefixTokens(),
			History:      history,
			Calls:        calls,
			Describe:     ag.Describe,
			Notices:      notices(r.Notices()),
			Sandbox:      sandboxLabel(r.Sandbox()),
			Installed:    withCapabilities(ctx, back),
			Ollama:       back.Kind == config.BackendOllama,
			Close:        func() error { r.CloseTools(); return nil },
			Tiers:        tierControl{set: r.Tools(), counter: cnt},
			Compactor:    ag,
			Undoer:       &turnUndoer{ws: ws, session: r.SessionID(), cp: r.Checkpoint(), turns: ag},
			Differ:       &undoer{ws: ws, session: r.SessionID()},
			RAG:          ragSwitch{agent: ag, on: &ragOn, code: code},
			Hint:         back.Hint,
			Planner:      ag,
			Escalator:    ag,
		}, nil
	}

	t := tui.New(tui.Config{
		Root:    root,
		Resume:  resume,
		Screen:  a.screen,
		NoColor: a.getenv("NO_COLOR") != "",
		Yes:     a.yes || a.yolo,
		Tier:    a.tier,
		Plan:    o.plan,

		RetryEvery: a.retryEvery,
		KeyGrace:   a.keyGrace,
	}, tui.Deps{
		Connect:  connect,
		Sessions: store,
		Search:   tuiSearcher{code: code},
		Index:    tuiIndexer{code: code},
		Notes:    prompts.NotesWriter{Root: root, StateFile: func(name string) (string, error) { return statedir.File(root, name) }},
		Doctor:   a.doctorReport,
		Files:    func(ctx context.Context) ([]string, error) { return repoFiles(ctx, root) },
	})
	err = t.Run(ctx)
	return t.SessionID(), err
}

// doctorReport runs `tern doctor` into a string for /doctor.
func (a *app) doctorReport(ctx context.Context) (string, error) {
	var out bytes.Buffer
	b := *a
	b.stdout = &out
	err := b.doctor(ctx)
	var ec exitCodeError
	if errors.As(err, &ec) && ec.err == nil {
		err = errors.New("see the ✗ lines above")
	}
	return out.String(), err
}

// tierControl is the TUI's view of the session's tiers (Ctrl+T, /tier,
// /tools).
type tierControl struct {
	set     *disclosure.Set
	counter *budget.Counter
}

func (t tierControl) Tier() int { return int(t.set.Tier()) }

// SetTier moves the session to tier n. The notice the set raises is
// returned here and taken, so the agent does not repeat it.
func (t tierControl) SetTier(ctx context.Context, n int) (string, error) {
	if err := t.set.SetTier(ctx, disclosure.Tier(n), "chosen in the TUI"); err != nil {
		return "", err
	}
	return strings.Join(t.set.Notices(), "; "), nil
}

func (t tierControl) Tools() []tui.ToolInfo {
	active := make(map[string]bool)
	for _, tool := range t.set.All() {
		active[tool.Spec().Name] = true
	}
	var list []tui.ToolInfo
	for tier := disclosure.Read; tier <= disclosure.External; tier++ {
		for _, tool := range t.set.Tools(tier) {
			spec := tool.Spec()
			list = append(list, tui.ToolInfo{Name: spec.Name, Tier: int(tier),
				Tokens: t.counter.Count(string(spec.WireJSON())), Active: active[spec.Name]})
		}
	}
	return list
}

// undoer restores the files of a session to its checkpoint (tern acp's
// /undo) and shows what it changed (/diff).
type undoer struct {
	ws      *tools.Workspace
	session string
	plan    *tools.UndoPlan
}

// Diff is what the session changed since its checkpoint (/diff).
func (u *undoer) Diff(ctx context.Context) (string, error) {
	diff, err := tools.SessionDiff(ctx, u.ws, u.session)
	if errors.Is(err, tools.ErrNoCheckpoint) {
		return "", nil // no checkpoint: the session changed nothing yet
	}
	if err != nil {
		return "", fmt.Errorf("unavailable: %s", checkpoint.Unavailable(err))
	}
	return diff, nil
}

func (u *undoer) PlanUndo(ctx context.Context) (tui.UndoPlan, error) {
	plan, err := tools.PlanUndo(ctx, u.ws, u.session)
	if err != nil {
		return tui.UndoPlan{}, checkpoint.Explain(u.session, err)
	}
	u.plan = plan
	return tui.UndoPlan{Restore: plan.Restore, Delete: plan.Delete}, nil
}

func (u *undoer) Undo(ctx context.Context, _ tui.UndoPlan) (string, error) {
	if u.plan == nil {
		return "", errors.New("undo: nothing planned")
	}
	saved, err := u.plan.Apply(ctx)
	u.plan = nil
	if err != nil {
		return "", err
	}
	if saved == "" {
		return "nothing to undo: the files are as they were at the checkpoint", nil
	}
	return fmt.Sprintf("files restored to the checkpoint; the state before the undo is kept under %s", saved), nil
}

// turnUndoer takes back the TUI session's last turn (/undo): the files it
// changed, from the snapshot the checkpoint took before its first change,
// and the turn itself, from the conversation.
type turnUndoer struct {
	ws      *tools.Workspace
	session string
	cp      *tools.Checkpoint
	turns   interface {
		LastPrompt() (string, bool)
		TakeBack(ctx context.Context) (bool, error)
	}
	plan *tools.UndoPlan
}

func (u *turnUndoer) BeginTurn() { u.cp.MarkTurn() }

func (u *turnUndoer) PlanUndo(ctx context.Context) (tui.UndoPlan, error) {
	u.plan = nil
	prompt, _ := u.turns.LastPrompt()
	out := tui.UndoPlan{Prompt: prompt}
	commit, known, err := u.cp.TurnCommit()
	switch {
	case !known && prompt != "":
		out.Kept = "which files the turn changed is not known, as tern connected to the model again since it ran (/diff shows the session's changes; `tern undo` restores them all)"
	case err != nil:
		out.Kept = "no snapshot of them could be taken before the turn: " + checkpoint.Unavailable(err)
	case commit != "":
		plan, err := tools.PlanUndoTo(ctx, u.ws, u.session, commit)
		if err != nil {
			return tui.UndoPlan{}, fmt.Errorf("the turn's files: %s", checkpoint.Unavailable(err))
		}
		u.plan = plan
		out.Restore, out.Delete = plan.Restore, plan.Delete
	}
	return out, nil
}

func (u *turnUndoer) Undo(ctx context.Context, _ tui.UndoPlan) (string, error) {
	var said []string
	if u.plan != nil {
		saved, err := u.plan.Apply(ctx)
		n := len(u.plan.Restore) + len(u.plan.Delete)
		u.plan = nil
		if err != nil {
			return "", err
		}
		if saved != "" {
			said = append(said, fmt.Sprintf("%s put back as they were before it (the files before the undo are kept under %s)", words.Count(n, "file"), saved))
		}
	}
	took, err := u.turns.TakeBack(ctx)
	if err != nil {
		return "", err
	}
	u.cp.ForgetTurn()
	if took {
		said = append([]string{"the last turn left the conversation"}, said...)
	}
	if len(said) == 0 {
		return "nothing to undo", nil
	}
	return "undone: " + strings.Join(said, "; "), nil
}

// asker is the TUI's dialog as ask_user's asker; nil without one.
func asker(t tui.Asker) tools.Asker {
	if t == nil {
		return nil
	}
	return tuiAsker{t}
}

// tuiAsker puts ask_user's questions in the TUI's dialog.
type tuiAsker struct{ tui tui.Asker }

func (t tuiAsker) Ask(ctx context.Context, qs []tools.Question) ([]string, error) {
	list := make([]tui.Question, len(qs))
	for i, q := range qs {
		list[i] = tui.Question{Text: q.Text, Options: q.Options}
	}
	answers, err := t.tui.Ask(ctx, list)
	if errors.Is(err, tui.ErrNotAnswered) {
		return nil, tools.ErrNotAnswered
	}
	return answers, err
}

// callSummaries is what the tools said of a session's calls, by call id,
// for the TUI to show a resumed conversation as it was shown live. An id
// recorded twice (by a tern that kept a server's repeated ids) is left
// out: its line then shows the call's arguments.
func callSummaries(ctx context.Context, store *session.Store, sessionID string) (map[string]tui.CallSummary, error) {
	recs, err := store.ToolCalls(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]tui.CallSummary, len(recs))
	twice := map[string]bool{}
	for _, r := range recs {
		if _, ok := out[r.CallID]; ok {
			twice[r.CallID] = true
		}
		out[r.CallID] = tui.CallSummary{Summary: r.Summary, IsError: r.IsError, Duration: r.Duration}
	}
	for id := range twice {
		delete(out, id)
	}
	return out, nil
}

// maxMentionFiles bounds the file list @path completes from.
const maxMentionFiles = 50000

// repoFiles lists the workspace's files as @path completes them: relative,
// slash-separated, in lexical order, without what .gitignore leaves out
// (nor .git and .tern).
func repoFiles(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := ignore.New(root).Walk(ctx, root, func(rel string, d fs.DirEntry) error {
		if d.Type().IsRegular() {
			out = append(out, rel)
		}
		if len(out) >= maxMentionFiles {
			return fs.SkipAll
		}
		return nil
	})
	return out, err
}

// sandboxLabel names what confines commands in the status bar; "" when
// nothing does.
func sandboxLabel(sb *sandbox.Sandbox) string {
	switch sb.Mechanism() {
	case sandbox.Bubblewrap:
		return "bubblewrap"
	case sandbox.Landlock:
		return "Landlock"
	}
	return ""
}

// withCapabilities is the installed models with what each can do, which
// Ollama's list of models (/api/tags) leaves out: so /model refuses a
// model that cannot chat before it says it switches, and lists what each
// can do. A model its server will not describe keeps none (/model then
// tries it, and says why it cannot switch).
func withCapabilities(ctx context.Context, back *backend.Conn) []models.ModelInfo {
	shower, ok := back.Client.(interface {
		Show(context.Context, string) (models.ModelInfo, error)
	})
	if !ok || back.Kind != config.BackendOllama {
		return back.Installed
	}
	out := slices.Clone(back.Installed)
	for i, m := range out {
		if len(m.Capabilities) == 0 {
			if info, err := shower.Show(ctx, m.Name); err == nil {
				out[i].Capabilities = info.Capabilities
			}
		}
	}
	return out
}
