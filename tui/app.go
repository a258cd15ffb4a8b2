// Package tui is tern's terminal front end, built on tview: a status bar
// with the live token budget, the conversation rendered from Markdown with
// tool calls that open to their output, a multi-line prompt with history
// and slash commands, and dialogs for approvals, sessions and search.
//
// The TUI only drives the agent (prompts in, events out) and lists
// sessions; every other capability (tiers, compaction, undo, search,
// index) reaches it as a small interface declared here and wired by
// cmd/tern, and a nil one is reported as unavailable. One goroutine, the
// pump, moves work onto tview with QueueUpdateDraw; input handlers never
// queue updates. tui imports agent, session and models; it must not import
// models/ollama, index, rag or tools.
package tui

import (
	"context"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ternhq/tern/agent"
)

// Config is how the TUI starts and what it shows.
type Config struct {
	// Root is the workspace; its name is shown as the repository.
	Root string
	// Model and Resume are passed to the first connect.
	Model, Resume string
	// Screen is where to draw; nil means the terminal. New initialises it.
	Screen tcell.Screen
	// NoColor draws with attributes only (NO_COLOR, monochrome terminals).
	NoColor bool
	// RetryEvery is the pause between attempts to reach the model while
	// offline (default 5 s).
	RetryEvery time.Duration
	// Tier is the tool tier to start at (--tier), applied when the first
	// session opens.
	Tier int
	// Plan starts the first session in plan mode (--plan).
	Plan bool
	// Yes allows calls that write or execute without asking, as --yes
	// does; destructive calls still ask.
	Yes bool
	// MaxLines bounds the scrollback in lines (default 5000).
	MaxLines int
	// KeyGrace is how long the keyboard must be quiet after a dialog that
	// opened by itself (an approval, the model's question, a plan) is
	// visible before the dialog takes keys; until then what is typed goes
	// to the prompt (default 500 ms).
	KeyGrace time.Duration
	Now      func() time.Time
}

// Deps are the services the TUI drives. Connect is required; the others
// may be nil, and the features that need them say they are not available.
type Deps struct {
	Connect  Connector
	Sessions SessionLister
	Search   Searcher
	Index    Indexer
	Notes    NotesWriter
	// Doctor runs the checks of `tern doctor` and returns its report.
	Doctor func(ctx context.Context) (string, error)
	// Files lists the repository's files (slash-separated, relative to
	// the root, ignored ones left out), for completing @path mentions.
	Files func(ctx context.Context) ([]string, error)
}

