package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

// benchMessage is the i-th message of a typical session: a user prompt, an
// assistant reply with a tool call, then the tool's output (~1.5 KB).
func benchMessage(i int) models.Message {
	switch i % 3 {
	case 0:
		return models.Message{Role: models.RoleUser, Content: fmt.Sprintf("Step %d: find where the config is parsed and add a test for empty input.", i)}
	case 1:
		return models.Message{Role: models.RoleAssistant, Content: "Let me look.", ToolCalls: []models.ToolCall{{
			ID: fmt.Sprintf("call_%d", i), Name: "grep",
			Arguments: json.RawMessage(`{"pattern": "parseConfig", "path": "internal/", "max": 20}`),
		}}}
	default:
		return models.Message{Role: models.RoleTool, ToolName: "grep", ToolCallID: fmt.Sprintf("call_%d", i-1),
			Content: strings.Repeat("internal/config/parse.go:42: func parseConfig(r io.Reader) (*Config, error) {\n", 20)}
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	s := mustOpen(b)
	sess, err := s.Create(b.Context(), "m", "/d")
	if err != nil {
		b.Fatal(err)
	}
	msgs := []models.Message{benchMessage(0), benchMessage(1), benchMessage(2)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.AppendMessage(b.Context(), sess.ID, msgs[i%3]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkMessages(b *testing.B) {
	for _, n := range []int{30, 200} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) {
			s := mustOpen(b)
			sess, err := s.Create(b.Context(), "m", "/d")
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if err := s.AppendMessage(b.Context(), sess.ID, benchMessage(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				msgs, err := s.Messages(b.Context(), sess.ID)
				if err != nil || len(msgs) != n {
					b.Fatalf("%d messages, %v", len(msgs), err)
				}
			}
		})
	}
}
