// Package prompts renders the model-facing text tern sends: the system
// prompt for each model family, the text tool protocol for models that
// cannot take tools natively, the short corrections (nudges) sent to a
// model that went astray, the summary prompt of compaction, and the /init
// prompt that drafts a repository's notes (with the rule for writing them:
// never over an existing AGENTS.md). The text lives in embedded
// template files next to this code, covered by golden tests, because
// every token of it is paid for on every request.
//
// prompts imports models only.
package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/ternhq/tern/models"
)

//go:embed system/*.tmpl
var systemFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"params":  paramList,
	"example": exampleCall,
}).ParseFS(systemFS, "system/*.tmpl"))

// System is what a system prompt is rendered from.
type System struct {
	// Family picks the template: a profile's prompt family ("qwen",
	// "llama", …) or a family from /api/show ("qwen3", "gemma3", …).
	Family string
	// Repo is the repository's name, for orientation.
	Repo string
	// Notes are the project notes (AGENTS.md), already cut to size.
	Notes string
	// TextTools, when not empty, are described in the prompt with the text
	// tool protocol, for models without native tool support.
	TextTools []models.ToolSpec
	// ToolFormat is how the text tool protocol's examples write a call
	// (models.FormatTagged when empty), in the shape the family knows.
	ToolFormat string
	// Reminder adds the small-model reminder: one tool per reply, read
	// before edit.
	Reminder bool
	// NoThink ends the prompt with "/no_think", for Qwen3 builds whose
	// template ignores the request's think field.
	NoThink bool
}

// Families lists the prompt families, "default" last: those the model
// profiles name (models.Profiles, the one table of model families), each
// rendered by the template of its name.
func Families() []string {
	var names []string
	for _, p := range models.Profiles() {
		if !slices.Contains(names, p.Prompt) {
			names = append(names, p.Prompt)
		}
	}
	return names
}

// CheckProfile checks that a profile (perhaps changed by the user's
// [profiles]) names a prompt family there is a template for.
func CheckProfile(p models.Profile) error {
	if !slices.Contains(Families(), p.Prompt) {
		return fmt.Errorf("profile %s: prompt must be one of %s, not %q", p.Name, strings.Join(Families(), ", "), p.Prompt)
	}
	return nil
}

// TemplateFor returns the name of the system template used for family: a
// prompt family, or a family /api/show reports ("qwen3", "gemma3") that
// starts with one's name; "default" serves the rest.
func TemplateFor(family string) string {
	family = strings.ToLower(family)
	for _, name := range Families() {
		if strings.HasPrefix(family, name) {
			return name
		}
	}
	return "default"
}

// Render returns the system prompt. The output depends only on s, so the
// same session always sends the same bytes.
func Render(s System) (string, error) {
	var b bytes.Buffer
	name := TemplateFor(s.Family) + ".tmpl"
	if err := templates.ExecuteTemplate(&b, name, s); err != nil {
		return "", fmt.Errorf("render system prompt %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// paramList renders a tool's parameters compactly: "path*, offset, limit"
// (a star marks the required ones).
func paramList(t models.ToolSpec) string {
	var parts []string
	for _, p := range models.SchemaParams(t.Parameters) {
		name := p.Name
		if p.Required {
			name += "*"
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}

// exampleCall renders one valid call of t in format, for the text tool
// protocol's list of tools.
func exampleCall(format string, t models.ToolSpec) string {
	return models.FormatCall(format, t.Name, models.ExampleArgs(t))
}

// TextToolsBlock is the text tool protocol's part of a system prompt: how
// to write a call, then each tool with one example call in format. A
// prompt rendered without TextTools, followed by this block, is the prompt
// rendered with them, so the agent can switch protocols mid-session.
func TextToolsBlock(specs []models.ToolSpec, format string) (string, error) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "texttools", System{TextTools: specs, ToolFormat: format}); err != nil {
		return "", fmt.Errorf("render text tools: %w", err)
	}
	return b.String(), nil
}
