package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ternhq/tern/tools"
)

// run calls the tool the model knows as name with args.
func run(t *testing.T, m *Manager, name, args string, limit int) tools.Result {
	t.Helper()
	tool, ok := m.Get(t.Context(), name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool.Run(t.Context(), tools.Input{Args: json.RawMessage(args), Limit: limit})
}

func names(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Spec().Name)
	}
	return out
}

func TestNothingStartsUntilToolsAreWanted(t *testing.T) {
	m, ms := newMemManager(t, Options{})
	if ms.dialCount() != 0 {
		t.Fatal("NewManager started a server")
	}
	if _, err := m.Search(t.Context(), "weather", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Search(t.Context(), "issue", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Catalog(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if n := ms.dialCount(); n != 1 {
		t.Errorf("server started %d times, want once", n)
	}
}

func TestCatalogListsEveryPageWithModelFriendlyNames(t *testing.T) {
	m, _ := newMemManager(t, Options{})
	cat, err := m.Catalog(t.Context(), func(s string) int { return len(s) / 4 })
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) != fixtureToolCount {
		t.Fatalf("catalog has %d tools, want all %d (the fixture lists 5 a page)", len(cat), fixtureToolCount)
	}
	valid := regexp.MustCompile(`^[a-z0-9_]{1,64}$`)
	byName := map[string]Entry{}
	for _, e := range cat {
		if !valid.MatchString(e.Name) {
			t.Errorf("name %q is not lower snake_case within 64 characters", e.Name)
		}
		if e.Server != "fx" || e.Tokens == 0 {
			t.Errorf("entry %+v: want server fx and a token count", e)
		}
		if len(e.Description) > descriptionBudget {
			t.Errorf("%s: description has %d characters, over %d", e.Name, len(e.Description), descriptionBudget)
		}
		byName[e.Name] = e
	}
	issue, ok := byName["fx_create_issue"]
	if !ok {
		t.Fatalf("camelCase createIssue is not fx_create_issue; names: %v", slices.Collect(func(yield func(string) bool) {
			for n := range byName {
				if !yield(n) {
					return
				}
			}
		}))
	}
	if issue.Remote != "createIssue" || issue.Description != "Create a new issue in a GitHub repository." {
		t.Errorf("fx_create_issue = %+v; want the remote name kept and only the first paragraph", issue)
	}
	tool, _ := m.Get(t.Context(), "fx_create_issue")
	if got := string(tool.Spec().Parameters); !strings.HasPrefix(got, `{"type":"object","properties":{"repo":`) || !strings.Contains(got, `"required":["repo","title"]`) {
		t.Errorf("schema = %s; want required properties first and required kept", got)
	}
	if tool.Effect() != tools.External {
		t.Errorf("effect %v, want external", tool.Effect())
	}
}

func TestSearchReturnsOnlyTheMatchingFew(t *testing.T) {
	m, _ := newMemManager(t, Options{})
	tests := []struct {
		query string
		k     int
		first string
		want  []string // all of these, in any order after first
		none  bool
	}{
		{query: "create a github issue", k: 3, first: "fx_create_issue", want: []string{"fx_list_issues"}},
		{query: "what's the weather in Paris?", k: 5, first: "fx_get_weather"},
		{query: "send an e-mail", k: 2, first: "fx_send_email"},
		{query: "createIssue", k: 1, first: "fx_create_issue"},
		{query: "listing issues", k: 0, first: "fx_list_issues"},
		{query: "quantum chromodynamics", k: 5, none: true},
		{query: "the tool", k: 5, none: true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := m.Search(t.Context(), tt.query, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			n := names(got)
			if tt.none {
				if len(n) != 0 {
					t.Errorf("Search = %v, want nothing", n)
				}
				return
			}
			k := tt.k
			if k <= 0 {
				k = DefaultK
			}
			if len(n) == 0 || n[0] != tt.first || len(n) > k {
				t.Fatalf("Search = %v, want %s first and at most %d", n, tt.first, k)
			}
			for _, w := range tt.want {
				if !slices.Contains(n, w) {
					t.Errorf("Search = %v, lacks %s", n, w)
				}
			}
			again, _ := m.Search(t.Context(), tt.query, tt.k)
			if !slices.Equal(names(again), n) {
				t.Errorf("Search is not deterministic: %v then %v", n, names(again))
			}
		})
	}
}

func TestCallsRoundTrip(t *testing.T) {
	m, _ := newMemManager(t, Options{})
	tests := []struct {
		name, tool, args string
		limit            int
		isError          bool
		want             []string
	}{
		{"text", "fx_echo", `{"text":"hello there"}`, 0, false, []string{"hello there"}},
		{"numbers", "fx_add", `{"a":2,"b":3.5}`, 0, false, []string{"5.5"}},
		{"tool error", "fx_fail", `{}`, 0, true, []string{"disk quota exceeded"}},
		{"no args", "fx_pid", ``, 0, false, nil},
		{"bad args", "fx_add", `{"a":"two"}`, 0, true, []string{"a"}},
		{"media", "fx_image", `{}`, 0, false, []string{
			"here is the chart",
			"[image image/png, 2.0 KiB; not shown]",
			"[resource file:///notes.txt]\nthe notes",
			"[resource file:///blob.bin, application/octet-stream, 10 B; not shown]",
			"[resource https://example.com/report",
		}},
		{"big output", "fx_big_output", `{"lines":5000}`, 2000, false, []string{"line 1 of 5000", "line 5000 of 5000", "omitted", "full output: .tern/outputs/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, m, tt.tool, tt.args, tt.limit)
			if r.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v; output:\n%s", r.IsError, tt.isError, r.Output)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Output)
				}
			}
			if tt.limit > 0 && len(r.Output) > tt.limit {
				t.Errorf("output is %d bytes, over the limit %d", len(r.Output), tt.limit)
			}
			if r.Summary == "" || strings.Contains(r.Summary, "\n") {
				t.Errorf("Summary = %q, want one line", r.Summary)
			}
		})
	}
}

