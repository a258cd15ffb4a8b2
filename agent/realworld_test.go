package agent

// The real-world scorer: replies small models really wrote, verbatim from
// public issue threads, played through a whole turn against a fake
// server, and judged by what a person reading them sees the model meant.
// testdata/replies holds three sets: the replies tern is tuned on
// (tune.txt), real answers that must stay answers (prose.txt), and the
// held-aside set (heldout.txt), which is only measured, with -heldout:
//
//	go test ./agent -run TestRealWorldReplies -heldout -v

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/models/openaitest"
	"github.com/ternhq/tern/tools"
)

var heldout = flag.Bool("heldout", false, "also score the held-aside replies of testdata/replies/heldout.txt (measure them; never tune on them)")

// replyCase is one reply of a set.
type replyCase struct {
	id, source string
	specs      []models.ToolSpec
	// kind is "" for a reply, else "server-error BACKEND HOW": the reply
	// is the server's error message.
	kind     string
	expect   []expectation
	thinking string
	reply    string
}

// expectation is one line of what the model meant.
type expectation struct {
	what string // call, correct, remind, retry, prose
	name string
	args json.RawMessage
}

// ternTools are the tools a prose answer is played against: tern's own,
// as their schemas stand.
const ternTools = "read_file(path*,offset:integer,limit:integer) list_dir(path) grep(pattern*,path,glob) glob(pattern*) " +
	"edit_file(path*,old_string*,new_string*) write_file(path*,content*) run_command(command*,timeout:integer)"

// loadReplyCases reads a set of testdata/replies.
func loadReplyCases(t testing.TB, path string) []replyCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []replyCase
	var cur *replyCase
	section := ""
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.Join(body, "\n")
		switch section {
		case "reply":
			cur.reply = text
		case "thinking":
			cur.thinking = text
		}
		body = nil
		cases = append(cases, *cur)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "=== "):
			if cur != nil {
				flush()
			}
			cur = &replyCase{id: strings.TrimPrefix(line, "=== ")}
			section = "head"
		case cur == nil:
			// the set's comment
		case section != "reply" && strings.HasPrefix(line, "--- "):
			if section == "thinking" {
				cur.thinking = strings.Join(body, "\n")
				body = nil
			}
			section = strings.TrimPrefix(line, "--- ")
		case section == "head":
			key, val, _ := strings.Cut(line, ": ")
			switch key {
			case "source":
				cur.source = val
			case "tools":
				specs, err := parseToolList(val)
				if err != nil {
					t.Fatalf("%s: %v", cur.id, err)
				}
				cur.specs = specs
			case "kind":
				cur.kind = val
			case "expect":
				what, rest, _ := strings.Cut(val, " ")
				e := expectation{what: what}
				if what == "call" {
					name, args, _ := strings.Cut(rest, " ")
					e.name, e.args = name, json.RawMessage(args)
					if !json.Valid(e.args) {
						t.Fatalf("%s: expected arguments %s are not JSON", cur.id, args)
					}
				}
				cur.expect = append(cur.expect, e)
			}
		default:
			body = append(body, line)
		}
	}
	if cur != nil {
		flush()
	}
	for i := range cases {
		if cases[i].specs == nil {
			cases[i].specs, _ = parseToolList(ternTools)
		}
		if len(cases[i].expect) == 0 {
			cases[i].expect = []expectation{{what: "prose"}}
		}
	}
	return cases
}

// toolDecl matches one tool of a tools: line.
var toolDecl = regexp.MustCompile(`([\w.\-]+)\(([^)]*)\)`)

// parseToolList reads "name(param*:type, …) …" into tool specs.
func parseToolList(line string) ([]models.ToolSpec, error) {
	var specs []models.ToolSpec
	for _, m := range toolDecl.FindAllStringSubmatch(line, -1) {
		var params []models.Param
		for _, p := range strings.Split(m[2], ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			name, typ, _ := strings.Cut(p, ":")
			param := models.Param{Name: strings.TrimSuffix(name, "*"), Type: "string", Required: strings.HasSuffix(name, "*")}
			if typ != "" {
				param.Type = typ
			}
			if param.Type == "array" {
				param.Items = "string"
			}
			params = append(params, param)
		}
		specs = append(specs, models.ToolSpec{Name: m[1], Description: "A tool.", Parameters: models.Schema(params...)})
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("no tools in %q", line)
	}
	return specs, nil
}

