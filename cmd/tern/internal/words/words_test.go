package words

import "testing"

func TestOrList(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		list []string
		want string
	}{
		{nil, ""},
		{[]string{"auto"}, "auto"},
		{[]string{"auto", "ollama"}, "auto or ollama"},
		{[]string{"auto", "native", "text", "constrained"}, "auto, native, text or constrained"},
	} {
		if got := OrList(tt.list); got != tt.want {
			t.Errorf("OrList(%q) = %q, want %q", tt.list, got, tt.want)
		}
	}
}

// TestDidYouMean: the suggestions a user sees after a mistyped flag, key
// or value, and the words too far from any known one to suggest.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	keys := []string{"model", "host", "max_turns", "max_tier", "tool_mode", "embed_model"}
	for _, tt := range []struct {
		s, want string
	}{
		{"modle", `; did you mean "model"?`}, // a swap is one edit
		{"MODEL", `; did you mean "model"?`}, // case does not count
		{"hots", `; did you mean "host"?`},   // nor in a short word
		{"max_turn", `; did you mean "max_turns"?`},
		{"tool", `; did you mean "tool_mode"?`}, // a prefix of a known key
		{"embed", `; did you mean "embed_model"?`},
		{"temperature", ""}, // nothing near
		{"mo", ""},          // too short to be a prefix
		{"", ""},
	} {
		if got := DidYouMean(tt.s, keys); got != tt.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"tier", "teir", 1}, {"héllo", "hello", 1},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KB"}, {274 << 20, "274 MB"}, {5_200_000_000, "4.8 GB"},
	} {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files", 1200: "1200 files"} {
		if got := Count(n, "file"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
