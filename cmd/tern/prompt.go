package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// promptConnectTimeout bounds the wait for Ollama: tern prompt works
// without it.
const promptConnectTimeout = 3 * time.Second

// promptOptions are tern prompt's flags.
type promptOptions struct {
	json bool
}

func (a *app) promptCommand() *cobra.Command {
	o := &promptOptions{}
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Print exactly what the first request would carry, with token counts",
		Long: `Print the prefix of the first request of a new session as a Markdown report:
the system prompt as text, the tool schemas of the starting tier (--tier)
one per line, each as the JSON that is sent, then a table of the token cost
of each part, of each tier and of all tiers, counted with cl100k_base (the
model's own tokenizer differs a little). --json prints the same as one JSON
object instead.

The system prompt depends on the model's family. tern asks Ollama for it;
when Ollama cannot be reached, it uses the family named by --model (or the
default template) and says so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runCommand(cmd.Context(), a, o, a.prompt) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object (system prompt, tool schemas, token counts) instead of the report")
	return cmd
}

func (a *app) prompt(ctx context.Context, po *promptOptions) error {
	jsonOut := po.json
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	cfg, err := a.config(root)
	if err != nil {
		return err
	}
	counter, err := budget.NewCounter()
	if err != nil {
		return err
	}
	model, text := cfg.Model, cfg.ToolMode == "text" || cfg.ToolMode == "constrained"
	var prof models.Profile
	cctx, cancel := context.WithTimeout(ctx, promptConnectTimeout)
	back, err := a.connect(cctx, cfg)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var perr error
		if prof, perr = backend.Profile(models.ModelInfo{Name: cfg.Model, Family: models.FamilyOfName(cfg.Model)}, cfg); perr != nil {
			return perr
		}
		if model == "" {
			model = "(no model)"
		}
		fmt.Fprintf(a.stderr, "tern: %s\ntern: showing the prompt offline, for the %s template (from --model or the config), with %s tools\n",
			firstLine(err.Error()), prof.Prompt, map[bool]string{true: "text-protocol", false: "native"}[text])
	} else {
		model, prof, text = back.info.Name, back.profile, back.proto.Text
	}

	ws, err := tools.NewWorkspace(root, cfg.AllowRead...)
	if err != nil {
		return err
	}
	o := toolOptions{ws: ws, cfg: cfg}
	if code := newCodeIndex(root, cfg); code.Exists() {
		o.search = code // only its schema is shown
	}
	set, err := buildToolSet(o)
	if err != nil {
		return err
	}
	system, notes, err := prompts.ForModel(root, prof, cfg.Think)
	if err != nil {
		return err
	}
	var render func([]models.ToolSpec) string
	if text {
		format := prof.ToolFormat
		if prof.EffectiveToolMode(cfg.ToolMode) == models.ToolModeConstrained {
			format = models.FormatConstrained
		}
		render = func(specs []models.ToolSpec) string {
			block, _ := prompts.TextToolsBlock(specs, format) // the templates are tested; it cannot fail
			return system + block
		}
	}
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "tern: %s\n", n)
	}
	p := promptReport{counter: counter, set: set, system: system, render: render}
	if jsonOut {
		return p.writeJSON(a.stdout, model, prof.Prompt, text)
	}
	p.write(a.stdout, model, prof.Prompt, text)
	return nil
}

// promptReport prints the first request's prefix and what it costs.
type promptReport struct {
	counter *budget.Counter
	set     *disclosure.Set
	system  string
	// render, in the text protocol, renders the system prompt for a tool
	// list; nil for native tools.
	render func([]models.ToolSpec) string
}

func (p promptReport) systemTokens(system string) int {
	return p.counter.MessageTokens(models.Message{Role: models.RoleSystem, Content: system})
}

// requestTokens is what a request carrying the tools ts costs: the system
// prompt and, natively, the tool schemas.
func (p promptReport) requestTokens(ts []tools.Tool) int {
	if p.render != nil {
		return p.systemTokens(p.render(specsOf(ts)))
	}
	n := p.systemTokens(p.system)
	for _, t := range ts {
		n += p.counter.Count(string(t.Spec().WireJSON()))
	}
	return n
}

func (p promptReport) write(w io.Writer, model, template string, text bool) {
	visible := p.set.All()
	fmt.Fprintf(w, "# First request of a new session: %s (%s template), %s, up to %s\n\n",
		model, template, p.set.Tier(), p.set.Max())
	fmt.Fprintf(w, "## System prompt (%d tokens)\n\n%s\n", p.systemTokens(p.system), p.system)
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
	row("system prompt", "", p.systemTokens(p.system), "yes")
	for _, c := range p.set.Costs(p.counter) {
		row(c.Name, fmt.Sprint(int(c.Tier)), c.Tokens, map[bool]string{true: "yes", false: "no"}[c.Visible])
	}
	fmt.Fprintln(w)
	var upTo []tools.Tool
	for t := disclosure.Read; t <= p.set.Max(); t++ {
		upTo = append(upTo, p.set.Tools(t)...)
		label := fmt.Sprintf("request at tier %d", t)
		if t == disclosure.NumTiers-1 {
			label += " (all tools)"
		}
		row(label, "", p.requestTokens(upTo), "")
	}
	row(fmt.Sprintf("this request (tier %d)", p.set.Tier()), "", p.requestTokens(visible), "")
	if text {
		fmt.Fprintln(w, "\nIn the text tool protocol the tools' cost is part of the system prompt's.")
	}
}

// promptJSON is tern prompt --json: the first request's prefix and what
// it costs.
type promptJSON struct {
	Model    string `json:"model"`
	Template string `json:"template"`
	Tier     int    `json:"tier"`
	MaxTier  int    `json:"max_tier"`
	// ToolMode is "native" (Tools are sent as schemas) or "text" (the
	// system prompt describes them).
	ToolMode string            `json:"tool_mode"`
	System   string            `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Tokens   promptCounts      `json:"tokens"`
}

