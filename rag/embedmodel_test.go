package rag

import "testing"

func TestEmbedModelKeys(t *testing.T) {
	tests := []struct {
		name, key string
		prefixed  bool
	}{
		{"nomic-embed-text", "nomic-embed-text (task prefixes)", true},
		{"nomic-embed-text:latest", "nomic-embed-text (task prefixes)", true},
		{"nomic-embed-text:v1.5", "nomic-embed-text:v1.5 (task prefixes)", true},
		{"mxbai-embed-large", "mxbai-embed-large (task prefixes)", true},
		{"all-minilm", "all-minilm", false},
		{"library/all-minilm:33m", "library/all-minilm:33m", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewEmbedModel(tt.name)
			if m.Key() != tt.key {
				t.Errorf("key = %q, want %q", m.Key(), tt.key)
			}
			if back := ParseEmbedKey(m.Key()); back != m {
				t.Errorf("ParseEmbedKey(%q) = %+v, want %+v", m.Key(), back, m)
			}
		})
	}
	// An index recorded without the mark holds plain vectors.
	if m := ParseEmbedKey("nomic-embed-text"); m.Doc != "" || m.Query != "" {
		t.Errorf("an unmarked key got prefixes: %+v", m)
	}
}
