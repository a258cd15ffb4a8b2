package budget

import (
	"testing"

	"github.com/ternhq/tern/models"
)

func msg(role models.Role, content string) models.Message {
	return models.Message{Role: role, Content: content}
}

// costByLen makes a message cost its content length, so tests read plainly.
func costByLen(m models.Message) int { return len(m.Content) }

func TestFit(t *testing.T) {
	u1 := msg(models.RoleUser, "aaaa")            // 4
	a1 := msg(models.RoleAssistant, "bbbbbbbbbb") // 10
	u2 := msg(models.RoleUser, "cc")              // 2
	call := models.Message{Role: models.RoleAssistant, Content: "d"}
	res := msg(models.RoleTool, "eeeeeeeeeeeeeeeeeeee") // 20
	a2 := msg(models.RoleAssistant, "ff")               // 2
	history := []models.Message{u1, a1, u2, call, res, a2}

	tests := []struct {
		name      string
		available int
		want      []models.Message
	}{
		{"everything fits", 100, history},
		{"earlier turn dropped whole", 30, []models.Message{u2, call, res, a2}},
		{"current turn too big keeps question and newest step", 10, []models.Message{u2, a2}},
		{"nothing fits keeps the last message", 1, []models.Message{a2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			costs := make([]int, len(history))
			for i, m := range history {
				costs[i] = costByLen(m)
			}
			var got []models.Message
			for _, i := range FitIndices(history, costs, tt.available) {
				got = append(got, history[i])
			}
			if len(got) != len(tt.want) {
				t.Fatalf("kept %d messages %v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i].Content != tt.want[i].Content {
					t.Errorf("kept[%d] = %q, want %q", i, got[i].Content, tt.want[i].Content)
				}
			}
			if got[0].Role == models.RoleTool {
				t.Error("kept history starts with a tool result")
			}
		})
	}
}
