package rag

import (
	"slices"
	"testing"
)

func TestSubstantial(t *testing.T) {
	for _, tt := range []struct {
		hit  Hit
		want bool
	}{
		{Hit{Kind: "function", Symbol: "main", Text: "func main() {}"}, true},
		{Hit{Kind: "code", Text: "package calc\n"}, false},
		{Hit{Kind: "text", Text: "secret.txt\n\n"}, false},
		{Hit{Kind: "code", Text: "var (\n\ta = 1\n\tb = 2\n)\n"}, true},
	} {
		if got := Substantial(tt.hit); got != tt.want {
			t.Errorf("Substantial(%q) = %v, want %v", tt.hit.Text, got, tt.want)
		}
	}
}

func TestForPromptKeepsSubstantialHitsUpToPromptHits(t *testing.T) {
	var hits []Hit
	for i := range 2 * PromptHits {
		h := Hit{Path: "a.go", StartLine: i + 1, Kind: "code", Text: "package a\n"}
		if i%2 == 1 {
			h.Symbol = "F"
		}
		hits = append(hits, h)
	}
	got := ForPrompt(hits)
	if len(got) != PromptHits {
		t.Fatalf("ForPrompt kept %d hits, want %d", len(got), PromptHits)
	}
	for i, h := range got {
		if h.Symbol == "" || h.StartLine != 2*i+2 {
			t.Errorf("hit %d = %+v: want the substantial hits in their order", i, h)
		}
	}
}

func TestPackedNamesTheHitsInThePack(t *testing.T) {
	hits := packHits()
	first := Bytes{}.Count(renderHit(hits[0], hits[0].EndLine, hits[0].Text))
	text := Pack(hits, first+10, Bytes{})
	got := Packed(hits, text)
	if !slices.EqualFunc(got, hits[:1], func(a, b Hit) bool { return Ref(a) == Ref(b) }) {
		t.Errorf("Packed = %v, want only %s", got, Ref(hits[0]))
	}
	if Ref(hits[1]) != "b.go:1-42" {
		t.Errorf("Ref = %q", Ref(hits[1]))
	}
}
