package disclosure

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// fakeTool is a tool that records its runs.
type fakeTool struct {
	name   string
	effect tools.Effect
	runs   int
}

func (f *fakeTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: f.name, Description: "fake " + f.name, Parameters: models.Schema(models.Param{Name: "x", Type: "string"})}
}
func (f *fakeTool) Effect() tools.Effect { return f.effect }
func (f *fakeTool) Run(context.Context, tools.Input) tools.Result {
	f.runs++
	return tools.Result{Output: f.name + " ran"}
}

// fakeTiers mirrors the real tiers with fakes.
func fakeTiers() [NumTiers][]tools.Tool {
	mk := func(effect tools.Effect, names ...string) []tools.Tool {
		var out []tools.Tool
		for _, n := range names {
			out = append(out, &fakeTool{name: n, effect: effect})
		}
		return out
	}
	return [NumTiers][]tools.Tool{
		mk(tools.ReadOnly, "read_file", "list_dir", "grep", "glob"),
		mk(tools.Writes, "edit_file", "write_file"),
		mk(tools.Executes, "run_command", "git_status", "git_diff", "git_commit"),
		nil,
	}
}

func newSet(t *testing.T, start, maxTier Tier, opts ...func(*Config)) *Set {
	t.Helper()
	cfg := Config{Tools: fakeTiers(), Start: start, Max: maxTier, Intents: defaultIntents(t)}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func visibleNames(s *Set) []string { return names(s.All()) }

func TestStartAndCap(t *testing.T) {
	tests := []struct {
		start, max Tier
		want       []string
	}{
		{0, 3, []string{"read_file", "list_dir", "grep", "glob", "request_tools"}},
		{0, 0, []string{"read_file", "list_dir", "grep", "glob"}}, // nothing to request
		{1, 3, []string{"read_file", "list_dir", "grep", "glob", "request_tools", "edit_file", "write_file"}},
		{2, 2, []string{"read_file", "list_dir", "grep", "glob", "request_tools", "edit_file", "write_file", "run_command", "git_status", "git_diff", "git_commit"}},
	}
	for _, tt := range tests {
		s := newSet(t, tt.start, tt.max)
		if got := visibleNames(s); !slices.Equal(got, tt.want) {
			t.Errorf("start %d max %d: visible %v, want %v", tt.start, tt.max, got, tt.want)
		}
	}
	for _, bad := range []Config{{Start: 2, Max: 1}, {Start: -1, Max: 3}, {Start: 0, Max: 4}} {
		bad.Tools = fakeTiers()
		if _, err := New(bad); err == nil {
			t.Errorf("New(start %d, max %d) succeeded", bad.Start, bad.Max)
		}
	}
}

func TestLockedToolsAnswerWithGuidance(t *testing.T) {
	s := newSet(t, 0, 2)
	for _, name := range []string{"edit_file", "Edit-File", "functions.run_command"} {
		tool, ok := s.Get(name)
		if !ok {
			t.Fatalf("Get(%q) found nothing", name)
		}
		if _, ok := tool.(*fakeTool); ok {
			t.Fatalf("Get(%q) returned the real, locked tool", name)
		}
		rv := tool.(tools.Reviewer).Review(t.Context(), nil)
		res := tool.Run(t.Context(), tools.Input{})
		if rv.Refused == nil || !reflect.DeepEqual(*rv.Refused, res) {
			t.Errorf("%s: review %+v does not refuse like Run %+v", name, rv, res)
		}
		if !res.IsError || !strings.Contains(res.Output, "which is locked. Call request_tools with {\"tier\": ") {
			t.Errorf("%s: result %q", name, res.Output)
		}
		if tool.Effect() == tools.ReadOnly {
			t.Errorf("%s: a stand-in must not run in a parallel batch", name)
		}
	}
	capped := newSet(t, 0, 1)
	tool, _ := capped.Get("run_command")
	if r := tool.Run(t.Context(), tools.Input{}); !strings.Contains(r.Output, "not available: the user limited this session to tier 1 (edit)") {
		t.Errorf("a tool over the cap: %q", r.Output)
	}
	if _, ok := s.Get("fetch_url"); ok {
		t.Error("Get found a tool no tier holds")
	}
	for _, tier := range fakeTiers() {
		for _, ft := range tier {
			if ft.(*fakeTool).runs > 0 {
				t.Errorf("%s ran while locked", ft.Spec().Name)
			}
		}
	}
}

func TestOnPromptUnlocks(t *testing.T) {
	s := newSet(t, 0, 3)
	s.OnPrompt(t.Context(), "what does main.go do?")
	if s.Tier() != Read || len(s.Notices()) != 0 {
		t.Fatalf("a question unlocked %s", s.Tier())
	}
	s.OnPrompt(t.Context(), "fix the typo in main.go")
	if s.Tier() != Edit {
		t.Fatalf("tier after 'fix' = %s", s.Tier())
	}
	n := s.Notices()
	if len(n) != 1 || n[0] != `tier 1 (edit) unlocked: edit_file, write_file — the request says "fix"` {
		t.Errorf("notices = %q", n)
	}
	s.OnPrompt(t.Context(), "now explain it") // sticky: nothing is locked again
	if s.Tier() != Edit {
		t.Errorf("tier fell back to %s", s.Tier())
	}
	s.OnPrompt(t.Context(), "look it up on the web")
	if s.Tier() != Edit || len(s.Notices()) != 0 {
		t.Errorf("asking for the web, with no tier-3 tools, moved to %s", s.Tier())
	}
	capped := newSet(t, 0, 1)
	capped.OnPrompt(t.Context(), "run the tests")
	if capped.Tier() != Read {
		t.Errorf("capped at 1, 'run' unlocked %s", capped.Tier())
	}
	if n := capped.Notices(); len(n) != 1 || !strings.Contains(n[0], `needs tier 2 (commands) ("run"), but this session is capped at tier 1 (edit) (--max-tier)`) {
		t.Errorf("notices = %q, want a word about the cap", n)
	}
	capped.OnPrompt(t.Context(), "fix the bug and run the tests")
	if capped.Tier() != Edit {
		t.Errorf("capped at 1, 'fix … and run' unlocked %s, want tier 1", capped.Tier())
	}
	if n := capped.Notices(); len(n) != 2 {
		t.Errorf("notices = %q, want the unlock and the cap", n)
	}
}

func request(t *testing.T, s *Set, args string) tools.Result {
	t.Helper()
	rt, ok := s.Get("request_tools")
	if !ok {
		t.Fatal("no request_tools")
	}
	return rt.Run(t.Context(), tools.Input{Args: json.RawMessage(args)})
}

func TestRequestTools(t *testing.T) {
	tests := []struct {
		name    string
		start   Tier
		max     Tier
		args    string
		isError bool
		want    string
		tier    Tier
		visible string // a tool that must be visible after
	}{
		{name: "tier", args: `{"tier":1,"reason":"fix the bug"}`, want: "Unlocked tier 1 (edit): edit_file, write_file. You can call them now.", tier: Edit},
		{name: "tier as a string", args: `{"tier":"tier 2"}`, want: "Unlocked tier 2 (commands): edit_file, write_file, run_command", tier: Commands},
		{name: "one tool", args: `{"tool":"git_status","reason":"see changes"}`, want: "Unlocked git_status.", tier: Read, visible: "git_status"},
		{name: "tool name slips", args: `{"tool":"Git-Diff"}`, want: "Unlocked git_diff.", visible: "git_diff"},
		{name: "from the reason", args: `{"reason":"I need to run the tests"}`, want: "Unlocked tier 2", tier: Commands},
		{name: "already", start: 1, args: `{"tier":1}`, want: "tier 1 (edit) is already unlocked: edit_file, write_file.", tier: Edit},
		{name: "tool already", args: `{"tool":"grep"}`, want: "grep is already available."},
		{name: "over the cap", max: 1, args: `{"tier":2}`, isError: true, want: "not allowed: the user limited this session to tier 1 (edit)"},
		{name: "tool over the cap", max: 1, args: `{"tool":"run_command"}`, isError: true, want: "does not allow"},
		{name: "tier 0", args: `{"tier":0}`, isError: true, want: "tier 0 tools are always available"},
		{name: "no such tier", args: `{"tier":7}`, isError: true, want: "there is no tier 7"},
		{name: "empty tier", args: `{"tier":3}`, isError: true, want: "tier 3 (external) has no tools in this session. You can unlock tier 1: edit_file, write_file; tier 2: run_command"},
		{name: "unknown tool", args: `{"tool":"fetch_url"}`, isError: true, want: `there is no tool "fetch_url"`},
		{name: "nothing said", args: `{}`, isError: true, want: "say which tier you need"},
		{name: "bad json", args: `{"tier":`, isError: true, want: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxTier := tt.max
			if maxTier == 0 {
				maxTier = External
			}
			s := newSet(t, tt.start, maxTier)
			r := request(t, s, tt.args)
			if r.IsError != tt.isError || !strings.Contains(r.Output, tt.want) {
				t.Errorf("result = %+v, want error %v and %q", r, tt.isError, tt.want)
			}
			if s.Tier() != max(tt.tier, tt.start) {
				t.Errorf("tier = %s, want %s", s.Tier(), tt.tier)
			}
			if tt.visible != "" {
				if got := visibleNames(s); got[len(got)-1] != tt.visible {
					t.Errorf("visible = %v, want %s appended at the end", got, tt.visible)
				}
			}
			if !tt.isError && strings.HasPrefix(r.Output, "Unlocked") {
				n := s.Notices()
				if len(n) != 1 || !strings.Contains(n[0], "the model asked") {
					t.Errorf("notices = %q, want one saying the model asked", n)
				}
			}
		})
	}
}

