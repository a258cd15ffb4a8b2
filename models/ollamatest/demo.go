package ollamatest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// DemoChunkDelay is the pace of DemoResponder's stream: slow enough to
// watch tokens arrive, fast enough not to bore.
const DemoChunkDelay = 20 * time.Millisecond

// DemoResponder plays a helpful but small model, so that a person can try
// tern without Ollama. To a new user message it first answers with a
// list_dir call on "." when the request offers list_dir as a native tool;
// once a tool result is in the history it answers in a few sentences that
// name what the tool returned. Without list_dir it explains what it is.
func DemoResponder(req api.ChatRequest) Reply {
	lastUser := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			lastUser = i
		}
	}
	question := ""
	if lastUser >= 0 {
		question = strings.TrimSpace(req.Messages[lastUser].Content)
	}
	var result *api.Message
	for i := lastUser + 1; i < len(req.Messages); i++ {
		if req.Messages[i].Role == "tool" {
			result = &req.Messages[i]
		}
	}

	reply := Reply{ChunkDelay: DemoChunkDelay}
	switch {
	case result != nil:
		reply.Thinking = "The tool answered; I can sum up what it returned."
		reply.Content = describeResult(result)
	case offers(req.Tools, "list_dir"):
		reply.Thinking = "I should look at the files before I answer."
		reply.ToolCalls = []Call{{Name: "list_dir", Args: listDirArgs(req.Tools)}}
	default:
		reply.Content = fmt.Sprintf("This is fakeollama, a stand-in for a real model, so I cannot really answer %q. "+
			"Offer me the list_dir tool and I will look around the repository; "+
			"for real answers, start Ollama and pull a model.", clip(question, 60))
	}
	return reply
}

func offers(tools api.Tools, name string) bool {
	for _, t := range tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// listDirArgs fills the tool's path parameter, whatever its schema calls
// it: "path" if present, else the first required or first property.
func listDirArgs(tools api.Tools) string {
	param := "path"
	for _, t := range tools {
		if t.Function.Name != "list_dir" {
			continue
		}
		p := t.Function.Parameters
		if _, ok := p.Properties.Get("path"); ok || p.Properties.Len() == 0 {
			break
		}
		if len(p.Required) > 0 {
			param = p.Required[0]
			break
		}
		for name := range p.Properties.All() {
			param = name
			break
		}
	}
	args, _ := json.Marshal(map[string]string{param: "."})
	return string(args)
}

// describeResult quotes the first lines (up to eight) of a tool's output.
// It counts lines, not entries: a tool's output may have a header line
// (list_dir's "./"), which a count of entries would disagree with.
func describeResult(m *api.Message) string {
	var names []string
	total := 0
	for line := range strings.Lines(m.Content) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		total++
		if len(names) < 8 {
			names = append(names, clip(line, 40))
		}
	}
	tool := m.ToolName
	if tool == "" {
		tool = "the tool"
	}
	if total == 0 {
		return fmt.Sprintf("I ran %s, but it returned nothing. The directory may be empty.", tool)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "I ran %s and it returned %d lines. ", tool, total)
	fmt.Fprintf(&b, "They begin: %s", strings.Join(names, ", "))
	if total > len(names) {
		fmt.Fprintf(&b, ", and %d more", total-len(names))
	}
	b.WriteString(". ")
	b.WriteString("I am only a fake model, so that is as far as I go; a real model would now read the files that matter.")
	return b.String()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