// App is the running TUI. Its fields below the widgets belong to the UI
// goroutine: only input handlers and functions posted through the pump
// touch them.
type App struct {
	cfg  Config
	deps Deps
	th   theme
	md   *markdown
	now  func() time.Time

	app    *tview.Application
	pages  *tview.Pages
	body   *tview.Flex
	conv   *convo
	side   *tview.TextView
	input  *tview.TextArea
	layout *tview.Flex
	pump   *pump
	pres   *presenter
	// queueView lists the prompts queued while the agent works.
	queueView *queueBox
	// mention is the file list @path completes from.
	mention mentionState

	// jobContext makes the context of a background job; it is cancelled
	// when the TUI stops.
	jobContext func() (context.Context, context.CancelFunc)
	jobs       sync.WaitGroup
	retryNow   chan struct{}
	firstDraw  chan struct{}
	drawOnce   sync.Once

	back    *Backend
	conn    connState
	offline string // why the model cannot be reached
	// req is what the next connect asks for.
	req ConnectRequest
	job *job

	used, window int
	// subagent says what a running subagent (explore) has spent; activity
	// is the call running since activitySince, "" between calls.
	subagent      string
	activity      string
	activitySince time.Time
	calibrated    bool
	rate          float64
	tier          int
	tools         []ToolInfo
	rag           bool
	// planMode mirrors the planner; plan is the proposed plan awaiting
	// the user's answer, and planAsk asks for the dialog once the turn
	// that proposed it is over; goal is set while a plan is pinned.
	planMode bool
	plan     string
	planAsk  bool
	goal     bool
	// escalated names the model the running turn moved to; escalateArmed
	// the one the next turn will run on (/escalate).
	escalated, escalateArmed string

	// quitArmed is set by a first Ctrl+C (or a Ctrl+Q that would drop
	// typed text) at quitAt; a second within quitWindow quits.
	quitArmed bool
	quitAt    time.Time
	hint      string // replaces the footer's key list for a while
	// queue holds the prompts sent while the agent works, oldest first.
	queue []string
	// size is the prompt's, kept as it changes.
	size    promptSize
	history []string
	histPos int
	draft   string
	// modal is the open dialog's page name; modalClose runs when it closes.
	modal      string
	modalClose func()
	// approval is the answer channel of the open approval dialog.
	approval chan agent.Decision
	// guard keeps typing meant for the prompt from answering a dialog.
	guard keyGuard
	// askMu keeps one set of the model's questions on screen at a time.
	askMu    sync.Mutex
	indexing bool
	quitting bool
	// tierSet records that Config.Tier was applied.
	tierSet bool
	// talked is set once the open session holds a conversation.
	talked bool
	// turnBlock is the first block of the last turn's lines (its prompt),
	// which /undo takes away with all after it; nil when unknown.
	// turnTyped is the prompt the user typed for it, which /undo puts
	// back ("" for a turn of a plan's answer or /init).
	turnBlock *block
	turnTyped string
	// undone is set once /undo took a turn back, until the next turn.
	undone bool
	// connCancel stops the connect loop; connGen tells its reports from
	// those of a loop it replaced.
	connCancel context.CancelFunc
	connGen    int
}

type connState int

const (
	connecting connState = iota
	online
	offlineState
)

// job is the one agent task that may run at a time: a turn, a compaction,
// an undo, a model switch.
type job struct {
	kind   string
	cancel context.CancelFunc
	start  time.Time
}

