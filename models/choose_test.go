package models

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestChooseModel(t *testing.T) {
	chat := []Capability{CapCompletion}
	tools := []Capability{CapCompletion, CapTools}
	known := map[string]ModelInfo{
		"qwen3:8b":          {Name: "qwen3:8b", ParameterSize: "8.2B", Capabilities: tools},
		"qwen3:32b":         {Name: "qwen3:32b", ParameterSize: "32B", Capabilities: tools},
		"llama3.2:3b":       {Name: "llama3.2:3b", ParameterSize: "3.2B", Capabilities: tools},
		"gemma2:9b":         {Name: "gemma2:9b", ParameterSize: "9B", Capabilities: chat},
		"nomic-embed-text":  {Name: "nomic-embed-text", Capabilities: []Capability{CapEmbedding}},
		"mystery:latest":    {Name: "mystery:latest"},
		"unshowable:latest": {Name: "unshowable:latest"},
	}
	show := func(_ context.Context, name string) (ModelInfo, error) {
		if name == "unshowable:latest" {
			return ModelInfo{}, errors.New("boom")
		}
		return known[name], nil
	}
	list := func(names ...string) []ModelInfo {
		var l []ModelInfo
		for _, n := range names {
			l = append(l, ModelInfo{Name: n})
		}
		return l
	}
	for _, tt := range []struct {
		name      string
		want      string
		installed []ModelInfo
		got, why  string
		err       string
	}{
		{"requested", "qwen3:32b", list("qwen3:8b", "qwen3:32b"), "qwen3:32b", "requested", ""},
		{"latest", "mystery", list("mystery:latest"), "mystery:latest", "requested", ""},
		{"not installed", "phi4", list("qwen3:8b"), "", "", "model not found: phi4"},
		{"embedding", "nomic-embed-text", list("nomic-embed-text"), "", "", "is an embedding model and cannot chat (capabilities: embedding)"},
		{"tools and size first", "", list("gemma2:9b", "qwen3:32b", "llama3.2:3b", "qwen3:8b", "nomic-embed-text"), "qwen3:8b", "best installed model with tool support", ""},
		{"small beats big", "", list("qwen3:32b", "llama3.2:3b"), "llama3.2:3b", "best installed model with tool support", ""},
		{"no tools", "", list("gemma2:9b", "unshowable:latest"), "gemma2:9b", "no installed model supports tools natively; best chat model", ""},
		{"none", "", list("nomic-embed-text"), "", "", ErrNoChatModel.Error()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, why, err := ChooseModel(t.Context(), tt.want, tt.installed, show)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.got || why != tt.why {
				t.Errorf("ChooseModel = %q, %q, %v; want %q, %q", got, why, err, tt.got, tt.why)
			}
		})
	}
}

func TestBillions(t *testing.T) {
	for in, want := range map[string]float64{"8.2B": 8.2, "513M": 0.513, " 7b ": 7, "x": 0, "": 0} {
		if got := billions(in); got != want {
			t.Errorf("billions(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestInstalled: a name without a tag is the :latest model, as Ollama
// reads it; a tag must match.
func TestInstalled(t *testing.T) {
	installed := []ModelInfo{{Name: "qwen3:8b"}, {Name: "nomic-embed-text:latest"}}
	for name, want := range map[string]string{"qwen3:8b": "qwen3:8b", "nomic-embed-text": "nomic-embed-text:latest", "nomic-embed-text:latest": "nomic-embed-text:latest", "qwen3": "", "qwen3:4b": ""} {
		m, ok := Installed(name, installed)
		if ok != (want != "") || m.Name != want {
			t.Errorf("Installed(%q) = %q, %v; want %q", name, m.Name, ok, want)
		}
	}
}

func TestFamilyOfName(t *testing.T) {
	for name, want := range map[string]string{"qwen3:8b": "qwen3", "hf.co/org/Phi4:q4": "phi4", "llama3.2": "llama3.2", "": ""} {
		if got := FamilyOfName(name); got != want {
			t.Errorf("FamilyOfName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestEffectiveTemperature(t *testing.T) {
	mine, family := 0.2, 0.7
	p := Profile{Temperature: &family}
	if got := p.EffectiveTemperature(&mine); got == nil || *got != mine {
		t.Errorf("the config's temperature lost to the profile's: %v", got)
	}
	if got := p.EffectiveTemperature(nil); got == nil || *got != family {
		t.Errorf("unset, not the profile's temperature: %v", got)
	}
	if got := (Profile{}).EffectiveTemperature(nil); got != nil {
		t.Errorf("neither set, yet %v", *got)
	}
}
