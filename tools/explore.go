package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

//go:embed explore.md
var exploreDoc string

// Explorer runs a read-only subagent on a task in a fresh conversation of
// its own and returns its report. The agent package implements it (this
// package must not import agent); cmd/tern wires it in.
type Explorer interface {
	Explore(ctx context.Context, t ExploreTask) (ExploreReport, error)
}

// ExploreTask is one explore call.
type ExploreTask struct {
	Task string
	// Files are workspace-relative paths to start from, already checked.
	Files []string
	// CallID identifies the call, under which the subagent's messages are
	// kept in the session.
	CallID string
	// MaxBytes caps the report: the output cap of the call.
	MaxBytes int
	// Progress, when set, takes news of the subagent as it works.
	Progress func(Progress)
}

// ExploreReport is what the subagent found.
type ExploreReport struct {
	// Text is the report the calling model reads.
	Text string
	// Turns, Calls and Tokens say what the exploration cost: model
	// requests, tool calls, and prompt plus generated tokens.
	Turns, Calls, Tokens int
	// Note, when set, says something went short of plan ("stopped at the
	// turn limit").
	Note string
	// Steps is the subagent's conversation in brief, for people.
	Steps string
}

// maxHints caps files_hint: a subagent told to start everywhere starts
// nowhere.
const maxHints = 8

type explore struct {
	Decl
	ws *Workspace
	ex Explorer
}

// NewExplore returns the explore tool: it hands a task to ex, a read-only
// subagent with its own small budget, and returns the subagent's report,
// so that the reads it made never enter the caller's window.
func NewExplore(ws *Workspace, ex Explorer) Tool {
	return &explore{ws: ws, ex: ex, Decl: Declare[exploreArgs]("explore", exploreDoc)}
}

type exploreArgs struct {
	Task  string     `json:"task" tool:"required"`
	Files stringList `json:"files_hint"`
}

func (t *explore) Effect() Effect { return ReadOnly }

func (t *explore) Run(ctx context.Context, in Input) Result {
	var args exploreArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("explore: bad arguments", "%v", err)
	}
	task := strings.TrimSpace(args.Task)
	if task == "" {
		return fail("explore: no task", `task is required, e.g. {"task":"find where the config file is parsed","files_hint":["cmd/"]}`)
	}
	summary := fmt.Sprintf("explore %q", clip(strings.Join(strings.Fields(task), " "), 60))
	if t.ex == nil {
		return fail(summary+": unavailable", "explore is not available in this session; use read_file, grep and glob yourself")
	}
	files, missing := t.hints(args.Files)
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	rep, err := t.ex.Explore(ctx, ExploreTask{Task: task, Files: files, CallID: in.CallID, MaxBytes: limit, Progress: in.Progress})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fail(summary+": cancelled", "the exploration was cancelled")
		}
		return fail(summary+": error", "the exploration failed: %v. Explore yourself with read_file and grep.", err)
	}
	text := strings.TrimSpace(rep.Text)
	if len(missing) > 0 {
		text = fmt.Sprintf("(not found, skipped: %s)\n%s", strings.Join(missing, ", "), text)
	}
	summary += fmt.Sprintf(": %s, %s, %s tokens", plural(rep.Turns, "request", "requests"), plural(rep.Calls, "tool call", "tool calls"), kiloTokens(rep.Tokens))
	if rep.Note != "" {
		summary += " (" + rep.Note + ")"
	}
	return Result{Output: text, Summary: summary, Detail: rep.Steps}
}

// hints keeps the files_hint entries that name something in the
// workspace, relative to its root, and lists the others.
func (t *explore) hints(in []string) (files, missing []string) {
	for _, h := range in {
		h = strings.TrimSpace(h)
		if h == "" || len(files) == maxHints {
			continue
		}
		abs, rel, err := t.ws.Resolve(h, Read)
		if _, serr := os.Stat(abs); err == nil && serr == nil {
			files = append(files, rel)
		} else {
			missing = append(missing, h)
		}
	}
	return files, missing
}

// kiloTokens writes a token count briefly: 950, 1.2k.
func kiloTokens(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// stringList is a list of strings that small models may also send as one
// string.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		if one != "" {
			*l = stringList{one}
		}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}