func TestBigOutputSpillsInFull(t *testing.T) {
	ws := newWorkspace(t)
	m, _ := newMemManager(t, Options{Workspace: ws})
	r := run(t, m, "fx_big_output", `{"lines":3000}`, 1500)
	_, rel, ok := strings.Cut(r.Output, "full output: ")
	if !ok {
		t.Fatalf("no spill note:\n%s", r.Output)
	}
	rel, _, _ = strings.Cut(rel, ";")
	data, err := os.ReadFile(filepath.Join(ws.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "line 1500 of 3000\n") {
		t.Errorf("spilled file lacks the middle of the output")
	}
}

func TestTimeoutLeavesServerRunning(t *testing.T) {
	m, ms := newMemManager(t, Options{})
	m.servers[0].cfg.Timeout = time.Second
	r := run(t, m, "fx_slow", `{"millis":10000}`, 0)
	if !r.IsError || !strings.Contains(r.Output, "did not answer slow within 1s") {
		t.Fatalf("slow call: %+v", r)
	}
	if r := run(t, m, "fx_echo", `{"text":"still here"}`, 0); r.IsError || r.Output != "still here" {
		t.Errorf("call after a timeout: %+v", r)
	}
	if ms.dialCount() != 1 {
		t.Errorf("a timeout restarted the server")
	}
}

func TestCancelledCall(t *testing.T) {
	m, _ := newMemManager(t, Options{})
	tool, _ := m.Get(t.Context(), "fx_slow")
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	r := tool.Run(ctx, tools.Input{Args: json.RawMessage(`{"millis":10000}`)})
	if !r.IsError || !strings.Contains(r.Output, "cancelled") {
		t.Errorf("cancelled call: %+v", r)
	}
}

func TestCrashedServerRestartsOnceAndSessionGoesOn(t *testing.T) {
	m, ms := newMemManager(t, Options{})
	steps := []struct {
		tool, args string
		isError    bool
		want       string
	}{
		{"fx_echo", `{"text":"one"}`, false, "one"},
		{"fx_crash", `{}`, true, "the next call of one of its tools restarts it once"},
		{"fx_echo", `{"text":"two"}`, false, "had stopped and was restarted for this call)\ntwo"},
		{"fx_echo", `{"text":"three"}`, false, "three"},
		{"fx_crash", `{}`, true, "already restarted once, so its tools are unavailable for the rest of this session"},
		{"fx_echo", `{"text":"four"}`, true, "is down"},
	}
	for i, s := range steps {
		r := run(t, m, s.tool, s.args, 0)
		if r.IsError != s.isError || !strings.Contains(r.Output, s.want) {
			t.Fatalf("step %d %s: IsError %v, output %q; want IsError %v and %q", i, s.tool, r.IsError, r.Output, s.isError, s.want)
		}
		if strings.HasPrefix(r.Output, "(MCP") && s.want == "three" {
			t.Errorf("step %d: restart note repeated", i)
		}
	}
	if n := ms.dialCount(); n != 2 {
		t.Errorf("server started %d times, want 2 (one restart)", n)
	}
	st := m.Status(t.Context(), nil)[0]
	if st.Running || st.Err == nil || len(st.Tools) != fixtureToolCount {
		t.Errorf("status after two crashes = running %v, err %v, %d tools", st.Running, st.Err, len(st.Tools))
	}
	got, err := m.Search(t.Context(), "echo the text", 3)
	if len(got) != 0 || err == nil || !strings.Contains(err.Error(), "mcp server fx: stopped") {
		t.Errorf("Search after the server went down for good = %v, %v; want no tools and why", names(got), err)
	}
}

func TestCancelledStartIsNotCounted(t *testing.T) {
	ms := &memServer{}
	first := true
	m, err := NewManager(Options{
		Workspace: newWorkspace(t),
		Servers:   []ServerConfig{{Name: "fx", Command: "x"}},
		Dial: func(ctx context.Context, s ServerConfig) (sdk.Transport, error) {
			if first {
				first = false
				<-ctx.Done() // the user cancels the turn while the server starts
				return nil, ctx.Err()
			}
			return ms.dial(ctx, s)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	if got, _ := m.Search(ctx, "echo", 1); len(got) != 0 {
		t.Fatalf("a cancelled start gave tools: %v", names(got))
	}
	got, err := m.Search(t.Context(), "echo", 1)
	if err != nil || len(names(got)) != 1 {
		t.Fatalf("Search after a cancelled start = %v, %v", names(got), err)
	}
	// Both starts are still there: the server survives a crash.
	run(t, m, "fx_crash", `{}`, 0)
	if r := run(t, m, "fx_echo", `{"text":"back"}`, 0); r.IsError {
		t.Errorf("no restart left after a cancelled start: %+v", r)
	}
}

func TestCloseShutsDownCalls(t *testing.T) {
	m, _ := newMemManager(t, Options{})
	tool, _ := m.Get(t.Context(), "fx_echo")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	r := tool.Run(t.Context(), tools.Input{Args: json.RawMessage(`{"text":"x"}`)})
	if !r.IsError || !strings.Contains(r.Output, "shut down") {
		t.Errorf("call after Close: %+v", r)
	}
	if _, err := m.Search(t.Context(), "echo", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close: %v, want ErrClosed", err)
	}
}

func TestNamesAvoidReservedAndOtherServers(t *testing.T) {
	m, _ := newMemManager(t, Options{Reserved: []string{"fx_echo", "read_file"}}, "fx", "My-Server")
	all, err := m.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := names(all)
	if len(n) != 2*fixtureToolCount {
		t.Fatalf("%d tools, want %d", len(n), 2*fixtureToolCount)
	}
	for _, want := range []string{"fx_echo_2", "my_server_echo", "my_server_create_issue"} {
		if !slices.Contains(n, want) {
			t.Errorf("tools lack %s: %v", want, n)
		}
	}
	if slices.Contains(n, "fx_echo") {
		t.Error("a reserved name was given to an MCP tool")
	}
	if i, j := slices.Index(n, "fx_add"), slices.Index(n, "my_server_add"); i > j {
		t.Errorf("the first server's tools do not come first: %v", n)
	}
	if r := run(t, m, "fx_echo_2", `{"text":"renamed"}`, 0); r.Output != "renamed" {
		t.Errorf("renamed tool: %+v", r)
	}
}

func TestBeforeStartRefusalKeepsServerOff(t *testing.T) {
	asked := 0
	m, ms := newMemManager(t, Options{BeforeStart: func(ctx context.Context, s ServerConfig) error {
		asked++
		return errors.New("the user said no")
	}})
	for range 2 {
		got, err := m.Search(t.Context(), "echo", 3)
		if len(got) != 0 || err == nil || !strings.Contains(err.Error(), "the user said no") {
			t.Fatalf("Search = %v, %v; want no tools and the refusal", names(got), err)
		}
	}
	if asked != 1 || ms.dialCount() != 0 {
		t.Errorf("asked %d times, dialled %d times; want 1 and 0", asked, ms.dialCount())
	}
}

func TestStatusReportsEachServer(t *testing.T) {
	off := false
	ms := &memServer{}
	m, err := NewManager(Options{
		Workspace: newWorkspace(t),
		Servers: []ServerConfig{
			{Name: "good", Command: "x"},
			{Name: "broken", Command: "x"},
			{Name: "off", Enabled: &off},
		},
		Dial: func(ctx context.Context, s ServerConfig) (sdk.Transport, error) {
			if s.Name == "broken" {
				return nil, errors.New("boom")
			}
			return ms.dial(ctx, s)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := m.Status(t.Context(), func(s string) int { return 1 })
	if len(st) != 3 {
		t.Fatalf("%d statuses, want 3", len(st))
	}
	if g := st[0]; !g.Running || len(g.Tools) != fixtureToolCount || g.Tokens != fixtureToolCount || g.Err != nil {
		t.Errorf("good = %+v", g)
	}
	if b := st[1]; b.Running || b.Err == nil || !strings.Contains(b.Err.Error(), "boom") || !strings.Contains(b.Fix, "[mcp.servers.broken]") {
		t.Errorf("broken = running %v, err %v, fix %q", b.Running, b.Err, b.Fix)
	}
	if o := st[2]; o.Running || o.Err != nil || o.Config.On() {
		t.Errorf("off = %+v", o)
	}
}
