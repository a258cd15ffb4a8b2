package tui

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
)

// Runner runs one turn; *agent.Agent satisfies it. Run is never called
// concurrently, nor together with any other method of the backend.
type Runner interface {
	Run(ctx context.Context, prompt string, emit func(agent.Event)) error
}

// TierControl shows and changes the tool tier (Ctrl+T, /tier, /tools).
// Its methods are called between turns only.
type TierControl interface {
	Tier() int
	// SetTier changes the tier. notice, when set, is shown to the user (for
	// instance that lowering the tier starts a fresh prompt prefix).
	SetTier(ctx context.Context, n int) (notice string, err error)
	// Tools lists every tool with its tier and schema cost.
	Tools() []ToolInfo
}

// ToolInfo describes one tool for the tool list.
type ToolInfo struct {
	Name string
	Tier int
	// Tokens is what the tool's schema costs in the prompt.
	Tokens int
	// Active is set when the model can call the tool now.
	Active bool
}

// Compactor compacts the conversation on request (/compact), reporting
// progress as agent events.
type Compactor interface {
	Compact(ctx context.Context, emit func(agent.Event)) error
}

// Undoer takes back the last turn (/undo): BeginTurn marks the start of
// each turn, PlanUndo says what taking the last one back would change,
// the user confirms, and Undo restores the files it changed and drops it
// from the conversation, and says what it did. (`tern undo` restores a
// whole session.)
type Undoer interface {
	BeginTurn()
	PlanUndo(ctx context.Context) (UndoPlan, error)
	Undo(ctx context.Context, plan UndoPlan) (string, error)
}

// Differ shows what the session changed (/diff): the unified diff from
// the checkpoint taken before its first change to the files now, "" when
// they match.
type Differ interface {
	Diff(ctx context.Context) (string, error)
}

// UndoPlan is what /undo would do.
type UndoPlan struct {
	// Prompt is the last turn's prompt, which leaves the conversation
	// (and goes back into the prompt); "" when there is no turn.
	Prompt string
	// Restore lists the files that get back what they held before the
	// turn; Delete those it created, which go. Kept, when set, says why
	// the files cannot be taken back and stay as they are ("tern connected
	// to the model again since the turn ran"): only the conversation is.
	Restore, Delete []string
	Kept            string
}

// empty reports whether there is nothing to take back.
func (p UndoPlan) empty() bool { return p.Prompt == "" && len(p.Restore)+len(p.Delete) == 0 }

// RAGSwitch turns retrieval of repository context on and off (Ctrl+R).
type RAGSwitch interface {
	RAG() bool
	SetRAG(on bool) (notice string, err error)
}

// SessionLister lists past sessions (Ctrl+S, /sessions); *session.Store
// satisfies it.
type SessionLister interface {
	List(ctx context.Context, limit int) ([]session.Session, error)
}

// Searcher searches the repository index (/search).
type Searcher interface {
	Search(ctx context.Context, query string, k int) ([]SearchHit, error)
}

// SearchHit is one search result.
type SearchHit struct {
	Path               string
	StartLine, EndLine int
	Symbol             string
	Score              float64
	// Snippet is the first lines of the hit, for the preview.
	Snippet string
}

// Ref is the reference /search inserts into the prompt: "path:start-end".
func (h SearchHit) Ref() string {
	if h.StartLine <= 0 {
		return h.Path
	}
	if h.EndLine <= h.StartLine {
		return h.Path + ":" + strconv.Itoa(h.StartLine)
	}
	return h.Path + ":" + strconv.Itoa(h.StartLine) + "-" + strconv.Itoa(h.EndLine)
}

// Indexer builds or updates the repository index (/index). It reports
// progress as it goes and returns a one-line summary.
type Indexer interface {
	Index(ctx context.Context, progress func(IndexProgress)) (string, error)
}

// IndexProgress is how far a step of an index run has got: Done of
// Total things of Unit ("files", "chunks"; files when empty).
type IndexProgress struct {
	Done, Total int
	Unit        string
	// Step says what the run is doing, with which step it is of how
	// many ("step 2 of 2: embedding with nomic-embed-text"); "" says
	// "indexing".
	Step string
	// Path is the file being indexed, if any.
	Path string
}

// NotesWriter drafts the project notes file with the model (/init):
// Prompt is what the model is asked, and WriteNotes writes the draft the
// user accepted and returns its path.
type NotesWriter interface {
	Prompt() string
	WriteNotes(content string) (path string, err error)
}

// ConnectRequest says which session to open with which model.
type ConnectRequest struct {
	// Model is the model to use; empty means the configured or best one.
	Model string
	// Resume is the session to continue; empty starts a new one.
	Resume string
	// Approver answers the agent's approvals, and Asker the model's
	// questions (ask_user); both are the TUI's dialogs.
	Approver agent.Approver
	Asker    Asker
}

// Connector reaches the model and opens a session. Its errors are shown
// to the user as they are, so they should say what fixes them.
type Connector func(ctx context.Context, req ConnectRequest) (*Backend, error)

// Backend is a connected session: the agent and what the status bar shows
// about it. The optional capabilities are nil when this build does not
// have them, and the TUI says so when they are asked for.
type Backend struct {
	Agent     Runner
	SessionID string
	Model     string
	// Why says how the model was chosen ("requested", …).
	Why    string
	Host   string
	NumCtx int
	// PrefixTokens is the estimated size of the prompt before any history.
	PrefixTokens int
	// History is the conversation so far, for a resumed session; Calls
	// what its tools said of each call, by call id.
	History []models.Message
	Calls   map[string]CallSummary
	// Describe says what a call is about (agent.Agent.Describe), for the
	// calls of History; nil shows their arguments instead.
	Describe func(tool string, args json.RawMessage) string
	// Notices are shown once, when the session opens.
	Notices []string
	// Sandbox names what confines the commands the model runs
	// ("bubblewrap", "Landlock"); "" means nothing does, which the status
	// bar shows as a warning.
	Sandbox string
	// Installed lists the models /model can switch to; Ollama is set when
	// the server is Ollama, where `ollama pull` installs more.
	Installed []models.ModelInfo
	Ollama    bool

	Tiers     TierControl
	Compactor Compactor
	Undoer    Undoer
	Differ    Differ
	RAG       RAGSwitch
	Planner   Planner
	Escalator Escalator

	// Hint, when set, says what to do about a turn's failure ("" when it
	// knows nothing to add); the TUI shows it under the error.
	Hint func(error) string

	// Close releases what the backend holds; it may be nil.
	Close func() error
}

// CallSummary is what a tool said of a finished call, as the store keeps
// it: the one line shown, and whether it failed.
type CallSummary struct {
	Summary  string
	IsError  bool
	Duration time.Duration
}

func (b *Backend) close() {
	if b != nil && b.Close != nil {
		_ = b.Close()
	}
}