// New builds the TUI. Run shows it.
func New(cfg Config, deps Deps) *App {
	if cfg.RetryEvery <= 0 {
		cfg.RetryEvery = 5 * time.Second
	}
	if cfg.MaxLines <= 0 {
		cfg.MaxLines = 5000
	}
	if cfg.KeyGrace <= 0 {
		cfg.KeyGrace = defaultKeyGrace
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	th := newTheme(cfg.NoColor)
	a := &App{
		cfg: cfg, deps: deps, th: th, md: newMarkdown(th), now: cfg.Now,
		app:       tview.NewApplication(),
		retryNow:  make(chan struct{}, 1),
		firstDraw: make(chan struct{}),
		req:       ConnectRequest{Model: cfg.Model, Resume: cfg.Resume},
		histPos:   -1,
	}
	a.req.Approver, a.req.Asker = a, a
	a.pres = newPresenter(a, th, a.md, cfg.Now)
	a.pump = newPump(a.app, a.pres)
	a.build()
	if cfg.Screen != nil {
		a.app.SetScreen(cfg.Screen) // initialises it
	}
	return a
}

// build lays out the widgets.
func (a *App) build() {
	a.conv = newConvo(a.th, a.cfg.MaxLines)
	a.side = tview.NewTextView().SetDynamicColors(false).SetWrap(false)
	a.side.SetBackgroundColor(tcell.ColorDefault)
	a.th.plain(a.side.Box).SetBorder(true).SetTitle(" tools ")
	a.body = tview.NewFlex().AddItem(a.conv, 0, 1, false)

	a.input = tview.NewTextArea().
		SetPlaceholder("Ask about this repository · Enter sends · Alt+Enter new line · / commands · ? help")
	a.input.SetLabel("› ")
	a.input.SetPlaceholderStyle(a.th.dim)
	a.input.SetTextStyle(a.th.text)
	a.input.SetLabelStyle(a.th.userMark)
	a.input.SetInputCapture(a.inputKeys)
	a.input.SetChangedFunc(a.inputChanged)
	a.th.plain(a.input.Box)

	status := newBar(a.statusSpans, a.th.bar)
	footer := newBar(a.footerSpans, a.th.barDim)
	a.queueView = a.newQueueView()
	a.layout = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(status, 1, 0, false).
		AddItem(a.body, 0, 1, false).
		AddItem(a.queueView, 0, 0, false).
		AddItem(newBar(a.ruleSpans, a.th.text), 1, 0, false).
		AddItem(a.input, 1, 0, true).
		AddItem(footer, 1, 0, false)
	a.pages = tview.NewPages().AddPage("main", a.layout, true, true)
	a.th.plain(a.pages.Box)
	a.app.SetRoot(&rootView{Pages: a.pages, a: a}, true).SetFocus(a.input)
	// Bracketed paste: a pasted newline is text, not Enter.
	a.app.EnablePaste(true)
	a.app.SetInputCapture(a.globalKeys)
	a.app.SetAfterDrawFunc(func(tcell.Screen) {
		a.drawOnce.Do(func() { close(a.firstDraw) })
		a.dialogDrawn()
	})
	a.conv.add(&block{kind: kindInfo, short: a.welcome()})
}

// Run shows the TUI until the user quits or ctx is cancelled.
func (a *App) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.jobContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	go a.pump.run()
	go func() {
		select {
		case <-ctx.Done():
			a.pump.stop()
		case <-a.pump.done:
		}
	}()
	a.startConnect(a.req)
	err := a.app.Run()

	cancel()
	a.pump.stop()
	select {
	case <-a.pump.done:
	case <-time.After(2 * time.Second):
		// The loop stopped on its own (a terminal error); the pump may be
		// left waiting on it, which the process exit ends.
	}
	waited := make(chan struct{})
	go func() { a.jobs.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
	}
	a.back.close()
	return err
}

// SessionID is the session open when the TUI stopped, "" if there is
// none or it holds no conversation. Call it after Run returns.
func (a *App) SessionID() string {
	if a.back == nil || !a.talked {
		return ""
	}
	return a.back.SessionID
}

// FirstDraw is closed once the first frame has been drawn.
func (a *App) FirstDraw() <-chan struct{} { return a.firstDraw }

// quit stops the TUI: the running job is cancelled and the pump stops the
// application once it has drawn what is queued.
func (a *App) quit() {
	a.quitting = true
	if a.job != nil {
		a.job.cancel()
	}
	a.pump.stop()
}

// background runs fn as a tracked background job goroutine.
func (a *App) background(fn func()) {
	a.jobs.Add(1)
	go func() {
		defer a.jobs.Done()
		fn()
	}()
}

// say adds an information block to the conversation.
func (a *App) say(lines ...line) {
	a.conv.add(&block{kind: kindInfo, short: lines})
	a.conv.toEnd()
}

// note adds a notice line.
func (a *App) note(text string) {
	a.conv.add(&block{kind: kindNotice, short: noticeLines(a.th, agent.Notice{Level: agent.Info, Text: text})})
	a.conv.toEnd()
}

// warn adds a warning line.
func (a *App) warn(text string) {
	a.conv.add(&block{kind: kindNotice, short: noticeLines(a.th, agent.Notice{Level: agent.Warn, Text: text})})
	a.conv.toEnd()
}

// fail adds an error line.
func (a *App) fail(text string) {
	lines := textLines(text, a.th.errorText)
	if len(lines) > 0 {
		lines[0].spans = append([]span{{text: "✗ ", style: a.th.errorText}}, lines[0].spans...)
	}
	for i := range lines {
		lines[i].hang = 2
	}
	a.conv.add(&block{kind: kindNotice, short: lines})
	a.conv.toEnd()
}