// recordingTool is an offered tool that records its calls and does nothing.
type recordingTool struct {
	spec models.ToolSpec
	log  *callLog
}

type callLog struct {
	mu    sync.Mutex
	calls []models.ToolCall
}

func (r recordingTool) Spec() models.ToolSpec { return r.spec }
func (r recordingTool) Effect() tools.Effect  { return tools.ReadOnly }
func (r recordingTool) Run(_ context.Context, in tools.Input) tools.Result {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.calls = append(r.log.calls, models.ToolCall{Name: r.spec.Name, Arguments: in.Args})
	return tools.Result{Output: "ok"}
}

// replyOutcome is what a turn made of a case's reply.
type replyOutcome struct {
	ran []models.ToolCall
	// requests counts the model requests of the turn; nativeAfter is set
	// when the second offered the tools natively.
	requests    int
	nativeAfter bool
	err         error
	// sent is the last message of the second request: the correction or
	// the calls' results.
	sent string
}

// playReply plays the case's reply as the first answer of a turn, and
// "Done." as the answer to whatever tern sends next.
func playReply(t *testing.T, c replyCase) replyOutcome {
	t.Helper()
	log := &callLog{}
	var list []tools.Tool
	for _, s := range c.specs {
		list = append(list, recordingTool{spec: s, log: log})
	}
	set := tools.NewSet(list...)
	fields := strings.Fields(c.kind)
	openAI := len(fields) > 1 && fields[1] == "openai"
	var out replyOutcome
	if openAI {
		srv := openaitest.New(t, openaitest.WithModel("qwen3.5:9b"), openaitest.WithWindow(8192))
		first := openaitest.Reply{Content: c.reply, Thinking: c.thinking}
		if len(fields) > 2 {
			first = openaitest.Reply{StreamError: c.reply}
			if fields[2] == "500" {
				first = openaitest.Reply{Status: 500, Error: c.reply}
			}
		}
		srv.Script(first, openaitest.Reply{Content: "Done."})
		client, err := openai.New(srv.URL(), "")
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{SessionID: "s1", Model: "qwen3.5:9b", NumCtx: 8192, System: "You are a test."}
		a := New(cfg, client, set, &memRecorder{}, nil, counter(t))
		out.err = a.Run(t.Context(), "Please do it.", func(Event) {})
		reqs := srv.Requests()
		out.requests = len(reqs)
		out.nativeAfter = len(reqs) > 1 && len(reqs[1].Tools) > 0
		if len(reqs) > 1 {
			out.sent = reqs[1].Messages[len(reqs[1].Messages)-1].Content
		}
	} else {
		srv, client, cfg := fakeServer(t, ollamatest.Qwen3())
		first := ollamatest.Reply{Content: c.reply, Thinking: c.thinking}
		if len(fields) > 2 {
			first = ollamatest.Reply{StreamError: c.reply}
		}
		if c.thinking != "" {
			cfg.Think = "true"
		}
		srv.Script(first, ollamatest.Reply{Content: "Done."})
		a := New(cfg, client, set, &memRecorder{}, nil, counter(t))
		out.err = a.Run(t.Context(), "Please do it.", func(Event) {})
		reqs := srv.Requests()
		out.requests = len(reqs)
		out.nativeAfter = len(reqs) > 1 && len(reqs[1].Tools) > 0
		if len(reqs) > 1 {
			out.sent = reqs[1].Messages[len(reqs[1].Messages)-1].Content
		}
	}
	out.ran = log.calls
	return out
}

// Verdicts: what tern made of a reply.
const (
	verdictRan       = "ran the call"
	verdictCorrected = "corrected"
	verdictRetried   = "retried as text"
	verdictProse     = "left as prose"
	verdictWrong     = "ran a wrong call"
	verdictShown     = "shown as the answer"
	verdictFalse     = "false correction"
	verdictFailed    = "turn failed"
)

