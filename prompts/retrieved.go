package prompts

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed retrieved/retrieved.tmpl
var retrievedText string

var retrievedTemplate = template.Must(template.New("retrieved").Parse(retrievedText))

// RenderRetrieved frames code that retrieval found for a question: the
// text of a user message sent just before that question, so that a small
// model reads the code and then what it is asked about it.
func RenderRetrieved(snippets string) (string, error) {
	var b bytes.Buffer
	if err := retrievedTemplate.Execute(&b, strings.TrimSpace(snippets)); err != nil {
		return "", fmt.Errorf("render retrieved context: %w", err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}
