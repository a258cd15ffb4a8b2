package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakeExplorer records the task it was given and answers with a report.
type fakeExplorer struct {
	got ExploreTask
	err error
}

func (f *fakeExplorer) Explore(ctx context.Context, t ExploreTask) (ExploreReport, error) {
	f.got = t
	if t.Progress != nil {
		t.Progress(Progress{Text: "read_file a", Tokens: 10})
	}
	return ExploreReport{Text: "main.go:3 — main\n", Turns: 3, Calls: 4, Tokens: 2345}, f.err
}

func TestExplore(t *testing.T) {
	ws := newFixture(t)
	ex := &fakeExplorer{}
	tool := NewExplore(ws, ex)
	runCases(t, tool, []toolCase{
		{name: "no task", args: `{"files_hint":["x"]}`, isError: true, want: []string{"task is required"}},
		{name: "report", args: `{"task":"find main","files_hint":["main.go","nope.go"]}`,
			want:    []string{"main.go:3 — main", "(not found, skipped: nope.go)"},
			summary: `explore "find main": 3 requests, 4 tool calls, 2.3k tokens`},
		{name: "a single hint as a string", args: `{"task":"x","files_hint":"main.go"}`, want: []string{"main.go:3"}},
	})
	var news []Progress
	res := tool.Run(t.Context(), Input{Args: []byte(`{"task":"find main","files_hint":["main.go","../outside"]}`), CallID: "call_9", Limit: 4000,
		Progress: func(p Progress) { news = append(news, p) }})
	if res.IsError || ex.got.CallID != "call_9" || ex.got.MaxBytes != 4000 || !slices.Equal(ex.got.Files, []string{"main.go"}) || len(news) != 1 {
		t.Errorf("task passed on = %+v, progress %v, result %+v", ex.got, news, res)
	}
	ex.err = errors.New("model gone")
	if r := tool.Run(t.Context(), Input{Args: []byte(`{"task":"x"}`)}); !r.IsError || !strings.Contains(r.Output, "model gone") {
		t.Errorf("a failed exploration: %+v", r)
	}
	if r := NewExplore(ws, nil).Run(t.Context(), Input{Args: []byte(`{"task":"x"}`)}); !r.IsError || !strings.Contains(r.Output, "not available") {
		t.Errorf("no explorer: %+v", r)
	}
}

// fakeAsker answers every question with its last option, or fails.
type fakeAsker struct {
	asked []Question
	err   error
}

func (f *fakeAsker) Ask(ctx context.Context, qs []Question) ([]string, error) {
	f.asked = qs
	var out []string
	for _, q := range qs {
		out = append(out, q.Options[len(q.Options)-1])
	}
	return out, f.err
}

func TestAskUser(t *testing.T) {
	a := &fakeAsker{}
	tool := NewAskUser(a)
	runCases(t, tool, []toolCase{
		{name: "two questions", args: `{"questions":[{"question":"DB?","options":["SQLite","Postgres"]},{"question":"Tests?","options":["yes","no","later"]}]}`,
			want: []string{"1. DB? → Postgres", "2. Tests? → later"}, summary: "ask_user 2 questions: answered"},
		{name: "stringified list", args: `{"questions":"[{\"question\":\"DB?\",\"options\":[\"a\",\"b\"]}]"}`, want: []string{"1. DB? → b"}},
		{name: "one question at the top", args: `{"question":"DB?","choices":["a","b"]}`, want: []string{"1. DB? → b"}},
		{name: "one option", args: `{"questions":[{"question":"DB?","options":["a"]}]}`, isError: true, want: []string{"has 1 options; give 2 to 4", `{"questions":[{"question":`}},
		{name: "five questions", args: `{"questions":[{"question":"1","options":["a","b"]},{"question":"2","options":["a","b"]},{"question":"3","options":["a","b"]},{"question":"4","options":["a","b"]},{"question":"5","options":["a","b"]}]}`,
			isError: true, want: []string{"ask 1 to 4 questions, not 5"}},
		{name: "no text", args: `{"questions":[{"options":["a","b"]}]}`, isError: true, want: []string{`question 1 has no "question" text`}},
		{name: "nothing", args: `{}`, isError: true, want: []string{"questions is required"}},
	})
	a.err = ErrNotAnswered
	if r := call(t, tool, `{"questions":[{"question":"DB?","options":["a","b"]}]}`, 0); r.IsError || !strings.Contains(r.Output, "decide and say what you assumed") {
		t.Errorf("not answered: %+v", r)
	}
	// Headless: no asker, an answer at once.
	r := call(t, NewAskUser(nil), `{"questions":[{"question":"DB?","options":["a","b"]}]}`, 0)
	if r.IsError || r.Output != "no user available: decide and say what you assumed" {
		t.Errorf("headless: %+v", r)
	}
	// The call's line names its first question, not its JSON.
	for args, want := range map[string]string{
		`{"questions":[{"question":"DB?","options":["a","b"]},{"question":"Tests?","options":["a","b"]}]}`: `"DB?" +1 more`,
		`{"question":"DB?","choices":["a","b"]}`:                                                           `"DB?"`,
		`{"questions":"nonsense"}`:                                                                         "",
	} {
		if got := Describe(tool, json.RawMessage(args)); got != want {
			t.Errorf("Describe(%s) = %q, want %q", args, got, want)
		}
	}
}
