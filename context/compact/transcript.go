package compact

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
)

// The most of one message a transcript shows, in tokens: tool outputs are
// mostly re-readable, so they get less.
const (
	transcriptToolMax    = 200
	transcriptMessageMax = 600
)

// Transcript renders messages as plain text for the summary prompt, one
// "Role: text" block each, tool calls as "→ name {args}", every message cut
// to a few hundred tokens and the whole to max (its start and end kept).
func Transcript(msgs []models.Message, count func(string) int, max int) string {
	var b strings.Builder
	for _, m := range msgs {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch m.Role {
		case models.RoleTool:
			fmt.Fprintf(&b, "Tool result (%s): %s", m.ToolName, budget.Shorten(count, strings.TrimSpace(m.Content), transcriptToolMax))
		case models.RoleUser:
			if content, ok := strings.CutPrefix(m.Content, SummaryPrefix); ok {
				fmt.Fprintf(&b, "Earlier notes:\n%s", content)
				continue
			}
			fmt.Fprintf(&b, "User: %s", budget.Shorten(count, strings.TrimSpace(m.Content), transcriptMessageMax))
		default:
			fmt.Fprintf(&b, "%s: %s", roleName(m.Role), budget.Shorten(count, strings.TrimSpace(m.Content), transcriptMessageMax))
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "\n→ %s %s", c.Name, strings.Join(strings.Fields(string(c.Arguments)), " "))
		}
	}
	return budget.Shorten(count, b.String(), max)
}

func roleName(r models.Role) string {
	switch r {
	case models.RoleAssistant:
		return "Assistant"
	case models.RoleSystem:
		return "System"
	}
	return string(r)
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// Clean checks a model's summary and returns its notes. It drops a
// <think> block, and refuses (with ErrBadSummary) a reply that is empty, is
// a tool call, shows fewer than two of the parts asked for, or repeats
// itself, as small models' replies sometimes do.
func Clean(reply string) (string, error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(reply, ""))
	if s == "" {
		return "", fmt.Errorf("%w: the model returned nothing", ErrBadSummary)
	}
	if strings.Contains(s, "<tool_call>") || strings.HasPrefix(s, "{") {
		return "", fmt.Errorf("%w: the model answered with a tool call", ErrBadSummary)
	}
	lower := strings.ToLower(s)
	found := 0
	for _, h := range prompts.SummaryHeadings() {
		if strings.Contains(lower, strings.ToLower(strings.TrimSuffix(h, ":"))) {
			found++
		}
	}
	if found < 2 {
		return "", fmt.Errorf("%w: it does not have the parts asked for (goal, files, decisions, …)", ErrBadSummary)
	}
	var lines []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	seen := map[string]bool{}
	for _, line := range lines {
		seen[line] = true
	}
	if len(lines) >= 8 && len(seen)*2 < len(lines) {
		return "", fmt.Errorf("%w: it repeats itself", ErrBadSummary)
	}
	return s, nil
}
