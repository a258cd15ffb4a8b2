// Package tern_test holds checks on the shape of the whole module.
package tern_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ternhq/tern"

// allowed lists, for each package (prefix), the internal packages it may
// import. The import graph is the architecture (README, Development): models at the
// bottom, cmd/tern at the top, tui talking only to the agent and the store.
var allowed = map[string][]string{
	"models":            {},
	"models/ollama":     {"models"},
	"models/ollamatest": {}, // speaks Ollama's wire format, knows nothing of tern
	// The OpenAI-compatible backend (llama-server, LM Studio, vLLM) and
	// its fake server, which knows nothing of tern.
	"models/openai":     {"models"},
	"models/openaitest": {},
	"prompts":           {"models"},
	"context/budget":    {"models"},
	"context/compact":   {"models", "context/budget", "prompts"},
	"statedir":          {},
	"termtext":          {}, // text made safe for a terminal; nothing of tern
	"internal/testenv":  {}, // what tests need from the machine; nothing of tern
	"session":           {"models", "statedir"},
	"index/ignore":      {},
	"index/grammar":     {}, // the tree-sitter grammars tern links
	"index":             {"index/", "models", "statedir"},
	"rag":               {"index"},
	"tools":             {"models", "index/ignore", "index/grammar", "context/budget", "tools/", "statedir"},
	"tools/mcp":         {"models", "tools", "tools/proc"},
	"tools/lsp":         {"index/grammar", "tools/proc"}, // language servers; knows nothing of the tools that use them
	"tools/proc":        {},                              // the servers' process groups and stderr; nothing of tern
	"tools/shell":       {},
	"tools/sandbox":     {}, // the kernel sandbox of commands; nothing of tern
	"disclosure":        {"models", "tools"},
	"agent":             {"models", "tools", "session", "context/", "prompts"},
	"tui":               {"agent", "session", "models"}, // shows the window's use the agent reports; computes none
	"acp":               {"agent", "session", "models"}, // the editor's front end (tern acp): tui's rules
	"cmd/fakeollama":    {"models/ollamatest"},
	"cmd/tern":          {""}, // the top: may import anything
	// The eval suite reads transcripts and plays them on the fake servers;
	// cmd/tern runs the agent on it.
	"cmd/tern/internal/eval": {"models/ollamatest", "models/openaitest", "cmd/tern/internal/words"},
	// tern's configuration: the settings it holds are those packages'.
	"cmd/tern/internal/config": {"agent", "disclosure", "models", "models/ollama", "tools/lsp", "tools/mcp", "tools/sandbox", "cmd/tern/internal/words"},
	"cmd/tern/internal/words":  {}, // wording of messages; nothing of tern
	// The model server a run talks to, and the wording of its errors.
	"cmd/tern/internal/backend": {"cmd/tern/internal/config", "models", "models/ollama", "models/openai", "prompts", "rag"},
	// tern doctor checks what a run would use, so it reads every part of
	// it, but starts no session and builds no agent.
	"cmd/tern/internal/doctor": {"agent", "cmd/tern/internal/backend", "cmd/tern/internal/config", "cmd/tern/internal/words",
		"context/budget", "models", "models/ollama", "models/openai", "prompts", "rag", "session", "statedir", "tools", "tools/lsp", "tools/mcp", "tools/sandbox"},
	// tern ask's front end: renders agent events, answers approvals by policy.
	"cmd/tern/internal/headless": {"agent", "tools", "tools/mcp", "cmd/tern/internal/words"},
	// What tern index and tern search print: progress, summary, hits.
	"cmd/tern/internal/indexview": {"index", "rag", "cmd/tern/internal/words"},
	// tern prompt's report of the first request and its token costs.
	"cmd/tern/internal/promptview": {"models", "tools", "disclosure", "cmd/tern/internal/words"},
	// Shell completions: filters and describes what package main looks up.
	"cmd/tern/internal/complete": {"cmd/tern/internal/eval", "cmd/tern/internal/words"},
	// The tern search command: flags, checks, the run over the code index.
	"cmd/tern/internal/searchcmd": {"rag", "index", "cmd/tern/internal/indexview", "cmd/tern/internal/words"},
	// The tern eval command: flags, the suite's load, run and report.
	"cmd/tern/internal/evalcmd": {"cmd/tern/internal/eval"},
	// A session's undo checkpoint: where a run records it, how undo and
	// diff find it, why there is none.
	"cmd/tern/internal/checkpoint": {"session", "tools"},
	// The tern sessions command: flags, the table of the store's sessions.
	"cmd/tern/internal/sessionscmd": {"session", "cmd/tern/internal/words"},
	// The tern undo command: flags, the plan shown, the question, the restore.
	"cmd/tern/internal/undocmd": {"cmd/tern/internal/checkpoint", "cmd/tern/internal/words", "tools"},
	// The tern diff command: flags, the diff from a session's checkpoint.
	"cmd/tern/internal/diffcmd": {"cmd/tern/internal/checkpoint", "tools"},
	// The tern mcp command: the code index as an MCP server; the index
	// comes from package main.
	"cmd/tern/internal/mcpserve": {},
	// The tern acp command: flags, the places sessions may open in,
	// resolved and compared as the workspace resolves its root (tools).
	"cmd/tern/internal/acpcmd": {"tools"},
	// The tern version command and the version string; nothing of tern.
	"cmd/tern/internal/versioncmd": {},
	// The workspace's code index as tern opens and updates it.
	"cmd/tern/internal/codeindex": {"index", "rag", "cmd/tern/internal/backend", "cmd/tern/internal/config"},
	// The tern index command: flags, the update with its plan, progress and summary.
	"cmd/tern/internal/indexcmd": {"index", "rag", "cmd/tern/internal/backend", "cmd/tern/internal/codeindex", "cmd/tern/internal/indexview"},
	// What the command packages' tests share: parsing a command line, a
	// git workspace with a session and its checkpoint.
	"cmd/tern/internal/cmdtest": {"cmd/tern/internal/checkpoint", "models", "session", "tools"},
	// The one session constructor of ask, eval and the TUI: the model's
	// connection, the store, the tool set and its tiers, MCP, the agent.
	"cmd/tern/internal/runner": {"agent", "context/budget", "disclosure", "models", "prompts", "rag", "session", "tools", "tools/lsp", "tools/mcp", "tools/sandbox",
		"cmd/tern/internal/backend", "cmd/tern/internal/checkpoint", "cmd/tern/internal/codeindex", "cmd/tern/internal/config"},
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if pkg == "" {
			continue
		}
		rules, ok := rulesFor(pkg)
		if !ok {
			t.Errorf("package %s has no entry in deps_test.go: add one saying what it may import", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if strings.HasPrefix(dep, pkg+"/") {
				continue // a package may use its own subpackages
			}
			if !permitted(rules, dep) {
				t.Errorf("%s imports %s, which DESIGN.md's direction forbids", pkg, dep)
			}
		}
	}
}

// rulesFor finds the most specific entry for pkg.
func rulesFor(pkg string) ([]string, bool) {
	best, found := "", false
	for p := range allowed {
		if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) >= len(best) {
			best, found = p, true
		}
	}
	return allowed[best], found
}

func permitted(rules []string, dep string) bool {
	for _, r := range rules {
		if r == "" || dep == r || (strings.HasSuffix(r, "/") && strings.HasPrefix(dep, r)) {
			return true
		}
	}
	return false
}
