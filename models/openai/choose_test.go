package openai

import (
	"errors"
	"testing"

	"github.com/ternhq/tern/models"
)

func TestChooseModel(t *testing.T) {
	two := []Model{{ID: "nomic-embed-text-v1.5"}, {ID: "qwen3-8b"}}
	eight := []Model{{ID: "text-embedding-nomic"}, {ID: "qwen3-8b"}, {ID: "gemma-3-4b"}, {ID: "llama-3.1-8b"},
		{ID: "phi-4"}, {ID: "mistral-7b"}, {ID: "granite-3.3-8b"}, {ID: "qwen2.5-coder-7b"}}
	llama := []Model{{ID: "model.gguf", OwnedBy: "llamacpp"}}
	loaded := []Model{{ID: "qwen3-8b"}, {ID: "phi-4", Loaded: true}, {ID: "text-embedding-nomic", Loaded: true}}
	for _, tt := range []struct {
		name     string
		want     string
		list     []Model
		got, why string
		err      error
	}{
		{"requested", "qwen3-8b", two, "qwen3-8b", "requested", nil},
		{"the only chat model", "", two, "qwen3-8b", "the server's only chat model", nil},
		{"the first of several", "", eight, "qwen3-8b", "the first of the 7 chat models the server lists; --model chooses another", nil},
		{"the loaded one", "", loaded, "phi-4", "the chat model the server has loaded; --model chooses another", nil},
		{"llama-server takes any name", "anything", llama, "anything", "requested", nil},
		{"not served", "phi4", two, "", "", models.ErrModelNotFound},
		{"only embeddings", "", two[:1], "", "", models.ErrNoChatModel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, why, err := ChooseModel(tt.want, tt.list)
			if got != tt.got || why != tt.why || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("ChooseModel = %q, %q, %v; want %q, %q, %v", got, why, err, tt.got, tt.why, tt.err)
			}
		})
	}
}
