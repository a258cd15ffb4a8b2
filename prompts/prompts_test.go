package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed; run go test ./prompts -update if intended.\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	readFile := models.ToolSpec{
		Name:        "read_file",
		Description: "Read a text file.",
		Parameters: models.Schema(
			models.Param{Name: "path", Type: "string", Required: true},
			models.Param{Name: "offset", Type: "integer"},
		),
	}
	grep := models.ToolSpec{
		Name:        "grep",
		Description: "Search file contents.",
		Parameters:  models.Schema(models.Param{Name: "pattern", Type: "string", Required: true}),
	}
	text := []models.ToolSpec{readFile, grep}
	tests := []struct {
		name string
		in   System
	}{
		{"default", System{Family: "tiny", Repo: "demo"}},
		{"qwen", System{Family: "qwen3", Repo: "demo"}},
		{"llama", System{Family: "llama", Repo: "demo"}},
		{"granite", System{Family: "granite", Repo: "demo", Reminder: true}},
		{"gemma", System{Family: "gemma3", Repo: "demo", Reminder: true}},
		{"phi", System{Family: "phi", Repo: "demo", Reminder: true}},
		{"mistral", System{Family: "mistral", Repo: "demo"}},
		{"notes", System{Family: "gemma3", Repo: "demo", Notes: "Run `make test` before committing."}},
		{"texttools", System{Family: "default", Repo: "demo", TextTools: text}},
		{"texttools-llama", System{Family: "llama", Repo: "demo", TextTools: text, ToolFormat: models.FormatLlama, Reminder: true}},
		{"texttools-mistral", System{Family: "mistral", Repo: "demo", TextTools: text, ToolFormat: models.FormatMistral}},
		{"qwen-nothink", System{Family: "qwen", Repo: "demo", NoThink: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
			again, _ := Render(tt.in)
			if again != got {
				t.Error("Render is not deterministic")
			}
		})
	}
}

func TestEveryFamilyRenders(t *testing.T) {
	for _, fam := range Families() {
		got, err := Render(System{Family: fam, Repo: "demo"})
		if err != nil {
			t.Fatalf("%s: %v", fam, err)
		}
		if TemplateFor(fam) != fam {
			t.Errorf("family %s renders the %s template", fam, TemplateFor(fam))
		}
		// Every family keeps the rules the agent relies on.
		for _, want := range []string{"repository demo", "path:line", "reply in plain text without a tool call"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s prompt lacks %q:\n%s", fam, want, got)
			}
		}
	}
}

func TestTemplateFor(t *testing.T) {
	for family, want := range map[string]string{
		"qwen3": "qwen", "Qwen2": "qwen", "llama": "llama", "gemma3": "gemma", "granite": "granite",
		"phi3": "phi", "mistral": "mistral", "bert": "default", "": "default",
	} {
		if got := TemplateFor(family); got != want {
			t.Errorf("TemplateFor(%q) = %q, want %q", family, got, want)
		}
	}
}

