package promptview

import (
	"encoding/json"
	"io"

	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/tools"
)

// JSON is tern prompt --json: the first request's prefix and what
// it costs. The field names are stable: docs/scripting.md documents them.
type JSON struct {
	Model    string `json:"model"`
	Template string `json:"template"`
	Tier     int    `json:"tier"`
	MaxTier  int    `json:"max_tier"`
	// ToolMode is "native" (Tools are sent as schemas) or "text" (the
	// system prompt describes them).
	ToolMode string            `json:"tool_mode"`
	System   string            `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Tokens   Counts            `json:"tokens"`
}

// Counts are the token costs of JSON.
type Counts struct {
	System int `json:"system"`
	// Tools lists every tool of every tier; Sent says it is in this request.
	Tools []ToolCost `json:"tools"`
	// ByTier is the cost of a request offering the tools up to each tier.
	ByTier  []int `json:"by_tier"`
	Request int   `json:"request"`
}

// ToolCost is one tool's cost in Counts.
type ToolCost struct {
	Name   string `json:"name"`
	Tier   int    `json:"tier"`
	Tokens int    `json:"tokens"`
	Sent   bool   `json:"sent"`
}

// WriteJSON prints the report as one indented JSON object. In the text
// protocol its system prompt is the one sent, tools described.
func (p Report) WriteJSON(w io.Writer) error {
	visible := p.Set.All()
	out := JSON{Model: p.Model, Template: p.Template, Tier: int(p.Set.Tier()), MaxTier: int(p.Set.Max()),
		ToolMode: "native", System: p.System, Tools: []json.RawMessage{}}
	if p.Render != nil {
		out.ToolMode = "text"
		out.System = p.Render(specsOf(visible))
	} else {
		for _, t := range visible {
			out.Tools = append(out.Tools, json.RawMessage(t.Spec().WireJSON()))
		}
	}
	out.Tokens.System = p.systemTokens(p.System)
	for _, c := range p.Set.Costs(p.Counter) {
		out.Tokens.Tools = append(out.Tokens.Tools, ToolCost{Name: c.Name, Tier: int(c.Tier), Tokens: c.Tokens, Sent: c.Visible})
	}
	var upTo []tools.Tool
	for t := disclosure.Read; t <= p.Set.Max(); t++ {
		upTo = append(upTo, p.Set.Tools(t)...)
		out.Tokens.ByTier = append(out.Tokens.ByTier, p.requestTokens(upTo))
	}
	out.Tokens.Request = p.requestTokens(visible)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
