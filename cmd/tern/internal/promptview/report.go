// Package promptview is `tern prompt`: its command (Options, NewCmd) and
// its report, the prefix of a new session's first request (the system
// prompt and the tool schemas of the starting tier) and what it costs in
// tokens, part by part and tier by tier, as a Markdown report or as one
// JSON object.
//
// It counts and formats; the system prompt, the tool set and the text
// protocol's rendering are given to it by package main. It imports
// models, tools, disclosure and words, nothing else of tern.
package promptview

import (
	"fmt"
	"io"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// Counter counts tokens as a request carries them; *budget.Counter
// satisfies it.
type Counter interface {
	Count(text string) int
	MessageTokens(m models.Message) int
}

// Report is the first request of a new session and what it costs.
type Report struct {
	Counter Counter
	// Set is the session's tools: its tier is the request's.
	Set *disclosure.Set
	// System is the system prompt without tools.
	System string
	// Render, in the text tool protocol, renders the system prompt for a
	// tool list; nil for native tools, sent as schemas.
	Render func([]models.ToolSpec) string
	// Model and Template name the model and its prompt family in the
	// report's heading.
	Model, Template string
}

func (p Report) systemTokens(system string) int {
	return p.Counter.MessageTokens(models.Message{Role: models.RoleSystem, Content: system})
}

// requestTokens is what a request carrying the tools ts costs: the system
// prompt and, natively, the tool schemas.
func (p Report) requestTokens(ts []tools.Tool) int {
	if p.Render != nil {
		return p.systemTokens(p.Render(specsOf(ts)))
	}
	n := p.systemTokens(p.System)
	for _, t := range ts {
		n += p.Counter.Count(string(t.Spec().WireJSON()))
	}
	return n
}

// Write prints the report in Markdown: the heading, the system prompt,
// the tools sent as JSON (or a line saying the text protocol describes
// them), and the table of token costs.
func (p Report) Write(w io.Writer) {
	text := p.Render != nil
	visible := p.Set.All()
	fmt.Fprintf(w, "# First request of a new session: %s (%s template), %s, up to %s\n\n",
		p.Model, p.Template, p.Set.Tier(), p.Set.Max())
	fmt.Fprintf(w, "## System prompt (%d tokens)\n\n%s\n", p.systemTokens(p.System), p.System)
	if text {
		fmt.Fprintf(w, "## Tools\n\nNone sent natively: the text tool protocol describes them in the system prompt.\n\n")
	} else {
		fmt.Fprintf(w, "## Tools (%d, sent as JSON)\n\n", len(visible))
		for _, t := range visible {
			fmt.Fprintf(w, "%s\n", t.Spec().WireJSON())
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "## Tokens (cl100k_base)\n\n")
	row := func(part, tier string, tokens int, sent string) {
		fmt.Fprintf(w, "%-30s %4s %6d  %s\n", part, tier, tokens, sent)
	}
	fmt.Fprintf(w, "%-30s %4s %6s  %s\n", "part", "tier", "tokens", "sent")
	row("system prompt", "", p.systemTokens(p.System), "yes")
	for _, c := range p.Set.Costs(p.Counter) {
		row(c.Name, fmt.Sprint(int(c.Tier)), c.Tokens, map[bool]string{true: "yes", false: "no"}[c.Visible])
	}
	fmt.Fprintln(w)
	var upTo []tools.Tool
	for t := disclosure.Read; t <= p.Set.Max(); t++ {
		upTo = append(upTo, p.Set.Tools(t)...)
		label := fmt.Sprintf("request at tier %d", t)
		if t == disclosure.NumTiers-1 {
			label += " (all tools)"
		}
		row(label, "", p.requestTokens(upTo), "")
	}
	row(fmt.Sprintf("this request (tier %d)", p.Set.Tier()), "", p.requestTokens(visible), "")
	if text {
		fmt.Fprintln(w, "\nIn the text tool protocol the tools' cost is part of the system prompt's.")
	}
}

// WriteOffline says, on w, that the model server could not be reached
// (err's first line) and that the report shows the template's prompt with
// native or text-protocol tools.
func WriteOffline(w io.Writer, err error, template string, text bool) {
	fmt.Fprintf(w, "tern: %s\ntern: showing the prompt offline, for the %s template (from --model or the config), with %s tools\n",
		words.FirstLine(err.Error(), 160), template, map[bool]string{true: "text-protocol", false: "native"}[text])
}

// specsOf returns the specifications of ts.
func specsOf(ts []tools.Tool) []models.ToolSpec {
	specs := make([]models.ToolSpec, len(ts))
	for i, t := range ts {
		specs[i] = t.Spec()
	}
	return specs
}
