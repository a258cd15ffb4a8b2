package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

//go:embed ask_user.md
var askUserDoc string

// Asker puts questions to the user and returns one answer per question:
// the option chosen, or the user's own words. The TUI asks in a dialog;
// cmd/tern wires it in.
type Asker interface {
	Ask(ctx context.Context, qs []Question) ([]string, error)
}

// Question is one multiple-choice question.
type Question struct {
	Text    string
	Options []string
}

// ErrNotAnswered is what an Asker returns when the user closed the
// questions without answering.
var ErrNotAnswered = errors.New("the user did not answer")

// Bounds of one ask_user call.
const (
	maxQuestions = 4
	minOptions   = 2
	maxOptions   = 4
)

// NoUser is ask_user's result when no one can answer: headless runs never
// wait for a person.
const NoUser = "no user available: decide and say what you assumed"

type askUser struct {
	Decl
	asker Asker
}

// NewAskUser returns the ask_user tool. With a nil asker (headless runs)
// every call returns NoUser at once.
func NewAskUser(a Asker) Tool {
	return &askUser{asker: a, Decl: Declare[askUserArgs]("ask_user", askUserDoc)}
}

// askUserArgs is ask_user's parameter. Questions is read by hand
// (parseQuestions), for the shapes small models send it in.
type askUserArgs struct {
	Questions json.RawMessage `json:"questions" tool:"required,type=array,items=object"`
}

func (t *askUser) Effect() Effect { return ReadOnly }

// Describe names a call by its first question, for the call's line:
// `"Which database?" +1 more`.
func (t *askUser) Describe(args json.RawMessage) string {
	qs, err := parseQuestions(args)
	if err != nil || len(qs) == 0 {
		return ""
	}
	s := strconv.Quote(qs[0].Text)
	if n := len(qs) - 1; n > 0 {
		s += fmt.Sprintf(" +%d more", n)
	}
	return s
}

func (t *askUser) Run(ctx context.Context, in Input) Result {
	qs, err := parseQuestions(in.Args)
	if err != nil {
		return fail("ask_user: bad questions", "%v", err)
	}
	summary := "ask_user " + plural(len(qs), "question", "questions")
	if t.asker == nil {
		return Result{Output: NoUser, Summary: summary + ": no user available"}
	}
	answers, err := t.asker.Ask(ctx, qs)
	switch {
	case errors.Is(err, ErrNotAnswered):
		return Result{Output: "the user closed the questions without answering: decide and say what you assumed", Summary: summary + ": not answered"}
	case err != nil && ctx.Err() != nil:
		return fail(summary+": cancelled", "the user cancelled the turn")
	case err != nil:
		return fail(summary+": error", "could not ask the user (%v): decide and say what you assumed", err)
	}
	var b strings.Builder
	for i, q := range qs {
		a := ""
		if i < len(answers) {
			a = answers[i]
		}
		fmt.Fprintf(&b, "%d. %s → %s\n", i+1, q.Text, a)
	}
	return Result{Output: strings.TrimRight(b.String(), "\n"), Summary: summary + ": answered"}
}

// parseQuestions reads the questions as small models send them: a list of
// objects, a list of JSON strings of objects, or one question's fields at
// the top level. Errors say what a valid call looks like.
func parseQuestions(raw json.RawMessage) ([]Question, error) {
	const want = `send {"questions":[{"question":"Which database?","options":["SQLite","Postgres"]}]}`
	var args struct {
		askUserArgs
		questionFields
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	q := bytes.TrimSpace(args.Questions)
	switch {
	case len(q) == 0 || string(q) == "null":
		if args.Question == "" && args.Text == "" {
			return nil, fmt.Errorf("questions is required: %s", want)
		}
		one, _ := json.Marshal(args.questionFields)
		items = []json.RawMessage{one}
	case q[0] == '[':
		if err := json.Unmarshal(q, &items); err != nil {
			return nil, fmt.Errorf("questions must be a list: %s", want)
		}
	case q[0] == '{':
		items = []json.RawMessage{q}
	case q[0] == '"':
		var s string
		_ = json.Unmarshal(q, &s)
		return parseQuestions(json.RawMessage(`{"questions":` + s + `}`))
	default:
		return nil, fmt.Errorf("questions must be a list: %s", want)
	}
	if len(items) == 0 || len(items) > maxQuestions {
		return nil, fmt.Errorf("ask 1 to %d questions, not %d: %s", maxQuestions, len(items), want)
	}
	out := make([]Question, 0, len(items))
	for i, it := range items {
		var f questionFields
		it = bytes.TrimSpace(it)
		if len(it) > 0 && it[0] == '"' {
			var s string
			_ = json.Unmarshal(it, &s)
			it = json.RawMessage(s)
		}
		if err := json.Unmarshal(it, &f); err != nil {
			return nil, fmt.Errorf("question %d is not an object: %s", i+1, want)
		}
		text := strings.TrimSpace(f.Question + f.Text)
		if text == "" {
			return nil, fmt.Errorf("question %d has no \"question\" text: %s", i+1, want)
		}
		var opts []string
		for _, o := range append(f.Options, f.Choices...) {
			if o = strings.TrimSpace(o); o != "" {
				opts = append(opts, o)
			}
		}
		if len(opts) < minOptions || len(opts) > maxOptions {
			return nil, fmt.Errorf("question %d has %d options; give %d to %d: %s", i+1, len(opts), minOptions, maxOptions, want)
		}
		out = append(out, Question{Text: text, Options: opts})
	}
	return out, nil
}

// questionFields are one question's fields, with the names small models
// use for them.
type questionFields struct {
	Question string   `json:"question,omitempty"`
	Text     string   `json:"text,omitempty"`
	Options  []string `json:"options,omitempty"`
	Choices  []string `json:"choices,omitempty"`
}
