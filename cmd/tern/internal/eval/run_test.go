package eval

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// smallSuite has a read task (answer must say 8080) and an edit task (the
// file must say "done"), on one fixture.
func smallSuite(t *testing.T) []Task {
	t.Helper()
	tasks, err := Load(fstest.MapFS{
		"tasks/a-read/task.toml":   {Data: []byte("prompt = \"What port?\"\nfixture = \"f\"\nneeds = [\"grep\"]\n[check]\nanswer = [\"8080\"]\n")},
		"tasks/a-read/replay.json": {Data: []byte(`[{"content": "8080"}]`)},
		"tasks/b-edit/task.toml":   {Data: []byte("prompt = \"Finish it\"\nfixture = \"f\"\ntier = 1\nneeds = [\"edit_file\"]\n[check]\nfiles = { \"todo.txt\" = [\"done\"] }\n")},
		"tasks/b-edit/replay.json": {Data: []byte(`[{"content": "ok"}]`)},
		"fixtures/f/port.txt":      {Data: []byte("8080\n")},
		"fixtures/f/todo.txt":      {Data: []byte("todo\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// fakeSession answers with its turn, or with run when set.
type fakeSession struct {
	turn     Turn
	err      error
	run      func(ctx context.Context, s Setup) (Turn, error)
	calls    []Call
	callsErr error

	setup  Setup
	closed bool
}

func (f *fakeSession) Run(ctx context.Context, prompt string) (Turn, error) {
	if f.run != nil {
		return f.run(ctx, f.setup)
	}
	return f.turn, f.err
}
func (f *fakeSession) Calls(context.Context) ([]Call, error) { return f.calls, f.callsErr }
func (f *fakeSession) Close() error                          { f.closed = true; return nil }

// fakeOpener opens s with info for every task, and records the setups.
type fakeOpener struct {
	s    *fakeSession
	info Info
	err  error

	mu     sync.Mutex
	setups []Setup
}

func (o *fakeOpener) open(ctx context.Context, s Setup) (Session, Info, error) {
	o.mu.Lock()
	o.setups = append(o.setups, s)
	o.mu.Unlock()
	if o.err != nil {
		return nil, Info{}, o.err
	}
	o.s.setup = s
	return o.s, o.info, nil
}

// offers is a session offering every tool.
var offers = Info{Model: "m:7b", NativeTools: true, Offers: func(string) bool { return true }}

func TestRunTaskPasses(t *testing.T) {
	t.Parallel()
	task := smallSuite(t)[1] // b-edit
	s := &fakeSession{
		run: func(_ context.Context, s Setup) (Turn, error) {
			// the session works in the copy: what it writes is judged
			if data, err := os.ReadFile(filepath.Join(s.Dir, "todo.txt")); err != nil || string(data) != "todo\n" {
				return Turn{}, fmt.Errorf("the fixture was not copied: %q, %v", data, err)
			}
			return Turn{Answer: "Done.", Done: "stop", Turns: 2, PromptTokens: 900, EvalTokens: 30, Mode: "text"},
				os.WriteFile(filepath.Join(s.Dir, "todo.txt"), []byte("done\n"), 0o644)
		},
		calls: []Call{{Repair: "tagged"}, {Invalid: true, Unreadable: true}},
	}
	o := &fakeOpener{s: s, info: offers}
	res, model, err := RunTask(t.Context(), task, "text", Options{Timeout: time.Minute}, o.open)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Pass || model != "m:7b" || res.Mode != "text" || res.Turns != 2 || res.PromptTokens != 900 || res.EvalTokens != 30 ||
		res.Done != "stop" || res.Answer != "Done." || res.Wall <= 0 {
		t.Errorf("result %+v, model %q", res, model)
	}
	if res.Attempts != 2 || res.Valid != 1 || res.ToolCalls != 1 || res.Repaired["tagged"] != 1 {
		t.Errorf("calls counted: %+v", res)
	}
	setup := o.setups[0]
	if setup.Mode != "text" || setup.Replay != nil || setup.Task.Name != "b-edit" || setup.Dir != filepath.Join(setup.Tmp, "repo") {
		t.Errorf("setup = %+v", setup)
	}
	if _, err := os.Stat(setup.Tmp); !errors.Is(err, os.ErrNotExist) || !s.closed {
		t.Errorf("after the task: workspace %v (want removed), session closed %v", err, s.closed)
	}
}

func TestRunTaskOutcomes(t *testing.T) {
	t.Parallel()
	answered := Turn{Answer: "It is 8080.", Done: "stop", Mode: "native"}
	for _, tt := range []struct {
		name    string
		mode    string
		session *fakeSession
		info    Info
		status  string
		why     string
	}{
		{"the answer misses a word", "", &fakeSession{turn: Turn{Answer: "port 80"}}, offers, Fail, `the answer does not mention "8080"`},
		{"native mode, no native tools", "native", &fakeSession{turn: answered},
			Info{Model: "tiny", Offers: offers.Offers}, Skip, "tiny has no native tool support"},
		{"a tool the build lacks", "", &fakeSession{turn: answered},
			Info{Model: "m", Offers: func(string) bool { return false }}, Skip, "needs grep, which this build does not offer at tier 0"},
		{"the run failed", "", &fakeSession{err: errors.New("model runner crashed: try a smaller --ctx")}, offers, Error,
			"model runner crashed: try a smaller --ctx"},
		{"the calls could not be read", "", &fakeSession{turn: answered, callsErr: errors.New("database is locked")}, offers, Error, "database is locked"},
		{"native mode with native tools", "native", &fakeSession{turn: answered}, offers, Pass, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := &fakeOpener{s: tt.session, info: tt.info}
			res, _, err := RunTask(t.Context(), smallSuite(t)[0], tt.mode, Options{Timeout: time.Minute}, o.open)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || res.Why != tt.why {
				t.Errorf("%s: %q, want %s: %q", res.Status, res.Why, tt.status, tt.why)
			}
			if !tt.session.closed {
				t.Error("the session was left open")
			}
		})
	}
}

func TestRunTaskKeepsTheWorkspace(t *testing.T) {
	t.Parallel()
	o := &fakeOpener{s: &fakeSession{turn: Turn{Answer: "8080"}}, info: offers}
	res, _, err := RunTask(t.Context(), smallSuite(t)[0], "", Options{Keep: true, Timeout: time.Minute}, o.open)
	if err != nil {
		t.Fatal(err)
	}
	tmp := o.setups[0].Tmp
	defer os.RemoveAll(tmp)
	if res.Status != Pass || res.Why != "workspace kept in "+tmp {
		t.Errorf("%s: %q", res.Status, res.Why)
	}
	if _, err := os.Stat(filepath.Join(tmp, "repo", "port.txt")); err != nil {
		t.Errorf("the kept workspace: %v", err)
	}
}

func TestRunTaskOpenFails(t *testing.T) {
	t.Parallel()
	unreachable := errors.New("cannot reach Ollama at 127.0.0.1:11434")
	o := &fakeOpener{err: unreachable}
	res, _, err := RunTask(t.Context(), smallSuite(t)[0], "", Options{Timeout: time.Minute}, o.open)
	if !errors.Is(err, unreachable) {
		t.Errorf("a live run that cannot open: %v, want the error to end the run", err)
	}
	res, _, err = RunTask(t.Context(), smallSuite(t)[0], "", Options{Replay: true, Timeout: time.Minute}, o.open)
	if err != nil || res.Status != Error || res.Why != unreachable.Error() {
		t.Errorf("a replay that cannot open: %s %q, %v; want the task's error", res.Status, res.Why, err)
	}
}

func TestRunTaskCancelAndTimeout(t *testing.T) {
	t.Parallel()
	waits := &fakeSession{run: func(ctx context.Context, _ Setup) (Turn, error) {
		<-ctx.Done()
		return Turn{Turns: 1}, context.Canceled // as the agent reports either
	}}
	o := &fakeOpener{s: waits, info: offers}
	res, _, err := RunTask(t.Context(), smallSuite(t)[0], "", Options{Timeout: 10 * time.Millisecond}, o.open)
	if err != nil || res.Status != Error || res.Turns != 1 {
		t.Errorf("a task past its timeout: %s %q, %v; want the task's error, the suite going on", res.Status, res.Why, err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	waits.run = func(context.Context, Setup) (Turn, error) {
		cancel() // Ctrl+C
		return Turn{}, context.Canceled
	}
	_, _, err = RunTask(ctx, smallSuite(t)[0], "", Options{Timeout: time.Minute}, o.open)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled task: %v, want the cancel to end the run", err)
	}
}

func TestRunTaskReplay(t *testing.T) {
	t.Parallel()
	for _, openAI := range []bool{false, true} {
		var reached error
		s := &fakeSession{run: func(ctx context.Context, s Setup) (Turn, error) {
			path := "/api/tags"
			if openAI {
				path = "/v1/models"
			}
			resp, err := http.Get(s.Replay.URL + path)
			if err == nil {
				resp.Body.Close()
			}
			reached = err
			return Turn{Answer: "8080"}, nil
		}}
		o := &fakeOpener{s: s, info: offers}
		res, _, err := RunTask(t.Context(), smallSuite(t)[0], "", Options{Replay: true, OpenAI: openAI, Timeout: time.Minute}, o.open)
		if err != nil || res.Status != Pass {
			t.Fatalf("openAI %v: %s %q, %v", openAI, res.Status, res.Why, err)
		}
		if played := o.setups[0].Replay; played == nil || played.Model != "qwen3:8b" || reached != nil {
			t.Errorf("openAI %v: played on %+v, reached: %v", openAI, played, reached)
		}
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	tasks := smallSuite(t)
	s := &fakeSession{run: func(_ context.Context, s Setup) (Turn, error) {
		os.WriteFile(filepath.Join(s.Dir, "todo.txt"), []byte("done\n"), 0o644)
		return Turn{Answer: "8080", Mode: s.Mode}, nil
	}}
	o := &fakeOpener{s: s, info: offers}
	var progress strings.Builder
	report, err := Run(t.Context(), tasks, Options{Modes: []string{"native", "text"}, Timeout: time.Minute, Progress: &progress}, o.open)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, setup := range o.setups {
		order = append(order, setup.Mode+" "+setup.Task.Name)
	}
	if fmt.Sprint(order) != "[native a-read native b-edit text a-read text b-edit]" {
		t.Errorf("ran %v, want each mode over every task", order)
	}
	if report.Model != "m:7b" || report.Summary.Passed != 4 || !report.OK() || report.Summary.Modes["text"].Tasks != 2 {
		t.Errorf("report: model %q, %+v", report.Model, report.Summary)
	}
	if want := "a-read               native      pass\nb-edit               native      pass\na-read               text        pass\nb-edit               text        pass\n"; progress.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", progress.String(), want)
	}

	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Model: "asked:1b", Timeout: time.Minute}, "asked:1b"},
		{Options{Replay: true, Timeout: time.Minute}, "replay"},
	} {
		report, err := Run(t.Context(), tasks[:1], tt.o, (&fakeOpener{s: &fakeSession{turn: Turn{Answer: "8080"}}, info: offers}).open)
		if err != nil || report.Model != tt.want {
			t.Errorf("report's model %q, %v; want %q", report.Model, err, tt.want)
		}
	}
}

func TestRunStops(t *testing.T) {
	t.Parallel()
	o := &fakeOpener{s: &fakeSession{}, info: offers}
	if _, err := Run(t.Context(), smallSuite(t), Options{Modes: []string{"magic"}}, o.open); err == nil || len(o.setups) != 0 {
		t.Errorf("a bad mode: %v, %d tasks opened; want the error before any", err, len(o.setups))
	}
	o = &fakeOpener{err: errors.New("no chat model is installed")}
	if _, err := Run(t.Context(), smallSuite(t), Options{Timeout: time.Minute}, o.open); err == nil || len(o.setups) != 1 {
		t.Errorf("no model: %v after %d tasks; want the run to end at the first", err, len(o.setups))
	}
}
