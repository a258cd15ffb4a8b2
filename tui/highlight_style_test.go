package tui

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
)

// TestCodeStyleIsGithubDark: the style written out in highlight.go is
// chroma's github-dark, entry for entry.
func TestCodeStyleIsGithubDark(t *testing.T) {
	want, got := styles.Get("github-dark"), codeStyle()
	if want.Name != "github-dark" {
		t.Fatalf("chroma has no github-dark style")
	}
	for _, tt := range want.Types() {
		if w, g := want.Get(tt), got.Get(tt); w != g {
			t.Errorf("%v: %v, chroma's github-dark %v", tt, g, w)
		}
	}
	for tt := range chroma.StandardTypes {
		if w, g := want.Get(tt), got.Get(tt); w != g {
			t.Errorf("%v: %v, chroma's github-dark %v", tt, g, w)
		}
	}
}
