package headless

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ternhq/tern/agent"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	usage := func(err error) error { return usageErr{err} }
	for _, tt := range []struct {
		args  []string
		stdin string
		want  *Options
		usage string
	}{
		{args: []string{"what", "is", "this?"}, want: &Options{Prompt: "what is this?"}},
		{args: []string{"--json", "--resume", "ab12", "--rag", "--plan", "again"}, want: &Options{Prompt: "again", JSON: true, Resume: "ab12", RAG: true, Plan: true}},
		{args: []string{"-"}, stdin: "from stdin\n", want: &Options{Prompt: "from stdin\n"}},
		{args: []string{"--resume", "ab12", "--accept-plan"}, want: &Options{Resume: "ab12", Accept: true}},
		{args: []string{"--resume", "ab12", "--accept-plan", "and", "test"}, want: &Options{Prompt: "and test", Resume: "ab12", Accept: true}},
		{args: []string{"--accept-plan", "--plan", "--resume", "x"}, usage: "--accept-plan and --plan exclude each other: accept the plan, or send it back with --plan"},
		{args: []string{"--accept-plan"}, usage: "--accept-plan needs --resume ID (or -c, the latest session): the session whose plan you accept"},
		{args: []string{" "}, usage: "the prompt is empty"},
		{args: []string{"-"}, stdin: " \n", usage: "the prompt is empty"},
	} {
		var got *Options
		cmd := NewCmd(strings.NewReader(tt.stdin), func(_ context.Context, o *Options) error { got = o; return nil }, usage)
		cmd.SetArgs(tt.args)
		err := cmd.Execute()
		var ue usageErr
		switch {
		case tt.usage != "":
			if !errors.As(err, &ue) || err.Error() != tt.usage || got != nil {
				t.Errorf("%q: %v; want the usage error %q", tt.args, err, tt.usage)
			}
		case err != nil || !reflect.DeepEqual(got, tt.want):
			t.Errorf("%q: %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
	cmd := NewCmd(strings.NewReader(""), func(context.Context, *Options) error { return nil }, usage)
	cmd.SetArgs(nil)
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	var ue usageErr
	if err := cmd.Execute(); !errors.As(err, &ue) || err.Error() != `no prompt: tern ask "PROMPT" (or tern ask - to read it from stdin)` {
		t.Errorf("no prompt: %v", err)
	}
}

// usageErr marks the errors NewCmd wraps as usage errors.
type usageErr struct{ error }

// fakeSession plays a turn: it asks approver for each of asks, then
// sends events, and returns err.
type fakeSession struct {
	approver agent.Approver
	asks     []agent.Approval
	events   []agent.Event
	err      error
	plan     string // proposed before the turn
	planned  string // proposed by the turn

	turns  []Turn
	prompt string
	closed bool
}

func (f *fakeSession) Turn(ctx context.Context, turn Turn, prompt string, onEvent func(agent.Event)) error {
	f.turns, f.prompt = append(f.turns, turn), prompt
	for _, ap := range f.asks {
		d, err := f.approver.Approve(ctx, ap)
		if err != nil {
			return err
		}
		onEvent(agent.ToolEnd{Name: ap.Tool, IsError: !d.Allow, Output: d.Reason, Summary: "done"})
	}
	for _, e := range f.events {
		onEvent(e)
	}
	if f.planned != "" {
		f.plan = f.planned
	}
	return f.err
}
func (f *fakeSession) ProposedPlan() string { return f.plan }
func (f *fakeSession) Close() error         { f.closed = true; return nil }

// ask runs Run on s with env's policy and o, and returns stdout, stderr
// and the error.
func ask(t *testing.T, s *fakeSession, env Env, o Options) (string, string, error) {
	t.Helper()
	var out, errOut strings.Builder
	env.Out, env.Err = &out, &errOut
	env.Open = func(_ context.Context, got *Options, approver agent.Approver) (Session, Info, error) {
		if got != &o {
			t.Error("the session was opened with other options")
		}
		s.approver = approver
		return s, Info{ID: "S1", Model: "qwen3:8b", Why: "requested", Notices: []string{"the window is 8192 tokens"}}, nil
	}
	err := Run(t.Context(), env, &o)
	if !s.closed {
		t.Error("the session was left open")
	}
	return out.String(), errOut.String(), err
}

var (
	answer = []agent.Event{agent.Token{Text: "Done."}, agent.Done{Reason: agent.DoneStop, Turns: 1}}
	edit   = agent.Approval{Tool: "edit_file", Effect: write.Effect}
)

func TestRunAnswers(t *testing.T) {
	t.Parallel()
	s := &fakeSession{events: answer}
	out, errOut, err := ask(t, s, Env{}, Options{Prompt: "fix it"})
	if err != nil || out != "Done.\n" || errOut != "tern: the window is 8192 tokens\n" {
		t.Errorf("%v\nstdout %q\nstderr %q", err, out, errOut)
	}
	if !reflect.DeepEqual(s.turns, []Turn{Ask}) || s.prompt != "fix it" {
		t.Errorf("turns %v on %q", s.turns, s.prompt)
	}

	var buf strings.Builder
	s = &fakeSession{events: answer}
	env := Env{Out: &buf, Err: &buf, Open: func(context.Context, *Options, agent.Approver) (Session, Info, error) {
		return s, Info{ID: "S2", Model: "qwen3:8b", Why: "best installed"}, nil
	}}
	if err := Run(t.Context(), env, &Options{Prompt: "x", JSON: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || lines[0] != `{"type":"notice","level":"info","text":"using qwen3:8b (best installed; choose with --model)"}` ||
		!strings.HasPrefix(lines[2], `{"type":"done"`) {
		t.Errorf("NDJSON:\n%s", buf.String())
	}
}

func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	destructive := agent.Approval{Tool: "run_command", Effect: command.Effect, Destructive: true, Why: "deletes files recursively"}
	for _, tt := range []struct {
		name    string
		env     Env
		s       *fakeSession
		outcome Outcome
		msg     string
	}{
		{"an edit refused", Env{}, &fakeSession{asks: []agent.Approval{edit}, events: answer}, Refused,
			"1 file change was refused and not made, whatever the answer says: run with --yes to allow file changes"},
		{"--yes allows it", Env{Yes: true}, &fakeSession{asks: []agent.Approval{edit}, events: answer}, Answered, ""},
		{"--yes refuses a destructive command", Env{Yes: true}, &fakeSession{asks: []agent.Approval{destructive}, events: answer}, Refused,
			"1 destructive command was refused and not made, whatever the answer says: run with --yolo to allow destructive commands"},
		{"--yolo allows it", Env{Yolo: true}, &fakeSession{asks: []agent.Approval{destructive}, events: answer}, Answered, ""},
		{"the request limit", Env{}, &fakeSession{events: []agent.Event{agent.Done{Reason: agent.DoneMaxTurns}}}, MaxTurns,
			"the turn ended at the request limit, not with an answer; continue with tern ask --resume S1"},
		{"stuck", Env{}, &fakeSession{events: []agent.Event{agent.Done{Reason: agent.DoneStuck}}}, Stuck,
			"the turn ended stuck, not with an answer; continue with tern ask --resume S1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ask(t, tt.s, tt.env, Options{Prompt: "x"})
			var oe OutcomeError
			switch {
			case tt.outcome == Answered && err != nil:
				t.Errorf("%v, want none", err)
			case tt.outcome != Answered && (!errors.As(err, &oe) || oe.Outcome != tt.outcome || err.Error() != tt.msg):
				t.Errorf("%v (%+v), want outcome %v: %q", err, oe, tt.outcome, tt.msg)
			}
		})
	}
}

func TestRunPlans(t *testing.T) {
	t.Parallel()
	hint := "tern: plan ready. Accept it with `tern ask --resume S1 --accept-plan` (add --tier 2 to allow commands), or send it back with `tern ask --resume S1 --plan \"COMMENT\"`\n"

	s := &fakeSession{events: answer, planned: "1. read 2. edit"}
	_, errOut, err := ask(t, s, Env{}, Options{Prompt: "plan it", Plan: true})
	if err != nil || s.turns[0] != Ask || !strings.HasSuffix(errOut, hint) {
		t.Errorf("a new plan: %v, turn %v, stderr %q", err, s.turns, errOut)
	}
	s = &fakeSession{events: answer, planned: "1. read 2. edit"}
	if _, errOut, _ := ask(t, s, Env{}, Options{Prompt: "plan it", Plan: true, JSON: true}); strings.Contains(errOut, "plan ready") {
		t.Errorf("--json got the hint: %q", errOut)
	}
	s = &fakeSession{events: answer, plan: "1. read", planned: "1. read 2. test"}
	if _, errOut, err := ask(t, s, Env{}, Options{Prompt: "add tests", Plan: true}); err != nil || s.turns[0] != Revise || !strings.HasSuffix(errOut, hint) {
		t.Errorf("a plan sent back: %v, turn %v, stderr %q", err, s.turns, errOut)
	}
	s = &fakeSession{events: answer, plan: "1. read"}
	if _, errOut, err := ask(t, s, Env{}, Options{Accept: true, Resume: "S1"}); err != nil || s.turns[0] != Accept || strings.Contains(errOut, "plan ready") {
		t.Errorf("a plan accepted: %v, turn %v, stderr %q", err, s.turns, errOut)
	}
	s = &fakeSession{err: agent.ErrNoPlan}
	if _, _, err := ask(t, s, Env{}, Options{Accept: true, Resume: "S1"}); err == nil || err.Error() != "session S1 has no plan to accept: ask for one with tern ask --plan" {
		t.Errorf("no plan to accept: %v", err)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestRunErrors(t *testing.T) {
	t.Parallel()
	s := &fakeSession{events: []agent.Event{agent.Token{Text: "half"}}, err: context.Canceled}
	_, _, err := ask(t, s, Env{}, Options{Prompt: "x"})
	var ce CanceledError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) || err.Error() != "cancelled; the conversation so far is saved in session S1" {
		t.Errorf("a cancelled turn: %v", err)
	}

	crashed := errors.New("model runner crashed: try a smaller --ctx")
	if _, _, err := ask(t, &fakeSession{err: crashed}, Env{}, Options{Prompt: "x"}); err != crashed {
		t.Errorf("a failed turn: %v, want its error as the session worded it", err)
	}

	unreachable := errors.New("cannot reach Ollama")
	env := Env{Open: func(context.Context, *Options, agent.Approver) (Session, Info, error) {
		return nil, Info{}, unreachable
	}}
	if err := Run(t.Context(), env, &Options{Prompt: "x"}); err != unreachable {
		t.Errorf("no session: %v", err)
	}

	s = &fakeSession{events: answer}
	env = Env{Out: failWriter{}, Err: &strings.Builder{}, Open: func(context.Context, *Options, agent.Approver) (Session, Info, error) {
		return s, Info{ID: "S1", Why: "requested"}, nil
	}}
	if err := Run(t.Context(), env, &Options{Prompt: "x", JSON: true}); err == nil || err.Error() != "broken pipe" {
		t.Errorf("stdout closed under --json: %v", err)
	}
}
