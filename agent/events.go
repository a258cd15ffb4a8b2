package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// Event is one thing that happened during a turn. The set is closed: Token,
// Thinking, ToolStart, ToolProgress, ToolEnd, Message, Notice, PlanReady
// (plan.go), Escalated (escalate.go) and Done. A
// consumer may merge Token, Thinking and ToolProgress events, but must
// never drop the others.
type Event interface {
	// Type names the event in NDJSON output ("token", "tool_start", …).
	Type() string
}

// Token is a piece of the assistant's answer as it streams.
type Token struct {
	Text string `json:"text"`
}

// Thinking is a piece of the model's reasoning as it streams.
type Thinking struct {
	Text string `json:"text"`
}

// ToolStart says a tool call is about to run.
type ToolStart struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// Repair says how the call was recovered when the model did not use the
	// structured field ("tagged", "fenced", …); empty for native calls.
	Repair string `json:"repair,omitempty"`
	// Subject is what the call is about, as its tool words it
	// (tools.Describe): "agent/loop.go:1-80" for read_file; "" when the
	// arguments name nothing short. It is for people on screen, not part
	// of the NDJSON stream, which carries the arguments themselves.
	Subject string `json:"-"`
}

// ToolEnd says a tool call finished.
type ToolEnd struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
	Summary string `json:"summary"`
	Diff    string `json:"diff,omitempty"`
	// Detail is more for people, never sent to the model: the steps of
	// explore's subagent.
	Detail string `json:"detail,omitempty"`
	// Diagnostics are the problems an edit introduced, which Output
	// already tells the model of.
	Diagnostics []tools.Diagnostic `json:"diagnostics,omitempty"`
	Duration    time.Duration      `json:"duration_ns"`
}

// Problems says what an edit broke, for a tool's line: "2 errors, 1
// warning"; "" when it broke nothing.
func (e ToolEnd) Problems() string {
	errs := 0
	for _, d := range e.Diagnostics {
		if d.Severity == "error" {
			errs++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, count(errs, "error"))
	}
	if w := len(e.Diagnostics) - errs; w > 0 {
		parts = append(parts, count(w, "warning"))
	}
	return strings.Join(parts, ", ")
}

// count is "1 error" or "3 errors".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// ToolProgress is news of a call still running: for explore, the
// subagent's latest step and the tokens it has used so far. A later one
// replaces an earlier one of the same call.
type ToolProgress struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// Message is a complete assistant message, added to the history.
type Message struct {
	Message models.Message `json:"message"`
	// Usage is the request's accounting; nil for a reply cut short.
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is one model request's token accounting.
type Usage struct {
	// Estimate is tern's own count of the prompt it sent.
	Estimate int `json:"estimate"`
	// PromptTokens is what the server evaluated (after any truncation).
	PromptTokens int `json:"prompt_tokens"`
	EvalTokens   int `json:"eval_tokens"`
	NumCtx       int `json:"num_ctx"`
	// Dropped counts history messages left out to fit the window.
	Dropped    int           `json:"dropped"`
	DoneReason string        `json:"done_reason"`
	Duration   time.Duration `json:"duration_ns"`

	// Calibrated is the estimate in the model's tokens, as the request was
	// planned with it; Factor is the correction after this reply.
	Calibrated int     `json:"calibrated"`
	Factor     float64 `json:"factor"`
	// Truncated is set when the server very probably cut the prompt.
	Truncated bool `json:"truncated"`
	// CachedTokens are the prompt tokens the server's prompt cache held:
	// its own count, or with CacheEstimated tern's (see cache.go).
	CachedTokens   int  `json:"cached_tokens"`
	CacheEstimated bool `json:"cache_estimated,omitempty"`
}

// Notice levels.
const (
	Info = "info"
	Warn = "warn"
)

// Notice is something the user should know that is not the model's words:
// a tool mode chosen, a turn limit near, history dropped to fit.
type Notice struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// Done reasons.
const (
	DoneStop     = "stop"      // the model answered
	DoneMaxTurns = "max_turns" // the turn limit was reached
	DoneCanceled = "canceled"  // the user cancelled
	DoneError    = "error"     // the turn could not go on
	DoneStuck    = "stuck"     // the model kept looping after corrections
)

// Done ends a turn. It is always the last event of Run.
type Done struct {
	Reason string `json:"reason"`
	// Turns counts the model requests the turn made.
	Turns        int           `json:"turns"`
	PromptTokens int           `json:"prompt_tokens"`
	EvalTokens   int           `json:"eval_tokens"`
	Duration     time.Duration `json:"duration_ns"`
	// CachedTokens are the prompt tokens the server's prompt cache held,
	// summed over the requests; CacheEstimated says some of them are
	// tern's estimate (Usage.CachedTokens).
	CachedTokens   int    `json:"cached_tokens,omitempty"`
	CacheEstimated bool   `json:"cache_estimated,omitempty"`
	Error          string `json:"error,omitempty"`
	// Escalated names the model the turn moved to when the session's got
	// stuck or the user asked ("" when it did not), and EscalatedTurns
	// counts the requests it answered.
	Escalated      string `json:"escalated,omitempty"`
	EscalatedTurns int    `json:"escalated_turns,omitempty"`
}

// Summary says in one line what the turn cost, for people: the model
// requests, the prompt tokens the server read and the share its prompt
// cache held ("~" when tern estimated it), the tokens generated, and the
// time: "2 requests · 4.1k in, ~88% cached · 312 out · 14.2s".
func (d Done) Summary() string {
	requests := "1 request"
	if d.Turns != 1 {
		requests = fmt.Sprintf("%d requests", d.Turns)
	}
	in := "? in" // the server counted nothing
	if d.PromptTokens > 0 {
		mark := ""
		if d.CacheEstimated {
			mark = "~"
		}
		in = fmt.Sprintf("%s in, %s%d%% cached", Kilo(d.PromptTokens), mark, d.CachedTokens*100/d.PromptTokens)
	}
	return fmt.Sprintf("%s · %s · %s out · %s", requests, in, Kilo(d.EvalTokens), d.Duration.Round(100*time.Millisecond))
}

// Kilo writes a token count briefly: 950, 1.2k, 16k.
func Kilo(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}

func (Token) Type() string        { return "token" }
func (Thinking) Type() string     { return "thinking" }
func (ToolStart) Type() string    { return "tool_start" }
func (ToolEnd) Type() string      { return "tool_end" }
func (ToolProgress) Type() string { return "tool_progress" }
func (Message) Type() string      { return "message" }
func (Notice) Type() string       { return "notice" }
func (Done) Type() string         { return "done" }

// MarshalEvent encodes e as one JSON object with its type in a "type"
// field, as `tern ask --json` prints it.
func MarshalEvent(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	head := `{"type":"` + e.Type() + `"`
	if string(body) == "{}" {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), body[1:]...), nil
}
