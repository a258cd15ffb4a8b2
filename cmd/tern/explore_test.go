package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/session"
)

// exploreFiles writes five Go files of about 120 lines each, and returns
// their names.
func exploreFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for i := 1; i <= 5; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package store\n\n// Part %d of the store.\n", i)
		for j := 1; j <= 20; j++ {
			fmt.Fprintf(&b, "\n// load%d_%d reads record %d from the table of part %d.\nfunc load%d_%d(id int) (string, error) {\n\tif id < 0 {\n\t\treturn \"\", errBadID\n\t}\n\treturn fmt.Sprint(id * %d), nil\n}\n", i, j, j, i, i, j, j)
		}
		name := fmt.Sprintf("store%d.go", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

func readCall(name string) ollamatest.Call {
	return ollamatest.Call{Name: "read_file", Args: fmt.Sprintf(`{"path":%q}`, name)}
}

// offers reports whether a request offered the tool called name.
func offers(req api.ChatRequest, name string) bool {
	return slices.ContainsFunc(req.Tools, func(t api.Tool) bool { return t.Function.Name == name })
}

// TestExploreKeepsTheMainWindowSmall runs the same five-file question twice
// through tern ask: once with the main model reading the files itself, once
// handing them to explore. With explore, the subagent reads every file in a
// conversation of its own, and the main model's next request carries only
// the subagent's report; the window it fills is a fraction of the other.
func TestExploreKeepsTheMainWindowSmall(t *testing.T) {
	t.Parallel()
	const question = "where are records loaded?"
	const report = "store1.go:5 — load1_1 reads record 1\nstore3.go:5 — load3_1 reads part 3\nRecords are loaded by the loadN_M functions, one file per part."

	// Without explore: the main model reads the five files.
	direct := newFixture(t)
	files := exploreFiles(t, direct.dir)
	var reads []ollamatest.Call
	for _, f := range files {
		reads = append(reads, readCall(f))
	}
	direct.srv.Script(
		ollamatest.Reply{ToolCalls: reads[:3]},
		ollamatest.Reply{ToolCalls: reads[3:]},
		ollamatest.Reply{Content: "Records are loaded by the loadN_M functions."},
	)
	code, dout, errOut := direct.tern(t.Context(), "ask", "--json", question)
	if code != 0 {
		t.Fatalf("direct: exit %d: %s", code, errOut)
	}
	drecs := direct.srv.Records()
	directLast := drecs[len(drecs)-1]

	// With explore.
	f := newFixture(t)
	exploreFiles(t, f.dir)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "explore", Args: `{"task":"find where records are loaded","files_hint":["store1.go","nope.go"]}`}}},
		ollamatest.Reply{ToolCalls: reads[:2]}, // the subagent, several requests
		ollamatest.Reply{ToolCalls: reads[2:4]},
		ollamatest.Reply{ToolCalls: reads[4:]},
		ollamatest.Reply{Content: report},
		ollamatest.Reply{Content: "Records are loaded by the loadN_M functions (store1.go:5)."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--json", question)
	if code != 0 {
		t.Fatalf("explore: exit %d: %s", code, errOut)
	}
	recs := f.srv.Records()
	if len(recs) != 6 {
		t.Fatalf("%d requests, want 6 (2 main, 4 subagent)", len(recs))
	}
	var main, sub []ollamatest.Record
	for _, r := range recs {
		if offers(r.Request, "explore") {
			main = append(main, r)
		} else {
			sub = append(sub, r)
		}
	}
	if len(main) != 2 || len(sub) != 4 {
		t.Fatalf("main requests %d, subagent requests %d; want 2 and 4", len(main), len(sub))
	}
	for i, r := range sub {
		for _, tool := range []string{"ask_user", "request_tools", "edit_file"} {
			if offers(r.Request, tool) {
				t.Errorf("subagent request %d offers %s", i, tool)
			}
		}
		if !offers(r.Request, "read_file") {
			t.Errorf("subagent request %d has no read_file", i)
		}
		if r.NumCtx != main[0].NumCtx {
			t.Errorf("the subagent's window %d differs from the session's %d: the model would reload", r.NumCtx, main[0].NumCtx)
		}
		for _, m := range r.Request.Messages {
			if strings.Contains(m.Content, question) {
				t.Errorf("subagent request %d carries the main conversation: %q", i, m.Content)
			}
		}
	}
	if task := sub[0].Request.Messages[1].Content; !strings.Contains(task, "Task: find where records are loaded") || !strings.Contains(task, "Start with: store1.go") {
		t.Errorf("subagent task message:\n%s", task)
	}
	last := main[1].Request.Messages
	res := last[len(last)-1]
	if res.Role != "tool" || !strings.Contains(res.Content, report) || !strings.Contains(res.Content, "not found, skipped: nope.go") {
		t.Errorf("the main request after explore ends with %s %q, want the report", res.Role, res.Content)
	}
	for _, m := range last {
		if strings.Contains(m.Content, "func load") {
			t.Fatalf("file content reached the main window: %q", m.Content[:min(len(m.Content), 200)])
		}
	}
	withTokens, withoutTokens := main[1].PromptTokens, directLast.PromptTokens
	t.Logf("main window before the answer, as the fake counts (a token per 4 bytes): %d tokens with explore, %d without (subagent requests %v tokens)",
		withTokens, withoutTokens, promptSizes(sub))
	t.Logf("main window before the answer, by tern's count (cl100k_base): %d tokens with explore, %d without; the prefix alone %d",
		lastEstimate(t, out), lastEstimate(t, dout), firstEstimate(t, out))
	if withTokens*3 > withoutTokens {
		t.Errorf("with explore the main request is %d tokens, without %d: want under a third", withTokens, withoutTokens)
	}

	// The subagent's messages are in the session, under the explore call.
	var callID string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct{ Type, ID, Name string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool_start" && ev.Name == "explore" {
			callID = ev.ID
		}
	}
	for _, l := range strings.Split(out, "\n") {
		var ev struct{ Type, Name, Summary string }
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Type == "tool_end" && ev.Name == "explore" {
			t.Logf("the call's summary: %s", ev.Summary)
		}
	}
	if !strings.Contains(out, `"type":"tool_progress"`) {
		t.Error("no tool_progress events while the subagent ran")
	}
	store, err := session.OpenWorkspace(t.Context(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sessions, err := store.List(t.Context(), 1)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %v, %v", sessions, err)
	}
	msgs, err := store.SubMessages(t.Context(), sessions[0].ID, callID)
	if err != nil {
		t.Fatal(err)
	}
	toolMsgs := 0
	for _, m := range msgs {
		if m.Role == "tool" && strings.Contains(m.Content, "func load") {
			toolMsgs++
		}
	}
	if toolMsgs != 5 || msgs[len(msgs)-1].Content != report {
		t.Errorf("stored subagent conversation: %d file reads (want 5), %d messages", toolMsgs, len(msgs))
	}
	hist, err := store.Messages(t.Context(), sessions[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range hist {
		if strings.Contains(m.Content, "func load") {
			t.Error("a file read by the subagent is in the session's main history")
		}
	}
}

// lastEstimate and firstEstimate are tern's count of the last and the
// first request of a tern ask --json run.
func lastEstimate(t *testing.T, out string) int {
	e := estimates(t, out)
	return e[len(e)-1]
}

func firstEstimate(t *testing.T, out string) int { return estimates(t, out)[0] }

func estimates(t *testing.T, out string) []int {
	t.Helper()
	var n []int
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type  string
			Usage *struct{ Estimate int }
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "message" && ev.Usage != nil {
			n = append(n, ev.Usage.Estimate)
		}
	}
	if len(n) == 0 {
		t.Fatal("no message events with usage")
	}
	return n
}

func promptSizes(recs []ollamatest.Record) []int {
	var n []int
	for _, r := range recs {
		n = append(n, r.PromptTokens)
	}
	return n
}

// TestExploreSubagentModel: subagent_model runs the helper on another
// installed model, with a window planned for it; an unknown one is
// reported and the session's model explores instead.
func TestExploreSubagentModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.Qwen3(), ollamatest.Llama32())
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("model = \"qwen3:8b\"\nsubagent_model = \"llama3.2:3b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "explore", Args: `{"task":"what is main.go"}`}}},
		ollamatest.Reply{Content: "main.go:3 — main prints hi"},
		ollamatest.Reply{Content: "It prints hi."},
	)
	if code, _, errOut := f.tern(t.Context(), "ask", "what does main do?"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := f.srv.Records()
	if len(recs) != 3 || recs[0].Request.Model != "qwen3:8b" || recs[1].Request.Model != "llama3.2:3b" || recs[2].Request.Model != "qwen3:8b" {
		t.Fatalf("requests went to %v", []string{recs[0].Request.Model, recs[1].Request.Model})
	}
	t.Logf("session window %d, helper window %d", recs[0].NumCtx, recs[1].NumCtx)

	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("model = \"qwen3:8b\"\nsubagent_model = \"nope:1b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(ollamatest.Reply{Content: "Hi."})
	if code, _, errOut := f.tern(t.Context(), "ask", "hi"); code != 0 || !strings.Contains(errOut, "subagent_model nope:1b cannot be used (not installed: run `ollama pull nope:1b`); explore uses qwen3:8b") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestExploreStatusInTmux: while explore's subagent works, the status bar
// says so with the tokens it has used, and the call's line shows its
// latest step; both go when it is done.
func TestExploreStatusInTmux(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := exploreFiles(t, f.dir)
	report := make([]string, 20)
	for i := range report {
		report[i] = "store1.go:5 — load1_1 reads record 1 "
	}
	// The subagent's report is held after its first words until the
	// status has been seen.
	release := make(chan struct{})
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "explore", Args: `{"task":"find where records are loaded"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{readCall(files[0]), readCall(files[1])}},
		ollamatest.Reply{Chunks: report, HoldAfter: 1, Release: release},
		ollamatest.Reply{Content: "Records are loaded by loadN_M."},
	)
	tt := startTmux(t, f, 120, 30)
	tt.waitPane("qwen3:8b │ tier 0", "new session")
	tt.keys("where are records loaded?", "Enter")
	pane := tt.waitPane("explore running · ", "read_file")
	close(release)
	status, _, _ := strings.Cut(pane, "\n")
	m := regexp.MustCompile(`explore running · ([0-9.]+k?) tok`).FindStringSubmatch(status)
	if m == nil || m[1] == "0" {
		t.Errorf("the status bar does not show the subagent's tokens:\n%s", status)
	}
	tt.waitPane("Records are loaded by loadN_M.")
	tt.waitIdle()
	if status, _, _ := strings.Cut(tt.pane(), "\n"); strings.Contains(status, "explore running") {
		t.Errorf("the status bar still shows the subagent:\n%s", status)
	}
	// Opening the call's line shows the report and the subagent's steps.
	tt.keys("Tab")
	tt.waitPane("Enter opens it")
	tt.keys("Enter")
	tt.waitPane("steps of the subagent (its messages stay out of the model's window):", `▸ read_file {"path":"store1.go"}`, "store1.go:5 — load1_1 reads record 1")
}

// TestExploreSubagentSearchesCode: with an index, the subagent's tools
// are the session's read-only ones, search_code included, and nothing
// else.
func TestExploreSubagentSearchesCode(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.mustTern("index")
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "explore", Args: `{"task":"where is the bill total computed"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "search_code", Args: `{"query":"bill total"}`}}},
		ollamatest.Reply{Content: "calc/total.go:3 — Total adds up a bill"},
		ollamatest.Reply{Content: "In calc/total.go."},
	)
	f.mustTern("ask", "where is the bill total computed?")
	reqs := f.srv.Requests()
	sub := reqs[len(reqs)-3 : len(reqs)-1]
	for i, r := range sub {
		if names := toolNames(r); !slices.Equal(names, tierNames(t, 0, true, "explore", "ask_user", "request_tools")) {
			t.Errorf("subagent request %d offers %v", i, names)
		}
	}
	if res := lastContent(sub[1]); !strings.Contains(res, "calc/total.go:3-10 (function Total)") {
		t.Errorf("the subagent's search_code result:\n%s", res)
	}
}
