package agent

import (
	"path/filepath"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
)

// TestLastFallback: a new session recalls the newest recent fall back of
// the same model, with its session and reason, and nothing of other
// models or of sessions that stayed native.
func TestLastFallback(t *testing.T) {
	ctx := t.Context()
	store, err := session.Open(ctx, filepath.Join(t.TempDir(), "tern.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, ok := LastFallback(ctx, store, "qwen3:8b"); ok {
		t.Fatal("an empty store recalled a fall back")
	}
	newSession := func(model, mode, why string) string {
		s, err := store.Create(ctx, model, "/repo")
		if err != nil {
			t.Fatal(err)
		}
		if mode != "" {
			if err := store.SetMeta(ctx, s.ID, MetaToolMode, mode); err != nil {
				t.Fatal(err)
			}
			if err := store.SetMeta(ctx, s.ID, MetaToolModeWhy, why); err != nil {
				t.Fatal(err)
			}
		}
		return s.ID
	}
	fell := newSession("qwen3:8b", models.ToolModeText, "qwen3:8b wrote 3 unreadable tool calls")
	newSession("llama3.2:3b", models.ToolModeConstrained, "other model")
	newSession("qwen3:8b", "", "")
	got, ok := LastFallback(ctx, store, "qwen3:8b")
	want := models.Fallback{Session: fell, Mode: models.ToolModeText, Why: "qwen3:8b wrote 3 unreadable tool calls"}
	if !ok || got != want {
		t.Errorf("LastFallback = %+v, %v; want %+v", got, ok, want)
	}
	if got, ok := LastFallback(ctx, store, "gemma3:4b"); ok {
		t.Errorf("a model that never fell back recalled %+v", got)
	}
}
