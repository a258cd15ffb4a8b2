//go:build realollama

package ollama_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
)

// realTools are tern's tier-0 to tier-2 tools as the model sees them.
var realTools = []models.ToolSpec{
	{Name: "read_file", Description: "Read a text file.", Parameters: models.Schema(
		models.Param{Name: "path", Type: "string", Required: true},
		models.Param{Name: "offset", Type: "integer"},
		models.Param{Name: "limit", Type: "integer"})},
	{Name: "list_dir", Description: "List a directory.", Parameters: models.Schema(models.Param{Name: "path", Type: "string"})},
	{Name: "grep", Description: "Search file contents.", Parameters: models.Schema(
		models.Param{Name: "pattern", Type: "string", Required: true},
		models.Param{Name: "path", Type: "string"})},
	{Name: "edit_file", Description: "Replace text in a file.", Parameters: models.Schema(
		models.Param{Name: "path", Type: "string", Required: true},
		models.Param{Name: "old_string", Type: "string", Required: true},
		models.Param{Name: "new_string", Type: "string", Required: true})},
	{Name: "run_command", Description: "Run a shell command.", Parameters: models.Schema(
		models.Param{Name: "command", Type: "string", Required: true},
		models.Param{Name: "timeout", Type: "integer"})},
}

// realSamples is how many replies each mode is measured over.
const realSamples = 24

// TestRealConstrainedReplies asks tiny-tools (random weights, so it writes
// whatever its logits say) the same question realSamples times in each
// tool mode and counts what the replies are. Held to the constrained
// schema, every reply must read as one valid call or an answer: the
// server's grammar leaves no other choice, even to noise, save a reply
// tern's repetition guard stopped midway (at most a quarter). The native and
// text modes are measured for comparison (their numbers are logged, not
// asserted: noise seldom writes a valid call).
func TestRealConstrainedReplies(t *testing.T) {
	host := os.Getenv("TERN_REAL_OLLAMA_HOST")
	if host == "" {
		t.Fatal("TERN_REAL_OLLAMA_HOST is not set: run make test-real, or start a server from ../shared/real-ollama and set it to host:port")
	}
	client, err := ollama.New(host)
	if err != nil {
		t.Fatal(err)
	}
	user := models.Message{Role: models.RoleUser, Content: "What does main.go do? Read it, then answer."}
	temp := 1.0
	base := models.Request{Model: "tiny-tools", Options: models.Options{NumCtx: 2048, NumPredict: 1024, Temperature: &temp}}
	limits := models.ConstrainedLimitsFor(realTools, base.Options.NumPredict)

	// tiny-tools runs on Ollama's Go engine, tiny-tools-llama on the
	// llama.cpp runner: both grammar paths are measured.
	for _, model := range []string{"tiny-tools", "tiny-tools-llama"} {
		for _, mode := range []string{"native", "text", "constrained"} {
			t.Run(model+"/"+mode, func(t *testing.T) {
				req := base
				req.Model = model
				switch mode {
				case "native":
					req.Messages = []models.Message{{Role: models.RoleSystem, Content: "You are a coding agent."}, user}
					req.Tools = realTools
				case "text":
					req.Messages = []models.Message{{Role: models.RoleSystem, Content: "You are a coding agent. Call a tool by replying <tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>."}, user}
				case "constrained":
					req.Messages = []models.Message{{Role: models.RoleSystem, Content: "You are a coding agent. Reply with one JSON object: {\"name\": …, \"arguments\": {…}} or {\"answer\": …}."}, user}
					req.Format = models.ConstrainedSchema(realTools, limits)
					req.Options.Stop = []string{"\u0001"} // as the agent sends it: the grammar ends the reply
				}
				var calls, answers, invalid, cut, failed, atLimit, repeated int
				for i := range realSamples {
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					reply, err := client.Chat(ctx, req, nil)
					cancel()
					if err != nil {
						failed++
						if mode == "constrained" {
							t.Errorf("sample %d: %v", i, err)
						}
						continue
					}
					if reply.DoneReason == models.DoneRepetition {
						// tern's own guard stopped noise repeating itself,
						// wherever it was in the grammar's JSON: not the
						// grammar's doing (the agent corrects such a reply).
						repeated++
						continue
					}
					if reply.DoneReason == "length" {
						cut++
					}
					var rec models.Recovery
					if mode == "constrained" {
						// Whether it parses; a string that filled its bound is
						// counted apart (the agent refuses such a call, as it
						// may be cut short).
						rec = models.RepairConstrainedReply(reply.Message, realTools, models.ConstrainedLimits{})
						if r := models.RepairConstrainedReply(reply.Message, realTools, limits); len(r.Calls) == 1 && r.Calls[0].Problem != "" {
							atLimit++
						}
					} else {
						rec = models.RepairReply(reply.Message, realTools)
					}
					ok := true
					for _, c := range rec.Calls {
						if c.Problem != "" {
							ok = false
						}
					}
					switch {
					case len(rec.Calls) > 0 && ok:
						calls++
					case len(rec.Calls) > 0 || rec.Broken != "":
						invalid++
					default:
						answers++
						if mode == "constrained" {
							if _, isAnswer := models.ConstrainedAnswer(reply.Message.Content); !isAnswer {
								invalid++
								answers--
							}
						}
					}
					if mode == "constrained" && (!ok || rec.Broken != "" || len(rec.Calls) > 1 || (len(rec.Calls) == 0 && reply.DoneReason == "length")) {
						t.Errorf("sample %d (done %s) is neither one valid call nor an answer:\n%s", i, reply.DoneReason, clip(reply.Message.Content))
					}
				}
				t.Logf("%s %s: %d replies: %d valid calls (%.0f%%; %d with a string at its bound), %d invalid, %d plain text or answers, %d cut at the length limit, %d stopped as repetition, %d failed requests",
					model, mode, realSamples, calls, 100*float64(calls)/realSamples, atLimit, invalid, answers, cut, repeated, failed)
				if mode == "constrained" && (calls+answers+repeated != realSamples || repeated > realSamples/4) {
					t.Errorf("constrained: %d of %d replies were valid calls or answers, %d stopped as repetition", calls+answers, realSamples, repeated)
				}
			})
		}
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}
