package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed summary/summary.tmpl
var summaryFS embed.FS

var summaryTemplates = template.Must(template.ParseFS(summaryFS, "summary/summary.tmpl"))

// SummaryHeadings returns the parts the summary prompt asks for, in order.
// A reply that shows few of them did not follow the prompt.
func SummaryHeadings() []string {
	return []string{"Goal:", "Files:", "Decisions:", "Open problems:", "Next step:"}
}

// Summary is what the compaction summary prompt is rendered from.
type Summary struct {
	// Transcript is the part of the conversation to summarise, as text.
	Transcript string
	// MaxWords caps the length of the notes asked for.
	MaxWords int
}

// RenderSummary returns the system and user messages of the request that
// asks the model to summarise the oldest part of a conversation into
// structured notes (goal, files, decisions, open problems, next step).
func RenderSummary(s Summary) (system, user string, err error) {
	render := func(name string) (string, error) {
		var b bytes.Buffer
		if err := summaryTemplates.ExecuteTemplate(&b, name, s); err != nil {
			return "", fmt.Errorf("render summary prompt: %w", err)
		}
		return strings.TrimSpace(b.String()) + "\n", nil
	}
	if system, err = render("system"); err != nil {
		return "", "", err
	}
	if user, err = render("user"); err != nil {
		return "", "", err
	}
	return system, user, nil
}