// TestPrefixOnlyGrows drives a session through prompts, requests and
// unlocks: the tools of every request must be a prefix of the next one's,
// so the server's prompt cache survives every unlock.
func TestPrefixOnlyGrows(t *testing.T) {
	s := newSet(t, 0, 3)
	steps := []func(){
		func() { s.OnPrompt(t.Context(), "what is this?") },
		func() { request(t, s, `{"tool":"git_diff"}`) },
		func() { s.OnPrompt(t.Context(), "fix the typo") },
		func() { request(t, s, `{"tool":"git_status"}`) },
		func() { s.OnPrompt(t.Context(), "explain") },
		func() { request(t, s, `{"tier":2}`) },
		func() { s.OnPrompt(t.Context(), "run the tests and commit") },
		func() { request(t, s, `{"tier":1}`) },
	}
	prev := visibleNames(s)
	for i, step := range steps {
		step()
		cur := visibleNames(s)
		if len(cur) < len(prev) || !slices.Equal(cur[:len(prev)], prev) {
			t.Fatalf("step %d: tools %v are not an extension of %v", i, cur, prev)
		}
		prev = cur
	}
	want := []string{"read_file", "list_dir", "grep", "glob", "request_tools", "git_diff", "edit_file", "write_file", "git_status", "run_command", "git_commit"}
	if !slices.Equal(prev, want) {
		t.Errorf("final tools = %v, want %v", prev, want)
	}
}