// judge says what tern made of the case and whether that handled it: ran
// the calls the model meant, corrected it in one round, retried a
// server's parse failure as text, or left an answer as it was.
func judge(c replyCase, o replyOutcome) (verdict string, handled bool) {
	want := c.expect[0].what
	if len(o.ran) > 0 {
		if want == "call" && callsMatch(c.expect, o.ran) {
			return verdictRan, true
		}
		return verdictWrong, false
	}
	switch {
	case o.err != nil:
		return verdictFailed, false
	case o.requests == 1:
		return verdictShown, want == "prose"
	case want == "prose":
		return verdictFalse, false
	case c.kind != "" && !o.nativeAfter:
		return verdictRetried, true
	case c.kind != "":
		return verdictCorrected, false // a parse failure retried natively fails the same way
	}
	return verdictCorrected, true
}

// callsMatch reports whether the calls run are those expected, each with
// at least the expected arguments, in any order: read-only calls of one
// reply run at once.
func callsMatch(want []expectation, ran []models.ToolCall) bool {
	if len(want) != len(ran) {
		return false
	}
	used := make([]bool, len(ran))
	for _, w := range want {
		found := false
		for i, r := range ran {
			if !used[i] && w.what == "call" && r.Name == w.name && argsInclude(r.Arguments, w.args) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// argsInclude reports whether got holds every argument of want, with the
// same value.
func argsInclude(got, want json.RawMessage) bool {
	var g, w map[string]json.RawMessage
	if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
		return false
	}
	for k, v := range w {
		if !jsonEqual(g[k], v) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// scoreSet plays every case of a set and reports its share handled; quiet
// reports only the totals (the held-aside set is not to be read case by
// case).
func scoreSet(t *testing.T, path string, quiet bool) (handled, total int, verdicts map[string]string) {
	t.Helper()
	verdicts = map[string]string{}
	counts := map[string]int{}
	for _, c := range loadReplyCases(t, path) {
		o := playReply(t, c)
		v, ok := judge(c, o)
		verdicts[c.id] = v
		counts[v]++
		total++
		if ok {
			handled++
		}
		if quiet {
			continue
		}
		mark := "ok "
		if !ok {
			mark = "BAD"
		}
		var ran []string
		for _, r := range o.ran {
			ran = append(ran, r.Name+" "+string(r.Arguments))
		}
		sent := ""
		if len(o.ran) == 0 && o.sent != "" {
			sent = "← " + headLine(o.sent, 100)
		}
		t.Logf("%s %-6s %-7s %-20s %s%s", mark, c.id, c.expect[0].what, v, strings.Join(ran, "; "), sent)
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	t.Logf("%s: %d of %d handled (%.0f%%); %s", path, handled, total, 100*float64(handled)/float64(max(total, 1)), strings.Join(parts, ", "))
	return handled, total, verdicts
}

// TestRealWorldReplies scores tern on the sets of testdata/replies, and
// holds what it is tuned on: every tuned reply handled, no real answer
// corrected or run as a call. The held-aside set (-heldout) is measured,
// not held: a failure there is reported, never fixed case by case.
func TestRealWorldReplies(t *testing.T) {
	t.Run("tune", func(t *testing.T) {
		handled, total, verdicts := scoreSet(t, "testdata/replies/tune.txt", false)
		if handled != total {
			t.Errorf("%d of %d tuned replies handled; each must be (see the BAD lines above)", handled, total)
		}
		for id, v := range verdicts {
			if v == verdictWrong {
				t.Errorf("%s: a wrong call ran", id)
			}
		}
	})
	t.Run("prose", func(t *testing.T) {
		_, _, verdicts := scoreSet(t, "testdata/replies/prose.txt", false)
		for id, v := range verdicts {
			if v != verdictShown {
				t.Errorf("%s: a real answer was %s", id, v)
			}
		}
	})
	if *heldout {
		t.Run("heldout", func(t *testing.T) {
			scoreSet(t, "testdata/replies/heldout.txt", true)
		})
	}
}

// headLine is the first line of s, cut to n bytes.
func headLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
