package models

import "testing"

func TestChooseToolProtocol(t *testing.T) {
	withTools := ModelInfo{Name: "qwen3:8b", Capabilities: []Capability{CapTools}}
	without := ModelInfo{Name: "gemma2:9b"}
	plain := Profile{Name: "qwen3"}
	textual := Profile{Name: "granite", ToolMode: ToolModeText}
	for _, tt := range []struct {
		name      string
		requested string
		info      ModelInfo
		p         Profile
		want      ToolProtocol
	}{
		{"auto, tools", ToolModeAuto, withTools, plain, ToolProtocol{}},
		{"auto, no tools", ToolModeAuto, without, plain, ToolProtocol{Text: true, Why: "gemma2:9b has no native tool support; using the text tool protocol"}},
		{"native forced", ToolModeNative, without, plain, ToolProtocol{}},
		{"text asked", ToolModeText, withTools, plain, ToolProtocol{Text: true, Why: "using the text tool protocol (--tool-mode text)"}},
		{"constrained asked", ToolModeConstrained, withTools, plain, ToolProtocol{Text: true, Constrained: true, Why: "using the text tool protocol with replies held to a JSON schema (--tool-mode constrained)"}},
		{"profile's choice", ToolModeAuto, withTools, textual, ToolProtocol{Text: true, Why: "using the text tool protocol (the granite profile)"}},
		{"flag beats profile", ToolModeNative, withTools, textual, ToolProtocol{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ChooseToolProtocol(tt.requested, tt.info, tt.p); got != tt.want {
				t.Errorf("ChooseToolProtocol = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRecall(t *testing.T) {
	fb := Fallback{Session: "s1", Mode: ToolModeConstrained, Why: "failed to parse 2 times"}
	native := ToolProtocol{}
	got := native.Recall(ToolModeAuto, Profile{Name: "qwen3"}, fb)
	want := ToolProtocol{Text: true, Constrained: true, Why: "using the text tool protocol: in session s1, failed to parse 2 times (force native calls with --tool-mode native)"}
	if got != want {
		t.Errorf("Recall = %+v, want %+v", got, want)
	}
	for _, tt := range []struct {
		name      string
		requested string
		p         Profile
		t         ToolProtocol
	}{
		{"forced native", ToolModeNative, Profile{}, native},
		{"profile forces", ToolModeAuto, Profile{ToolMode: ToolModeNative}, native},
		{"already text", ToolModeAuto, Profile{}, ToolProtocol{Text: true, Why: "no tools"}},
	} {
		if got := tt.t.Recall(tt.requested, tt.p, fb); got != tt.t {
			t.Errorf("%s: Recall = %+v, want it unchanged", tt.name, got)
		}
	}
}

// TestCallFormat: the constrained mode writes calls as its JSON object
// whatever the family's format; otherwise the family's format stands.
func TestCallFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		family      string
		constrained bool
		want        string
	}{
		{FormatLlama, false, FormatLlama},
		{FormatLlama, true, FormatConstrained},
		{"", false, ""},
		{"", true, FormatConstrained},
	} {
		if got := CallFormat(tt.family, tt.constrained); got != tt.want {
			t.Errorf("CallFormat(%q, %v) = %q, want %q", tt.family, tt.constrained, got, tt.want)
		}
	}
}
