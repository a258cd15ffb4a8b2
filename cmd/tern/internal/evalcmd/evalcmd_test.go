package evalcmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/cmd/tern/internal/eval"
)

// parse runs NewCmd on args and returns the options it would run with.
func parse(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	return cmdtest.Parse(NewCmd, args...)
}

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want *Options
	}{
		{nil, &Options{Timeout: 10 * time.Minute}},
		{[]string{"--replay", "--run", "a,b", "--run", "c", "--modes", "native,text", "--timeout", "1m", "--keep", "--json", "--list", "--tasks", "dir"},
			&Options{Replay: true, Run: []string{"a", "b", "c"}, Modes: []string{"native", "text"}, Timeout: time.Minute, Keep: true, JSON: true, List: true, TasksDir: "dir"}},
	} {
		got, err := parse(t, tt.args...)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
	if _, err := parse(t, "a-task"); err == nil {
		t.Error("tern eval took an argument")
	}
}

// suiteDir writes a suite of two read tasks whose answers must say 8080.
func suiteDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"tasks/port-a/task.toml": "title = \"Port A\"\nprompt = \"What port?\"\nfixture = \"f\"\nneeds = [\"grep\"]\n[check]\nanswer = [\"8080\"]\n",
		"tasks/port-b/task.toml": "title = \"Port B\"\nprompt = \"Which port?\"\nfixture = \"f\"\nneeds = [\"grep\"]\n[check]\nanswer = [\"8080\"]\n",
		"fixtures/f/port.txt":    "8080\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// answers is a session that answers every task with its words.
type answers string

func (a answers) Run(context.Context, string) (eval.Turn, error) {
	return eval.Turn{Answer: string(a), Done: "stop", Turns: 1, Mode: "native"}, nil
}
func (answers) Calls(context.Context) ([]eval.Call, error) { return nil, nil }
func (answers) Close() error                               { return nil }

func opener(answer string, opened *[]string) eval.Opener {
	return func(_ context.Context, s eval.Setup) (eval.Session, eval.Info, error) {
		*opened = append(*opened, s.Task.Name)
		return answers(answer), eval.Info{Model: "m:1b", NativeTools: true, Offers: func(string) bool { return true }}, nil
	}
}

func TestRunListsAndFilters(t *testing.T) {
	t.Parallel()
	dir := suiteDir(t)
	var out strings.Builder
	var opened []string
	interrupted := false
	env := Env{Out: &out, Err: &out, Open: opener("8080", &opened),
		Interruptible: func(ctx context.Context) (context.Context, context.CancelFunc) {
			interrupted = true
			return context.WithCancel(ctx)
		}}
	if err := Run(t.Context(), env, &Options{TasksDir: dir, List: true, Run: []string{"-b"}}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "port-b  tier 0  Port B  \n" || len(opened) != 0 || interrupted {
		t.Errorf("--list --run -b: %q; opened %v, interruptible %v", out.String(), opened, interrupted)
	}
	err := Run(t.Context(), env, &Options{TasksDir: dir, Run: []string{"x", "y"}})
	if err == nil || err.Error() != "no task matches --run x,y; see tern eval --list" {
		t.Errorf("no match: %v", err)
	}
	if err := Run(t.Context(), env, &Options{TasksDir: t.TempDir()}); err == nil || !strings.HasPrefix(err.Error(), "load tasks:") {
		t.Errorf("an empty suite: %v", err)
	}
}

func TestRunReports(t *testing.T) {
	t.Parallel()
	dir := suiteDir(t)
	var out, progress strings.Builder
	var opened []string
	env := Env{Out: &out, Err: &progress, Model: "asked:1b", Open: opener("8080", &opened)}
	if err := Run(t.Context(), env, &Options{TasksDir: dir, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(opened, " ") != "port-a port-b" || progress.String() != "port-a               native      pass\nport-b               native      pass\n" {
		t.Errorf("opened %v; progress:\n%s", opened, progress.String())
	}
	if !strings.HasPrefix(out.String(), "TASK") || !strings.Contains(out.String(), "\nasked:1b: 2 tasks, 2 passed, 0 failed") {
		t.Errorf("table:\n%s", out.String())
	}

	out.Reset()
	progress.Reset()
	env.Open = opener("port 80", &opened)
	err := Run(t.Context(), env, &Options{TasksDir: dir, JSON: true, Timeout: time.Minute, Run: []string{"port-a"}})
	if !errors.Is(err, ErrFailed) {
		t.Errorf("a failed task: %v, want ErrFailed", err)
	}
	var report eval.Report
	if jerr := json.Unmarshal([]byte(out.String()), &report); jerr != nil || report.Summary.Failed != 1 || progress.Len() != 0 {
		t.Errorf("JSON report: %v, %+v; progress %q (want none with --json)", jerr, report.Summary, progress.String())
	}
}

func TestRunEndsOnABadMode(t *testing.T) {
	t.Parallel()
	var opened []string
	err := Run(t.Context(), Env{Out: &strings.Builder{}, Err: &strings.Builder{}, Open: opener("8080", &opened)},
		&Options{TasksDir: suiteDir(t), Modes: []string{"magic"}, Timeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "not a tool mode") || len(opened) != 0 {
		t.Errorf("--modes magic: %v, opened %v", err, opened)
	}
}
