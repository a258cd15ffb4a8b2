package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// This file attaches the files a prompt mentions as @path: each is read
// with read_file (a directory, @dir/, with list_dir) before the first
// request, and enters the history as a call of the assistant's with its
// result, as if the model had read it first. So the attachment is kept in
// the session, shown as a tool line, paged and capped like any read,
// counted by the budget, pruned and compacted like any output, and known
// as read to the tools that check it; and the sandbox applies, since the
// tool does the reading.

// maxMentions bounds the attachments of one prompt.
const maxMentions = 8

// mentionPattern finds @path at the start of the prompt or after a space
// or an opening bracket or quote (not in user@host).
var mentionPattern = regexp.MustCompile(`(?:^|[\s(\[{"'` + "`" + `])@([\w./~+\-]+)`)

// Mentions returns the paths a prompt mentions as @path, in order, each
// once, without trailing punctuation ("see @main.go." → main.go).
func Mentions(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(prompt, -1) {
		p := strings.TrimRight(m[1], ".,;:!?")
		if p == "" || p == "." && m[1] != "./" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// attachMentions reads the files the prompt mentions and adds them to the
// history. A mention that names no file is left as written; when it
// looks like a path the user is told.
func (a *Agent) attachMentions(ctx context.Context, t *turn, prompt string, send func(Event)) error {
	paths := Mentions(prompt)
	if len(paths) == 0 {
		return nil
	}
	if len(paths) > maxMentions {
		send(Notice{Level: Warn, Text: fmt.Sprintf("only the first %d of the %d mentioned paths are attached", maxMentions, len(paths))})
		paths = paths[:maxMentions]
	}
	limit := a.outputLimit(t, len(paths))
	var calls []models.ToolCall
	var results []tools.Result
	for _, p := range paths {
		c, res, ok := a.readMention(ctx, p, limit)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !ok {
			if strings.ContainsAny(p, "./") {
				send(Notice{Level: Info, Text: fmt.Sprintf("@%s is not attached: %s", p, firstLine(res.Output))})
			}
			continue
		}
		calls, results = append(calls, c), append(results, res)
	}
	if len(calls) == 0 {
		return nil
	}
	// The prompt was saved already; the attachments follow it.
	if err := a.append(ctx, t, models.Message{Role: models.RoleAssistant, ToolCalls: calls}); err != nil {
		return err
	}
	for i, c := range calls {
		res := results[i]
		send(ToolStart{ID: c.ID, Name: c.Name, Args: c.Arguments, Repair: RepairMention, Subject: a.Describe(c.Name, c.Arguments)})
		send(ToolEnd{ID: c.ID, Name: c.Name, Output: res.Output, Summary: res.Summary})
		t.rememberResult(c, res.Output)
		if err := a.rec.RecordToolCall(ctx, a.cfg.SessionID, session.ToolCallRecord{
			CallID: c.ID, Name: c.Name, Args: c.Arguments, Output: res.Output, Summary: res.Summary, Repair: RepairMention,
		}); err != nil {
			a.log.Error("record tool call", "tool", c.Name, "err", err)
		}
		if err := a.append(ctx, t, models.Message{Role: models.RoleTool, Content: res.Output, ToolName: c.Name, ToolCallID: c.ID}); err != nil {
			return err
		}
	}
	return nil
}

// RepairMention labels the calls that attach a prompt's @path mentions.
const RepairMention = "mention"

// readMention reads one mentioned path, its output capped at limit bytes:
// a file with read_file, a directory with list_dir. ok is false when
// neither could.
func (a *Agent) readMention(ctx context.Context, path string, limit int) (models.ToolCall, tools.Result, bool) {
	run := func(name string) (json.RawMessage, tools.Result, bool) {
		t, ok := a.tools.Get(name)
		if !ok {
			return nil, tools.Errorf("%s is not available", name), false
		}
		args, _ := json.Marshal(map[string]string{"path": path})
		res := t.Run(ctx, tools.Input{Args: args, Limit: limit})
		return args, res, !res.IsError
	}
	name := "read_file"
	if strings.HasSuffix(path, "/") {
		name = "list_dir"
	}
	args, res, ok := run(name)
	if !ok && name == "read_file" && strings.HasSuffix(res.Summary, ": directory") {
		name = "list_dir"
		args, res, ok = run(name)
	}
	if !ok {
		return models.ToolCall{}, res, false
	}
	a.callSeq++
	return models.ToolCall{ID: fmt.Sprintf("call_%d", a.callSeq), Name: name, Arguments: args}, res, true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