func TestNudgesGolden(t *testing.T) {
	example := models.FormatCall(models.FormatTagged, "read_file", []byte(`{"path": "main.go"}`))
	tests := []struct {
		name string
		in   Nudge
	}{
		{"nudge-broken", Nudge{Kind: NudgeBrokenCall, Problem: "the JSON after <tool_call> is cut off", Example: example}},
		{"nudge-empty", Nudge{Kind: NudgeEmpty, Example: example, Reminder: true}},
		{"nudge-repeat", Nudge{Kind: NudgeRepeat, Tool: "read_file", Count: 3}},
		{"nudge-repeat-restricted", Nudge{Kind: NudgeRepeat, Tool: "read_file", Count: 4, Tools: []string{"read_file", "grep"}}},
		{"nudge-reread", Nudge{Kind: NudgeReread, Tool: "read_file", Count: 3}},
		{"nudge-thinking", Nudge{Kind: NudgeThinking}},
		{"nudge-onetool", Nudge{Kind: NudgeOneTool}},
		{"nudge-repetition", Nudge{Kind: NudgeRepetition}},
		{"nudge-intent", Nudge{Kind: NudgeIntent, Example: example}},
		{"nudge-notprose", Nudge{Kind: NudgeNotProse, Problem: "it is a command line, but no tool that runs commands is on offer", Example: example}},
		{"nudge-refusal", Nudge{Kind: NudgeRefusal, Problem: "read_file, list_dir, grep, run_command", Example: models.FormatCall(models.FormatTagged, "run_command", []byte(`{"command": "go test ./..."}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderNudge(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got+"\n")
			if strings.Count(got, "\n") > 3 {
				t.Errorf("a nudge must stay short:\n%s", got)
			}
		})
	}
	if _, err := RenderNudge(Nudge{Kind: "nope"}); err == nil {
		t.Error("an unknown nudge rendered")
	}
}

func TestProjectNotes(t *testing.T) {
	dir := t.TempDir()
	if notes, _, _, err := ProjectNotes(dir, 100); err != nil || notes != "" {
		t.Fatalf("no notes file: got %q, %v", notes, err)
	}
	body := strings.Repeat("line of notes\n", 20)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	notes, name, cut, err := ProjectNotes(dir, 60)
	if err != nil || name != "AGENTS.md" || !cut {
		t.Fatalf("got name=%q cut=%v err=%v", name, cut, err)
	}
	if !strings.HasSuffix(notes, "(AGENTS.md continues; read it with read_file)") || strings.Count(notes, "line of notes") > 4 {
		t.Errorf("notes not cut at a line with a pointer to the rest:\n%s", notes)
	}
}

func TestTextToolsBlockExtendsThePrompt(t *testing.T) {
	specs := []models.ToolSpec{{Name: "glob", Description: "Find files.", Parameters: models.Schema(models.Param{Name: "pattern", Type: "string", Required: true})}}
	for _, fam := range Families() {
		base, _ := Render(System{Family: fam, Repo: "demo", Notes: "notes", Reminder: true})
		whole, _ := Render(System{Family: fam, Repo: "demo", Notes: "notes", Reminder: true, TextTools: specs, ToolFormat: models.FormatLlama})
		block, err := TextToolsBlock(specs, models.FormatLlama)
		if err != nil {
			t.Fatal(err)
		}
		if base+block != whole {
			t.Errorf("%s: prompt + TextToolsBlock differs from the prompt rendered with text tools:\n%q\n%q", fam, base+block, whole)
		}
	}
}

// TestForModel: a session's system prompt is the profile's template with
// the repository's name and notes; a profile that switches thinking off
// by a tag says /no_think unless thinking is asked for; notes over
// NotesMaxBytes are cut, with a notice.
func TestForModel(t *testing.T) {
	root := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Run go test.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prof := models.Profile{Prompt: "default", ThinkControl: models.ThinkTag, OneToolPerReply: true}
	system, notices, err := ForModel(root, prof, "")
	want, _ := Render(System{Family: "default", Repo: "demo", Notes: "Run go test.", Reminder: true, NoThink: true})
	if err != nil || system != want || len(notices) != 0 {
		t.Fatalf("ForModel = %q, %v, %v; want %q", system, notices, err, want)
	}
	if !strings.Contains(system, "/no_think") {
		t.Error("thinking off by tag, and no /no_think")
	}
	if system, _, _ := ForModel(root, prof, "high"); strings.Contains(system, "/no_think") {
		t.Error("thinking asked for, and /no_think sent")
	}
	long := strings.Repeat("a line of project notes\n", NotesMaxBytes/10)
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	_, notices, err = ForModel(root, prof, "")
	if want := []string{"AGENTS.md is long; only its first 4 KiB are in the prompt"}; err != nil || !slices.Equal(notices, want) {
		t.Errorf("long notes: %v, %v; want %v", notices, err, want)
	}
}

// TestCheckProfile: every built-in profile names a template; a prompt
// family with none is an error that lists the ones there are.
func TestCheckProfile(t *testing.T) {
	for _, p := range models.Profiles() {
		if err := CheckProfile(p); err != nil {
			t.Errorf("built-in profile %s: %v", p.Name, err)
		}
	}
	err := CheckProfile(models.Profile{Name: "qwen3", Prompt: "klingon"})
	if want := "profile qwen3: prompt must be one of " + strings.Join(Families(), ", ") + `, not "klingon"`; err == nil || err.Error() != want {
		t.Errorf("CheckProfile = %v, want %q", err, want)
	}
}
