package eval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestSuiteLoads(t *testing.T) {
	tasks, err := Load(Suite())
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 12 {
		t.Errorf("the suite has %d tasks; ship at least 12", len(tasks))
	}
	tiers := map[int]int{}
	for _, task := range tasks {
		tiers[task.Tier]++
		replies, err := task.Transcript()
		if err != nil {
			t.Errorf("%s: %v", task.Name, err)
		}
		if len(replies) < 2 {
			t.Errorf("%s: a transcript of %d replies cannot call a tool and answer", task.Name, len(replies))
		}
		if task.Title == "" || len(task.Needs) == 0 {
			t.Errorf("%s: needs a title and the tools it needs", task.Name)
		}
	}
	if tiers[0] < 6 || tiers[1] < 3 || tiers[2] < 1 {
		t.Errorf("tasks by tier = %v; keep read, edit and command tasks", tiers)
	}
}

func TestPrepareCopiesTheFixture(t *testing.T) {
	tasks, err := Load(Suite())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "work")
	if err := tasks[0].Prepare(dir); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module example.com/") {
		t.Fatalf("go.mod = %q, %v; want the fixture's go.mod.fixture under its real name", mod, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod.fixture")); err == nil {
		t.Error("the .fixture file was copied under its stored name too")
	}
}

func TestLoadRejectsBrokenTasks(t *testing.T) {
	tests := map[string]string{
		"no prompt":   "fixture = \"f\"\n[check]\nanswer = [\"x\"]\n",
		"no check":    "prompt = \"p\"\nfixture = \"f\"\n",
		"unknown key": "prompt = \"p\"\nfixture = \"f\"\nmodel = \"x\"\n[check]\nanswer = [\"x\"]\n",
		"no fixture":  "prompt = \"p\"\nfixture = \"missing\"\n[check]\nanswer = [\"x\"]\n",
	}
	for name, toml := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"tasks/t/task.toml": {Data: []byte(toml)},
				"fixtures/f/a.txt":  {Data: []byte("a")},
			}
			if _, err := Load(fsys); err == nil {
				t.Error("Load accepted a broken task")
			}
		})
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/x.go", "package a\n\nfunc sumItems() {}\n")
	write("README.md", "Run the calculator.\n")
	tests := []struct {
		name   string
		check  Check
		answer string
		ok     bool
		why    string
	}{
		{"answer words", Check{Answer: []string{"8080", "config.go"}}, "It is 8080, in CONFIG.go.", true, ""},
		{"answer word missing", Check{Answer: []string{"8080"}}, "It is 80.", false, `does not mention "8080"`},
		{"any word", Check{AnswerAny: []string{"second", "sec"}}, "ninety seconds", true, ""},
		{"file contains", Check{Files: map[string][]string{"README.md": {"Run the"}}}, "", true, ""},
		{"file lacks", Check{Files: map[string][]string{"README.md": {"teh"}}}, "", false, `README.md does not contain "teh"`},
		{"missing file", Check{Files: map[string][]string{"NOPE.md": {"x"}}}, "", false, "NOPE.md"},
		{"absent holds", Check{Absent: map[string][]string{"**/*.go": {"computeTotal"}}}, "", true, ""},
		{"absent fails", Check{Absent: map[string][]string{"**/*.go": {"sumItems"}}}, "", false, `a/x.go still contains "sumItems"`},
		{"command passes", Check{Command: []string{"sh", "-c", "echo all good"}, Output: []string{"good"}}, "", true, ""},
		{"command fails", Check{Command: []string{"sh", "-c", "echo broken; exit 3"}}, "", false, "`sh -c echo broken; exit 3` failed"},
		{"command output missing", Check{Command: []string{"true"}, Output: []string{"3"}}, "", false, `printed no "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := tt.check.Run(t.Context(), dir, tt.answer)
			if ok != tt.ok || !strings.Contains(why, tt.why) {
				t.Errorf("Run = %v, %q; want %v, %q", ok, why, tt.ok, tt.why)
			}
		})
	}
}

// TestFixturesBuild keeps the fixtures honest: calc builds and passes its
// tests, mathx fails exactly TestAbs (the bug fix-failing-test fixes).
func TestFixturesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in the fixtures")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	tasks, err := Load(Suite())
	if err != nil {
		t.Fatal(err)
	}
	byFixture := map[string]Task{}
	for _, task := range tasks {
		byFixture[task.Fixture] = task
	}
	for fixture, wantFail := range map[string]string{"calc": "", "mathx": "TestAbs"} {
		t.Run(fixture, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), fixture)
			if err := byFixture[fixture].Prepare(dir); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "go", "test", "./...")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-mod=mod")
			out, err := cmd.CombinedOutput()
			switch {
			case wantFail == "" && err != nil:
				t.Errorf("go test failed:\n%s", out)
			case wantFail != "" && (err == nil || !strings.Contains(string(out), "--- FAIL: "+wantFail)):
				t.Errorf("go test should fail %s:\n%s", wantFail, out)
			}
		})
	}
}

// TestReportOneOfEach: the totals count in words, "1 task", "1 tool
// call"; they said "1 tasks", "1 tool calls" (tern eval --run write-file).
func TestReportOneOfEach(t *testing.T) {
	var r Report
	r.Model = "replay"
	r.Add(Result{Task: "write-file", Mode: "native", Status: Pass, Turns: 1, ToolCalls: 1, Attempts: 1, Valid: 1, PromptTokens: 1})
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if want := "replay: 1 task, 1 passed, 0 failed, 0 skipped, 0 errors; 1 turn, 1 tool call (0 repaired, 0 invalid), 1 prompt token"; !strings.Contains(b.String(), want) {
		t.Errorf("the totals lack %q:\n%s", want, b.String())
	}
}

func TestReportTable(t *testing.T) {
	var r Report
	r.Model = "replay"
	r.Add(Result{Task: "find-definition", Mode: "native", Status: Pass, Turns: 2, ToolCalls: 1, Attempts: 1, Valid: 1, Repaired: map[string]int{"bare": 1}, PromptTokens: 1200, Wall: 1500 * time.Millisecond})
	r.Add(Result{Task: "fix-failing-test", Tier: 1, Status: Skip, Why: "needs edit_file, not in this build"})
	r.Add(Result{Task: "loop-recovery", Mode: "native", Status: Fail, Turns: 4, ToolCalls: 3, Attempts: 3, Valid: 2, Invalid: 1, Why: "the answer does not mention \"positive\"\nmore"})
	r.Add(Result{Task: "find-definition", Mode: "constrained", Status: Pass, Turns: 2, ToolCalls: 1, Attempts: 1, Valid: 1})
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"TASK", "find-definition   0     native       pass    2      1      bare:1", "1200",
		"replay: 4 tasks, 2 passed, 1 failed, 1 skipped, 0 errors; 8 turns, 5 tool calls (1 repaired, 1 invalid), 1200 prompt tokens",
		"replay constrained: 1 of 1 tasks passed; 1 of 1 calls valid (100%)\n",
		"replay native: 1 of 2 tasks passed; 3 of 4 calls valid (75%)\n",
		"  fix-failing-test skip: needs edit_file, not in this build",
		`  loop-recovery fail: the answer does not mention "positive"` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if r.OK() {
		t.Error("a report with a failure is OK")
	}
}
