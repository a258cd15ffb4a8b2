package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/words"
)

// Task outcomes.
const (
	Pass  = "pass"  // the check held
	Fail  = "fail"  // the run ended but the check did not hold
	Skip  = "skip"  // the build lacks a tool the task needs
	Error = "error" // the run could not be made (no model, a broken fixture)
)

// Result is the outcome of one task.
type Result struct {
	Task   string `json:"task"`
	Tier   int    `json:"tier"`
	Status string `json:"status"`
	// Why says what failed, or why the task was skipped.
	Why string `json:"why,omitempty"`
	// Done is the agent's done reason ("stop", "max_turns", "stuck", …).
	Done string `json:"done,omitempty"`
	// Turns counts model requests.
	Turns     int `json:"turns"`
	ToolCalls int `json:"tool_calls"`
	// Repaired counts calls recovered other than natively, by repair label
	// ("bare+alias": 1).
	Repaired map[string]int `json:"repaired,omitempty"`
	// Invalid counts calls that could not run as written: unreadable call
	// text, unknown tools, bad arguments.
	Invalid int `json:"invalid"`
	// Mode is the tool mode the task ended in: "native", "text" or
	// "constrained" (a session may fall back mid-task).
	Mode string `json:"mode,omitempty"`
	// Escalated names the model the task's turn moved to when the model
	// got stuck (--escalate-model), which answered EscalatedTurns of its
	// requests; the escalation helped when the task passed: without it
	// the turn would have stopped as stuck.
	Escalated      string `json:"escalated,omitempty"`
	EscalatedTurns int    `json:"escalated_turns,omitempty"`
	// Valid counts calls that ran as the model meant them (repaired or
	// not); Attempts counts every call the model tried, unreadable ones
	// included. Valid/Attempts is the share of valid calls.
	Valid        int           `json:"valid"`
	Attempts     int           `json:"attempts"`
	PromptTokens int           `json:"prompt_tokens"`
	EvalTokens   int           `json:"eval_tokens"`
	Wall         time.Duration `json:"wall_ns"`
	Answer       string        `json:"answer,omitempty"`
}

// ModeSummary adds up the calls of the tasks run in one tool mode.
type ModeSummary struct {
	Tasks    int `json:"tasks"`
	Passed   int `json:"passed"`
	Attempts int `json:"attempts"`
	Valid    int `json:"valid"`
	// Share is Valid/Attempts, the share of valid calls (0 with no calls).
	Share float64 `json:"share"`
}

// Report is the outcome of a suite run.
type Report struct {
	// Model is the model that ran, or "replay" for recorded transcripts;
	// EscalateModel the model stuck turns moved to.
	Model         string   `json:"model"`
	EscalateModel string   `json:"escalate_model,omitempty"`
	Replay        bool     `json:"replay"`
	Results       []Result `json:"results"`
	Summary       Summary  `json:"summary"`
}

// Summary adds the results up.
type Summary struct {
	Tasks        int            `json:"tasks"`
	Passed       int            `json:"passed"`
	Failed       int            `json:"failed"`
	Skipped      int            `json:"skipped"`
	Errors       int            `json:"errors"`
	Turns        int            `json:"turns"`
	ToolCalls    int            `json:"tool_calls"`
	Repaired     map[string]int `json:"repaired,omitempty"`
	Invalid      int            `json:"invalid"`
	PromptTokens int            `json:"prompt_tokens"`
	Wall         time.Duration  `json:"wall_ns"`
	// Modes sums the calls per tool mode, to compare native, text and
	// constrained calls of one model (tern eval --modes).
	Modes map[string]*ModeSummary `json:"modes,omitempty"`
	// Escalated counts the tasks whose turn moved to the escalation
	// model, and Helped those of them that passed.
	Escalated int `json:"escalated,omitempty"`
	Helped    int `json:"helped,omitempty"`
}

