package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

func TestProfileShapesTheRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		model   ollamatest.Model
		config  string
		temp    float64
		prompt  string
		stderr  string
		wantErr string
	}{
		{"qwen3 recommended temperature", ollamatest.Qwen3(), "", 0.6, "Call one tool at a time", "", ""},
		{"llama reminder", ollamatest.Llama32(), "", 0.3, "Call one tool per reply. Read a file before you edit it", "", ""},
		{"profile override", ollamatest.Llama32(), "[profiles.llama3]\ntemperature = 0.1\none_tool_per_reply = false\n", 0.1, "Take paths and names from tool results", "", ""},
		{"explicit temperature wins", ollamatest.Qwen3(), "temperature = 0.9\n[profiles.qwen3]\ntemperature = 0.1\n", 0.9, "", "", ""},
		{"profile forces text", ollamatest.Qwen3(), "[profiles.\"qwen3:8b\"]\ntool_mode = \"text\"\n", 0.6, "# Tools", "using the text tool protocol (the qwen3 profile)", ""},
		{"bad profile", ollamatest.Qwen3(), "[profiles.qwen3]\ntool_format = \"xml\"\n", 0, "", "", "profile qwen3: tool_format must be"},
		{"unknown prompt", ollamatest.Qwen3(), "[profiles.qwen3]\nprompt = \"klingon\"\n", 0, "", "", "prompt must be one of " + strings.Join(prompts.Families(), ", ") + `, not "klingon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.model)
			if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			f.srv.Script(ollamatest.Reply{Content: "ok"})
			code, _, errOut := f.tern(t.Context(), "ask", "hi")
			if tt.wantErr != "" {
				if code != 1 || !strings.Contains(errOut, tt.wantErr) {
					t.Fatalf("exit %d, stderr %q; want %q", code, errOut, tt.wantErr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			req := f.srv.Requests()[0]
			if got := req.Options["temperature"]; got != tt.temp {
				t.Errorf("temperature = %v, want %v", got, tt.temp)
			}
			if !strings.Contains(req.Messages[0].Content, tt.prompt) {
				t.Errorf("system prompt lacks %q:\n%s", tt.prompt, req.Messages[0].Content)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
		})
	}
}

func TestTextFallbackIsRemembered(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	parseErr := ollamatest.Reply{Status: 500, Error: "error parsing tool call: raw='{\"name\": \"list_dir\"', err=unexpected end of JSON input"}
	f.srv.Script(
		parseErr, ollamatest.Reply{Content: `<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>`},
		parseErr, ollamatest.Reply{Content: "Three files."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "what is here?")
	if code != 0 || out != "Three files.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "switching to the text tool protocol for the rest of the session") {
		t.Errorf("stderr does not announce the switch:\n%s", errOut)
	}

	// The next session of the same model starts in text mode and says why.
	f.srv.Script(ollamatest.Reply{Content: "Hello."})
	code, _, errOut = f.tern(t.Context(), "ask", "hi")
	if code != 0 || !strings.Contains(errOut, "using the text tool protocol: in session ") || !strings.Contains(errOut, "failed to parse qwen3:8b's tool calls 2 times") {
		t.Fatalf("exit %d; stderr does not explain the text mode:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if last := reqs[len(reqs)-1]; len(last.Tools) != 0 || !strings.Contains(last.Messages[0].Content, "# Tools") {
		t.Error("the new session sent native tools")
	}
	_, doctor, _ := f.tern(t.Context(), "doctor")
	if !strings.Contains(doctor, "text tool protocol") || !strings.Contains(doctor, "--tool-mode native") {
		t.Errorf("doctor does not show the remembered fallback:\n%s", doctor)
	}

	// --tool-mode native overrides the memory.
	f.srv.Script(ollamatest.Reply{Content: "Native."})
	if code, _, errOut := f.tern(t.Context(), "ask", "--tool-mode", "native", "hi"); code != 0 || strings.Contains(errOut, "text tool protocol") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	reqs = f.srv.Requests()
	if len(reqs[len(reqs)-1].Tools) == 0 {
		t.Error("--tool-mode native sent no native tools")
	}

	// So does a profile's tool_mode, for the session and for doctor alike.
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("[profiles.qwen3]\ntool_mode = \"native\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(ollamatest.Reply{Content: "Native."})
	if code, _, errOut := f.tern(t.Context(), "ask", "hi"); code != 0 || strings.Contains(errOut, "text tool protocol") {
		t.Errorf("with the profile's tool_mode native: exit %d, stderr %s", code, errOut)
	}
	if _, doctor, _ := f.tern(t.Context(), "doctor"); strings.Contains(doctor, "text tool protocol") {
		t.Errorf("doctor recalls the fallback the profile's tool_mode overrides:\n%s", doctor)
	}
}

// TestTierZeroPromptBudget keeps the first request small: the system prompt
// of every family with the tier-0 tools (search_code included, as with an
// index, and explore and ask_user), plus about 80 tokens for the request_tools meta-tool, must stay
// within 1,000 tokens (cl100k), natively and in the text tool protocol.
func TestTierZeroPromptBudget(t *testing.T) {
	t.Parallel()
	c, err := budget.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tiers, err := tools.Builtins(tools.Deps{Workspace: ws, Search: indexedSearch{}})
	if err != nil {
		t.Fatal(err)
	}
	specs := tools.NewSet(tiers[tools.TierRead]...).Specs()
	const requestTools, limit = 80, 1000
	for _, fam := range prompts.Families() {
		p := models.ProfileFor(models.ModelInfo{Name: fam}, nil)
		sys := prompts.System{Family: fam, Repo: "my-project", Reminder: true}
		base, err := prompts.Render(sys)
		if err != nil {
			t.Fatal(err)
		}
		native := c.MessageTokens(models.Message{Role: models.RoleSystem, Content: base}) + requestTools
		for _, s := range specs {
			native += c.Count(string(s.WireJSON()))
		}
		block, err := prompts.TextToolsBlock(specs, p.ToolFormat)
		if err != nil {
			t.Fatal(err)
		}
		text := c.MessageTokens(models.Message{Role: models.RoleSystem, Content: base + block}) + requestTools
		t.Logf("%-8s native %d tokens, text %d tokens", fam, native, text)
		if native > limit || text > limit {
			t.Errorf("%s: tier-0 request is %d tokens natively, %d in text; keep both within %d", fam, native, text, limit)
		}
	}
}
