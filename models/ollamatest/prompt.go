package ollamatest

import (
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"
)

// fit is how a prompt fitted the window.
type fit struct {
	full    int  // tokens of the whole prompt
	tokens  int  // tokens of the prompt kept, before the runner's cut
	dropped int  // oldest non-system messages left out
	over    bool // the kept prompt still exceeds num_ctx (the runner cuts it)
}

// fitPrompt does what server/prompt.go chatPrompt does: drop messages from
// the front until the rendered prompt fits numCtx, keeping every system
// message and always the last message. What still does not fit is cut by
// the runner to numCtx tokens, so prompt_eval_count is at most numCtx.
func fitPrompt(count func(string) int, msgs []api.Message, tools api.Tools, numCtx int) fit {
	var f fit
	last := len(msgs) - 1
	for i := 0; i <= last; i++ {
		var kept []api.Message
		for _, m := range msgs[:i] {
			if m.Role == "system" {
				kept = append(kept, m)
			}
		}
		n := count(render(append(kept, msgs[i:]...), tools))
		if i == 0 {
			f.full = n
		}
		f.tokens = n
		if n <= numCtx || i == last {
			for _, m := range msgs[:i] {
				if m.Role != "system" {
					f.dropped++
				}
			}
			f.over = n > numCtx
			break
		}
	}
	return f
}

// render is a ChatML-like rendering of the prompt: the tools as JSON, then
// every message with its tool calls, then the assistant's turn. Thinking of
// earlier turns is left out, as model templates do.
func render(msgs []api.Message, tools api.Tools) string {
	var b strings.Builder
	if len(tools) > 0 {
		b.WriteString("<|im_start|>system\n# Tools\n<tools>\n")
		for _, t := range tools {
			data, _ := json.Marshal(t)
			b.Write(data)
			b.WriteByte('\n')
		}
		b.WriteString("</tools><|im_end|>\n")
	}
	for _, m := range msgs {
		b.WriteString("<|im_start|>")
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		for _, tc := range m.ToolCalls {
			b.WriteString("\n<tool_call>\n{\"name\": \"")
			b.WriteString(tc.Function.Name)
			b.WriteString("\", \"arguments\": ")
			b.WriteString(tc.Function.Arguments.String())
			b.WriteString("}\n</tool_call>")
		}
		b.WriteString("<|im_end|>\n")
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}
