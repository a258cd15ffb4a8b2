package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

func plainLines(lines []line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.plain()
	}
	return out
}

func TestMarkdown(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(false))
	tests := []struct {
		name, src string
		want      []string
	}{
		{"heading and paragraph", "# Title\n\nSome *text* and **bold**.", []string{"Title", "", "Some text and bold."}},
		{"lists", "- one\n- two\n  1. a\n  2. b", []string{"• one", "• two", "  1. a", "  2. b"}},
		{"tasks", "- [ ] todo\n- [x] done", []string{"• ☐ todo", "• ☑ done"}},
		{"code keeps brackets", "```go\nm[\"k\"] = [red]x[-]\n```", []string{`  m["k"] = [red]x[-]`}},
		{"inline code and link", "Use `a[0]` or [docs](https://x.dev).", []string{"Use a[0] or docs (https://x.dev)."}},
		{"quote", "> careful\n> now", []string{"│ careful", "│ now"}},
		{"table", "| a | bb |\n|---|---|\n| 1 | 2 |", []string{"a │ bb", "──┼───", "1 │ 2"}},
		{"unclosed fence while streaming", "Here:\n```python\nprint(1)", []string{"Here:", "", "  print(1)"}},
		{"escapes", `1\. not a list \*x\*`, []string{"1. not a list *x*"}},
		{"rule", "a\n\n---\n\nb", []string{"a", "", strings.Repeat("─", 40), "", "b"}},
		{"tag-like text", "[yellow]not yellow[-] and [\"region\"]", []string{`[yellow]not yellow[-] and ["region"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plainLines(md.render(tt.src))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("render(%q) (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestMarkdownStyles(t *testing.T) {
	t.Parallel()
	th := newTheme(false)
	md := newMarkdown(th)
	lines := md.render("# Head\n\n**b** `c`\n\n```go\nfunc f() {}\n```")
	if st := lines[0].spans[0].style; st != th.heading {
		t.Errorf("heading style = %v", st)
	}
	para := lines[2].spans
	if _, _, attrs := para[0].style.Decompose(); attrs&tcell.AttrBold == 0 {
		t.Errorf("bold text is not bold")
	}
	if para[len(para)-1].style != th.code {
		t.Errorf("inline code style = %v", para[len(para)-1].style)
	}
	code := lines[4].spans
	colours := map[tcell.Color]bool{}
	for _, s := range code {
		fg, _, _ := s.style.Decompose()
		colours[fg] = true
	}
	if len(colours) < 2 {
		t.Errorf("Go code is not highlighted: %v", code)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		l     line
		width int
		want  []string
	}{
		{"fits", styledLine("short", tcell.StyleDefault), 10, []string{"short"}},
		{"at spaces", styledLine("one two three four", tcell.StyleDefault), 9, []string{"one two", "three", "four"}},
		{"long word", styledLine("abcdefghij", tcell.StyleDefault), 4, []string{"abcd", "efgh", "ij"}},
		{"wide characters", styledLine("日本語のテキスト", tcell.StyleDefault), 5, []string{"日本", "語の", "テキ", "スト"}},
		{"hang indent", line{spans: []span{{text: "• alpha beta gamma"}}, hang: 2}, 10, []string{"• alpha", "  beta", "  gamma"}},
		{"emoji", styledLine("ok 👍🏽 done", tcell.StyleDefault), 5, []string{"ok 👍🏽", "done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, row := range wrap(tt.l, tt.width) {
				got = append(got, line{spans: row}.plain())
				if w := spansWidth(row); w > tt.width {
					t.Errorf("row %q is %d columns, wider than %d", line{spans: row}.plain(), w, tt.width)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	got := cleanText("\x1b[31mred\x1b[0m\ta\r\nb\x07\x1b]0;title\x07c")
	if want := "red a\nbc"; got != want {
		t.Errorf("cleanText = %q, want %q", got, want)
	}
}

// TestToolHeader: a call's line is its tool and what the call is about,
// as the tool says it (tools.TestDescribe checks what each says); without
// a subject, its arguments.
func TestToolHeader(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, subject, args, want string }{
		{"read_file", "agent/loop.go:1-80", `{"path":"agent/loop.go","offset":1,"limit":80}`, "read_file agent/loop.go:1-80"},
		{"grep", `"parseConfig" in cmd`, `{"pattern":"parseConfig","path":"cmd"}`, `grep "parseConfig" in cmd`},
		{"list_dir", "", `{}`, "list_dir"},
		{"run_command", "go test ./...", `{"command":"go test ./..."}`, "run_command go test ./..."},
		{"odd", "", `{"x":[1,2]}`, `odd x=[2]`},
		{"mcp_tool", "", `{"b":{"c":1},"a":"two words","n":3,"ok":true}`, `mcp_tool a="two words" b={…} n=3 ok=true`},
		{"odd", "", `not json`, "odd"},
	}
	for _, tt := range tests {
		if got := toolHeader(tt.name, tt.subject, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("toolHeader(%s, %q, %s) = %q, want %q", tt.name, tt.subject, tt.args, got, tt.want)
		}
	}
}

func TestScrollbackIsBounded(t *testing.T) {
	t.Parallel()
	c := newConvo(newTheme(false), 50)
	for i := range 100 {
		c.add(&block{kind: kindInfo, short: []line{styledLine(fmt.Sprint("line ", i), tcell.StyleDefault)}})
	}
	if len(c.blocks) != 50 || !c.dropped {
		t.Fatalf("%d blocks kept (dropped %v), want the newest 50", len(c.blocks), c.dropped)
	}
	if got := c.blocks[0].short[0].plain(); got != "line 50" {
		t.Errorf("oldest kept = %q", got)
	}
}

func TestPumpMergesDeltasOnly(t *testing.T) {
	t.Parallel()
	p := newPump(nil, nil)
	for _, e := range []agent.Event{agent.Token{Text: "a"}, agent.Token{Text: "b"}, agent.Thinking{Text: "t"},
		agent.Thinking{Text: "u"}, agent.Notice{Text: "n"}, agent.Token{Text: "c"}, agent.Done{}} {
		p.emit(e)
	}
	var got []string
	for _, it := range p.queue {
		text := ""
		switch e := it.ev.(type) {
		case agent.Token:
			text = e.Text
		case agent.Thinking:
			text = e.Text
		case agent.Notice:
			text = e.Text
		}
		got = append(got, fmt.Sprintf("%s:%s:%d", it.ev.Type(), text, it.n))
	}
	want := []string{"token:ab:2", "thinking:tu:2", "notice:n:1", "token:c:1", "done::1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
}

func TestThinkingIsDimmedAndCollapses(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.srv.Script(ollamatest.Reply{Thinking: "Let me consider the [files] here carefully.", Content: "Answer.", ChunkDelay: 5 * time.Millisecond})
	h.send("think")
	s := h.waitFor("thought for", "Answer.")
	if strings.Contains(s, "consider the [files]") {
		t.Errorf("the thinking stayed open after the answer:\n%s", s)
	}
	h.idle()
	h.key(tcell.KeyTab)
	h.key(tcell.KeyEnter)
	h.waitFor("Let me consider the [files] here carefully.")
	// The thinking is dim (grey), unlike the answer.
	var fg tcell.Color
	h.onLoop(func() {
		cells, w, ht := h.sim.GetContents()
		for y := 0; y < ht; y++ {
			var row strings.Builder
			for x := 0; x < w; x++ {
				row.WriteString(string(cells[y*w+x].Runes))
			}
			if strings.HasPrefix(strings.TrimSpace(row.String()), "Let me") {
				x := strings.Index(row.String(), "Let")
				fg, _, _ = cells[y*w+x].Style.Decompose()
			}
		}
	})
	if want, _, _ := newTheme(false).thinking.Decompose(); fg != want {
		t.Errorf("thinking colour = %v", fg)
	}
}

func TestResizeAndWideText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	long := strings.Repeat("漢字とかな ", 30)
	h.srv.Script(ollamatest.Reply{Content: long})
	h.send("wide")
	h.waitFor("漢字")
	h.idle()
	h.onLoop(func() { h.sim.SetSize(40, 12) })
	h.post(tcell.NewEventResize(40, 12))
	s := h.waitFor("tern", "›")
	rows := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(rows) != 12 {
		t.Fatalf("%d rows after resizing to 12", len(rows))
	}
	if !strings.Contains(rows[0], "qwen3:8b") {
		t.Errorf("status bar lost the model at 40 columns: %q", rows[0])
	}
	if !strings.Contains(s, "漢字") {
		t.Errorf("wide text is gone after the resize:\n%s", s)
	}
}

func TestLongOutputIsCappedWhenOpened(t *testing.T) {
	t.Parallel()
	th := newTheme(false)
	out := strings.Repeat("row\n", 1000)
	short, long := toolLines(th, "run_command seq 1000", agent.ToolEnd{Name: "run_command", Output: out, Summary: "exit 0"})
	if len(short) != 1 {
		t.Errorf("the closed call shows %d lines", len(short))
	}
	if len(long) != 1+outputShown+1 || !strings.Contains(long[len(long)-1].plain(), "600 more lines") {
		t.Errorf("the open call shows %d lines ending %q", len(long), long[len(long)-1].plain())
	}
}

func TestNoColour(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withConfig(func(c *Config) { c.NoColor = true }))
	h.online()
	h.srv.Script(ollamatest.Reply{Content: "# Head\n\n```go\nfunc f() {}\n```"})
	h.send("colour?")
	h.waitFor("Head", "func f() {}")
	h.idle()
	h.onLoop(func() {
		cells, _, _ := h.sim.GetContents()
		for _, c := range cells {
			fg, bg, _ := c.Style.Decompose()
			if fg != tcell.ColorDefault || bg != tcell.ColorDefault {
				t.Errorf("cell %q has colours %v on %v", string(c.Runes), fg, bg)
				return
			}
		}
	})
}

func TestPresenterShowsWhatTheAgentKept(t *testing.T) {
	t.Parallel()
	a := New(Config{Root: "/r", Screen: tcell.NewSimulationScreen("UTF-8")}, Deps{Connect: waitForever})
	apply := func(ops []func()) {
		for _, op := range ops {
			op()
		}
	}
	p := a.pres
	apply(p.event(agent.Token{Text: `{"name": "list_dir"`}, 1))
	apply(p.flush())
	if !strings.Contains(a.conv.text(), "list_dir") {
		t.Fatalf("the streamed text is not shown:\n%s", a.conv.text())
	}
	// The agent found a tool call in that text and kept no answer.
	apply(p.event(agent.Message{}, 1))
	if strings.Contains(a.conv.text(), "list_dir") {
		t.Errorf("text the agent turned into a tool call is still shown:\n%s", a.conv.text())
	}
	apply(p.event(agent.Token{Text: "Partial answ"}, 1))
	apply(p.event(agent.Done{Reason: agent.DoneCanceled}, 1))
	if got := a.conv.text(); !strings.Contains(got, "Partial answ") || !strings.Contains(got, "cancelled") {
		t.Errorf("a cancelled answer is not kept with a notice:\n%s", got)
	}
}

// TestHistoryHeadersComeFromTheTools: a resumed conversation heads each
// call as it was shown live, with what the call was about in the tool's
// own words (Backend.Describe), and with its arguments when none is known.
func TestHistoryHeadersComeFromTheTools(t *testing.T) {
	t.Parallel()
	th := newTheme(false)
	history := []models.Message{
		{Role: models.RoleUser, Content: "look"},
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{
			{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "c2", Name: "frob", Arguments: json.RawMessage(`{"x":1}`)},
		}},
		{Role: models.RoleTool, ToolCallID: "c1", ToolName: "read_file", Content: "a.go does not exist"},
		{Role: models.RoleTool, ToolCallID: "c2", ToolName: "frob", Content: "no such tool"},
	}
	calls := map[string]CallSummary{"c1": {IsError: true, Summary: "error"}, "c2": {IsError: true}}
	describe := func(name string, _ json.RawMessage) string {
		if name == "read_file" {
			return "a.go"
		}
		return ""
	}
	var got []string
	for _, b := range historyBlocks(th, newMarkdown(th), history, calls, describe) {
		if b.kind == kindTool {
			got = append(got, b.short[0].plain())
		}
	}
	want := []string{"✗ read_file a.go — a.go does not exist", "✗ frob x=1 — no such tool"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCodePalette: code is coloured in the theme's own colours (a diff's
// added line as tern's diffs show one, a comment as a quote), a token
// without a colour of its own takes its kind's (an escape in a string is
// string-coloured), and the monochrome theme colours nothing.
func TestCodePalette(t *testing.T) {
	t.Parallel()
	th := newTheme(false)
	hl := newHighlighter(th)
	styleOf := func(code, lang, text string) tcell.Style {
		t.Helper()
		for _, l := range hl.lines(code, lang) {
			for _, s := range l.spans {
				if strings.Contains(s.text, text) {
					return s.style
				}
			}
		}
		t.Fatalf("%q is not in the highlighted %s code", text, lang)
		return tcell.StyleDefault
	}
	if st := styleOf("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n", "diff", "+new"); st != th.diffAdd {
		t.Errorf("an added diff line is %v, want the diff view's %v", st, th.diffAdd)
	}
	if st := styleOf("// says hi\nfunc f() {}\n", "go", "says hi"); st != th.quote {
		t.Errorf("a Go comment is %v, want %v", st, th.quote)
	}
	str, esc := styleOf(`s := "a\n"`, "go", `"a`), styleOf(`s := "a\n"`, "go", `\n`)
	if str == tcell.StyleDefault || esc != str {
		t.Errorf("a string is %v and its escape %v: want one string colour", str, esc)
	}
	for _, l := range newHighlighter(newTheme(true)).lines("func f() {}", "go") {
		for _, s := range l.spans {
			if s.style != newTheme(true).code {
				t.Errorf("the monochrome theme coloured %q: %v", s.text, s.style)
			}
		}
	}
}

// TestToolLineCountsTheProblemsAnEditIntroduced: an edit that broke the
// build says so on its line, without opening it.
func TestToolLineCountsTheProblemsAnEditIntroduced(t *testing.T) {
	t.Parallel()
	th := newTheme(false)
	e := agent.ToolEnd{Name: "edit_file", Summary: "greet.go: +1 -1", Diagnostics: []tools.Diagnostic{
		{Path: "main.go", Line: 6, Severity: "error"}, {Path: "greet.go", Line: 4, Severity: "warning"}, {Path: "main.go", Line: 9, Severity: "error"}}}
	short, _ := toolLines(th, "edit_file greet.go", e)
	if got := short[0].plain(); got != "✓ edit_file greet.go: +1 -1 · 2 errors, 1 warning" {
		t.Errorf("tool line = %q", got)
	}
	e.Diagnostics = nil
	if got, _ := toolLines(th, "edit_file greet.go", e); strings.Contains(got[0].plain(), "error") {
		t.Errorf("an edit that broke nothing: %q", got[0].plain())
	}
}

// TestStatusBarKeepsTheSessionID: at 120 columns, with the tools of tier 2
// and a turn at work, the status bar still shows the session id (which
// --resume takes); at 60 it keeps the model, the tokens and the work.
func TestStatusBarKeepsTheSessionID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withTiers(&fakeTiers{tier: 2}))
	h.online()
	id := h.sessionID()
	release := holdFirst(t, h, "work")
	h.send("work")
	h.waitFor("generating")
	for _, w := range []int{120, 60} {
		h.resize(w, 30)
		bar := statusBar(h.waitFor("generating"))
		want := []string{"qwen3:8b", "/8.2k tok", "generating"}
		if w >= 120 {
			want = append(want, "tier 2", "RAG off", id)
		}
		for _, s := range want {
			if !strings.Contains(bar, s) {
				t.Errorf("at %d columns the status bar lacks %q: %q", w, s, bar)
			}
		}
	}
	release()
}

// TestStatusBarSaysWhatConfinesCommands: the status bar names the sandbox
// that confines the model's commands, and warns when nothing does.
func TestStatusBarSaysWhatConfinesCommands(t *testing.T) {
	t.Parallel()
	for sandbox, want := range map[string]string{"": "unconfined", "bubblewrap": "sandbox: bubblewrap"} {
		h := newHarness(t, withDeps(func(d *Deps) {
			inner := d.Connect
			d.Connect = func(ctx context.Context, req ConnectRequest) (*Backend, error) {
				b, err := inner(ctx, req)
				if b != nil {
					b.Sandbox = sandbox
				}
				return b, err
			}
		}))
		h.online()
		h.resize(200, 30)
		bar := statusBar(h.waitFor(want))
		if !strings.Contains(bar, want) || sandbox != "" && strings.Contains(bar, "unconfined") {
			t.Errorf("sandbox %q: the status bar reads %q; want %q", sandbox, bar, want)
		}
	}
}