// Add appends a result and updates the summary.
func (r *Report) Add(res Result) {
	r.Results = append(r.Results, res)
	s := &r.Summary
	s.Tasks++
	switch res.Status {
	case Pass:
		s.Passed++
	case Fail:
		s.Failed++
	case Skip:
		s.Skipped++
	default:
		s.Errors++
	}
	s.Turns += res.Turns
	if res.Escalated != "" {
		s.Escalated++
		if res.Status == Pass {
			s.Helped++
		}
	}
	s.ToolCalls += res.ToolCalls
	s.Invalid += res.Invalid
	s.PromptTokens += res.PromptTokens
	s.Wall += res.Wall
	for k, v := range res.Repaired {
		if s.Repaired == nil {
			s.Repaired = map[string]int{}
		}
		s.Repaired[k] += v
	}
	if res.Mode != "" && res.Status != Skip {
		if s.Modes == nil {
			s.Modes = map[string]*ModeSummary{}
		}
		m := s.Modes[res.Mode]
		if m == nil {
			m = &ModeSummary{}
			s.Modes[res.Mode] = m
		}
		m.Tasks++
		if res.Status == Pass {
			m.Passed++
		}
		m.Attempts += res.Attempts
		m.Valid += res.Valid
		if m.Attempts > 0 {
			m.Share = float64(m.Valid) / float64(m.Attempts)
		}
	}
}

// OK reports whether no task failed or errored.
func (r Report) OK() bool { return r.Summary.Failed == 0 && r.Summary.Errors == 0 }

// WriteJSON writes the report as one indented JSON document.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes one line per task, then the totals and the reasons of
// failures and skips.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "TASK\tTIER\tMODE\tRESULT\tTURNS\tCALLS\tREPAIRED\tINVALID\tPROMPT TOK\tWALL"
	if r.EscalateModel != "" {
		head += "\tESCALATED"
	}
	fmt.Fprintln(tw, head)
	for _, res := range r.Results {
		mode := res.Mode
		if mode == "" {
			mode = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%s", res.Task, res.Tier, mode, res.Status, res.Turns,
			res.ToolCalls, repairs(res.Repaired), res.Invalid, res.PromptTokens, res.Wall.Round(time.Millisecond))
		if r.EscalateModel != "" {
			fmt.Fprintf(tw, "\t%s", escalation(res))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	fmt.Fprintf(w, "\n%s: %s, %d passed, %d failed, %d skipped, %s; %s, %s (%d repaired, %d invalid), %s, %s\n",
		r.Model, words.Count(s.Tasks, "task"), s.Passed, s.Failed, s.Skipped, words.Count(s.Errors, "error"),
		words.Count(s.Turns, "turn"), words.Count(s.ToolCalls, "tool call"), total(s.Repaired), s.Invalid,
		words.Count(s.PromptTokens, "prompt token"), s.Wall.Round(time.Millisecond))
	if r.EscalateModel != "" {
		fmt.Fprintf(w, "escalated to %s: %d of %d tasks, %d of them passed after it\n", r.EscalateModel, s.Escalated, s.Tasks, s.Helped)
	}
	for _, mode := range slices.Sorted(maps.Keys(s.Modes)) {
		m := s.Modes[mode]
		fmt.Fprintf(w, "%s %s: %d of %d tasks passed; %d of %d calls valid (%.0f%%)\n",
			r.Model, mode, m.Passed, m.Tasks, m.Valid, m.Attempts, 100*m.Share)
	}
	for _, res := range r.Results {
		if res.Why != "" {
			fmt.Fprintf(w, "  %s %s: %s\n", res.Task, res.Status, firstLine(res.Why))
		}
	}
	return nil
}

// escalation says whether a task's turn escalated and whether that
// helped: "-", "helped (2 req)" or "no help (3 req)".
func escalation(res Result) string {
	switch {
	case res.Escalated == "":
		return "-"
	case res.Status == Pass:
		return fmt.Sprintf("helped (%d req)", res.EscalatedTurns)
	}
	return fmt.Sprintf("no help (%d req)", res.EscalatedTurns)
}

// repairs renders repair counts as "bare:1 tagged+json:2", or "-".
func repairs(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// WriteList writes the tasks one per line: name, tier, title, and the
// failure shapes their transcripts exercise.
func WriteList(w io.Writer, tasks []Task) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range tasks {
		shapes := ""
		if len(t.Shapes) > 0 {
			shapes = "[" + strings.Join(t.Shapes, ", ") + "]"
		}
		fmt.Fprintf(tw, "%s\ttier %d\t%s\t%s\n", t.Name, t.Tier, t.Title, shapes)
	}
	return tw.Flush()
}
