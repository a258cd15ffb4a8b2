package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
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
// or an opening bracket or quote (not in user@host): a path in double
// quotes, which may hold spaces (@"notes/my plan.md"), or a bare one,
// which runs to the next space, bracket or quote and may hold any letter
// (@docs/café.md). Either may end in a line range, :10 or :10-20.
var mentionPattern = regexp.MustCompile(`(?:^|[\s(\[{"'` + "`" + `])@(?:"([^"\n]+)"(:\d+(?:-\d+)?)?|([^\s()\[\]{}<>"'` + "`" + `]+))`)

// lineRange is a bare mention's line range suffix.
var lineRange = regexp.MustCompile(`^(.+):(\d+)(?:-(\d+))?$`)

// Mention is one @path of a prompt.
type Mention struct {
	Path string
	// From and To are the lines it names (@path:10-20, or :10 for one);
	// 0 for the whole file.
	From, To int
}

// String writes the mention as it may be typed.
func (m Mention) String() string {
	p := m.Path
	if strings.ContainsAny(p, " \t") {
		p = `"` + p + `"`
	}
	switch {
	case m.From <= 0:
		return "@" + p
	case m.To <= m.From:
		return fmt.Sprintf("@%s:%d", p, m.From)
	}
	return fmt.Sprintf("@%s:%d-%d", p, m.From, m.To)
}

// Mentions returns what a prompt mentions as @path, in order, each once;
// a bare path without trailing punctuation ("see @main.go." → main.go).
func Mentions(prompt string) []Mention {
	var out []Mention
	seen := map[Mention]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(prompt, -1) {
		var mn Mention
		if m[1] != "" {
			mn = Mention{Path: m[1]}
			if m[2] != "" {
				mn.From, mn.To = parseRange(m[2][1:])
			}
		} else {
			p := strings.TrimRight(m[3], ".,;:!?")
			if r := lineRange.FindStringSubmatch(p); r != nil {
				p = r[1]
				mn.From, mn.To = parseRange(r[2] + "-" + r[3])
			}
			if p == "" || p == "." && m[3] != "./" {
				continue
			}
			mn.Path = p
		}
		if !seen[mn] {
			seen[mn] = true
			out = append(out, mn)
		}
	}
	return out
}

// parseRange reads "10-20", "10-" or "10" into the lines from and to.
func parseRange(s string) (from, to int) {
	a, b, _ := strings.Cut(s, "-")
	from, _ = strconv.Atoi(a)
	to, _ = strconv.Atoi(b)
	if to < from {
		to = from
	}
	return from, to
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
			if strings.ContainsAny(p.Path, "./ ") || p.From > 0 {
				send(Notice{Level: Info, Text: fmt.Sprintf("%s is not attached: %s", p, firstLine(res.Output))})
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
// a file with read_file (the lines it names, if any), a directory with
// list_dir. ok is false when neither could.
func (a *Agent) readMention(ctx context.Context, m Mention, limit int) (models.ToolCall, tools.Result, bool) {
	path := m.Path
	run := func(name string) (json.RawMessage, tools.Result, bool) {
		t, ok := a.tools.Get(name)
		if !ok {
			return nil, tools.Errorf("%s is not available", name), false
		}
		in := map[string]any{"path": path}
		if name == "read_file" && m.From > 0 {
			in["offset"], in["limit"] = m.From, m.To-m.From+1
		}
		args, _ := json.Marshal(in)
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