type promptCounts struct {
	System int `json:"system"`
	// Tools lists every tool of every tier; Sent says it is in this request.
	Tools []promptToolCost `json:"tools"`
	// ByTier is the cost of a request offering the tools up to each tier.
	ByTier  []int `json:"by_tier"`
	Request int   `json:"request"`
}

type promptToolCost struct {
	Name   string `json:"name"`
	Tier   int    `json:"tier"`
	Tokens int    `json:"tokens"`
	Sent   bool   `json:"sent"`
}

func (p promptReport) writeJSON(w io.Writer, model, template string, text bool) error {
	visible := p.set.All()
	out := promptJSON{Model: model, Template: template, Tier: int(p.set.Tier()), MaxTier: int(p.set.Max()),
		ToolMode: "native", System: p.system, Tools: []json.RawMessage{}}
	if text {
		out.ToolMode = "text"
		out.System = p.render(specsOf(visible))
	} else {
		for _, t := range visible {
			out.Tools = append(out.Tools, json.RawMessage(t.Spec().WireJSON()))
		}
	}
	out.Tokens.System = p.systemTokens(p.system)
	for _, c := range p.set.Costs(p.counter) {
		out.Tokens.Tools = append(out.Tokens.Tools, promptToolCost{Name: c.Name, Tier: int(c.Tier), Tokens: c.Tokens, Sent: c.Visible})
	}
	var upTo []tools.Tool
	for t := disclosure.Read; t <= p.set.Max(); t++ {
		upTo = append(upTo, p.set.Tools(t)...)
		out.Tokens.ByTier = append(out.Tokens.ByTier, p.requestTokens(upTo))
	}
	out.Tokens.Request = p.requestTokens(visible)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// firstLine is s's first line, cut to 160 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	return s
}
