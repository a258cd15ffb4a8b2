package models

import "testing"

func TestProfileFor(t *testing.T) {
	tests := []struct {
		name, family string
		want         string
		prompt       string
		format       string
		oneTool      bool
	}{
		{"qwen3:8b", "qwen3", "qwen3", "qwen", FormatTagged, false},
		{"qwen2.5-coder:7b", "qwen2", "qwen2.5", "qwen", FormatTagged, false},
		{"llama3.2:3b", "llama", "llama3", "llama", FormatLlama, true},
		{"llama3.1:8b", "llama", "llama3", "llama", FormatLlama, true},
		{"mistral:7b", "llama", "mistral", "mistral", FormatMistral, false},
		{"mistral-nemo:12b", "llama", "mistral", "mistral", FormatMistral, false},
		{"granite3.3:8b", "granite", "granite", "granite", FormatTagged, true},
		{"gemma3:4b", "gemma3", "gemma", "gemma", FormatTagged, true},
		{"phi4-mini:3.8b", "phi3", "phi", "phi", FormatTagged, true},
		{"hf.co/unsloth/Qwen3-4B-GGUF:Q4_K_M", "qwen3", "qwen3", "qwen", FormatTagged, false},
		{"my-finetune:latest", "qwen2", "qwen2.5", "qwen", FormatTagged, false},
		{"tiny:latest", "", "default", "default", FormatTagged, false},
		{"deepseek-r1:8b", "qwen3", "qwen3", "qwen", FormatTagged, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ProfileFor(ModelInfo{Name: tt.name, Family: tt.family}, nil)
			if p.Name != tt.want || p.Prompt != tt.prompt || p.ToolFormat != tt.format || p.OneToolPerReply != tt.oneTool {
				t.Errorf("ProfileFor = %+v, want %s (prompt %s, format %s, one tool %v)", p, tt.want, tt.prompt, tt.format, tt.oneTool)
			}
			if err := p.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestProfileOverrides(t *testing.T) {
	f, tr, text, tag := 0.1, true, "text", ThinkTag
	overrides := map[string]ProfileOverride{
		"qwen3":      {Temperature: &f},
		"qwen3:8b":   {OneToolPerReply: &tr},
		"qwen3:":     {ToolMode: &text},
		"llama3":     {ThinkControl: &tag},
		"other:tiny": {ToolMode: &text},
	}
	p := ProfileFor(ModelInfo{Name: "qwen3:8b", Family: "qwen3"}, overrides)
	if p.Temperature == nil || *p.Temperature != 0.1 || !p.OneToolPerReply || p.ToolMode != "text" || p.ThinkControl != ThinkAPI {
		t.Errorf("qwen3:8b profile = %+v; want the family's, prefix's and exact name's overrides", p)
	}
	if p := ProfileFor(ModelInfo{Name: "qwen3:4b", Family: "qwen3"}, overrides); p.OneToolPerReply {
		t.Error("an override for qwen3:8b changed qwen3:4b")
	}
	bad := "xml"
	p = ProfileFor(ModelInfo{Name: "gemma3:4b"}, map[string]ProfileOverride{"gemma": {ToolFormat: &bad}})
	if err := p.Validate(); err == nil || err.Error() != `profile gemma: tool_format must be tagged, json, llama or mistral, not "xml"` {
		t.Errorf("Validate = %v", err)
	}
}