func TestLowerAndPersist(t *testing.T) {
	var saved []State
	save := func(_ context.Context, st State) error {
		saved = append(saved, st)
		return nil
	}
	s := newSet(t, 0, 3, func(c *Config) { c.Save = save })
	request(t, s, `{"tool":"git_status"}`)
	s.OnPrompt(t.Context(), "fix it")
	if len(saved) != 2 {
		t.Fatalf("saved %d times, want after each change", len(saved))
	}
	last := saved[len(saved)-1]

	// A resumed session sees the same tools in the same order.
	st, err := ParseState(last.String())
	if err != nil {
		t.Fatal(err)
	}
	resumed := newSet(t, 0, 3, func(c *Config) { c.Restore = &st })
	if !slices.Equal(visibleNames(resumed), visibleNames(s)) || resumed.Tier() != Edit {
		t.Errorf("resumed tools %v (tier %s), want %v", visibleNames(resumed), resumed.Tier(), visibleNames(s))
	}
	// Resumed under a lower cap, it keeps what the cap allows and says so.
	capped := newSet(t, 0, 0, func(c *Config) { c.Restore = &st })
	if got := visibleNames(capped); !slices.Equal(got, []string{"read_file", "list_dir", "grep", "glob"}) {
		t.Errorf("capped resume = %v", got)
	}
	if n := capped.Notices(); len(n) != 1 || !strings.Contains(n[0], "--max-tier caps it at tier 0") {
		t.Errorf("capped resume notices = %q", n)
	}

	// Lowering is explicit and drops everything above.
	if err := s.SetTier(t.Context(), Read, "the user asked"); err != nil {
		t.Fatal(err)
	}
	if got := visibleNames(s); !slices.Equal(got, []string{"read_file", "list_dir", "grep", "glob", "request_tools"}) {
		t.Errorf("after lowering: %v", got)
	}
	if saved[len(saved)-1].Tier != Read {
		t.Error("the lowering was not saved")
	}
	if err := s.SetTier(t.Context(), External+1, ""); err == nil {
		t.Error("SetTier(4) succeeded")
	}
	if err := newSet(t, 0, 1).SetTier(t.Context(), Commands, ""); err == nil {
		t.Error("SetTier above the cap succeeded")
	}

	failing := newSet(t, 0, 3, func(c *Config) {
		c.Save = func(context.Context, State) error { return errors.New("disk full") }
	})
	failing.OnPrompt(t.Context(), "fix it")
	if n := failing.Notices(); len(n) != 2 || !strings.Contains(n[1], "disk full") {
		t.Errorf("a failed save was not reported: %q", n)
	}
	if _, err := ParseState(`{"tier":9}`); err == nil {
		t.Error("ParseState accepted tier 9")
	}
}

func TestDuplicateTools(t *testing.T) {
	tiers := fakeTiers()
	tiers[2] = append(tiers[2], &fakeTool{name: "grep"})
	if _, err := New(Config{Tools: tiers, Max: 3}); err == nil {
		t.Error("New accepted a tool registered twice")
	}
}
