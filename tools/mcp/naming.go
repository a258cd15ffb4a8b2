package mcp

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameLen is the longest tool name tern sends: the limit OpenAI-style
// APIs enforce, and more than a small model reads well.
const maxNameLen = 64

// toolName is the name the model sees for tool of server: both in
// snake_case (camelCase split, letters lower-cased, every run of other
// characters one underscore), joined by one underscore:
// "github" + "createIssue" → "github_create_issue". A name longer than 64
// characters is cut and ends in 8 hex digits of a hash of the original
// pair, so it stays unique and the same from run to run. taken reports
// names already in use (built-in tools, earlier MCP tools); a clash gets
// "_2", "_3", … .
func toolName(server, tool string, taken func(string) bool) string {
	t := snake(tool)
	if t == "" {
		t = "tool"
	}
	name := snake(server) + "_" + t
	if len(name) > maxNameLen {
		h := fnv.New32a()
		h.Write([]byte(server + "/" + tool))
		name = strings.TrimRight(name[:maxNameLen-9], "_") + fmt.Sprintf("_%08x", h.Sum32())
	}
	base := name
	for i := 2; taken(name); i++ {
		suffix := fmt.Sprintf("_%d", i)
		name = strings.TrimRight(base[:min(len(base), maxNameLen-len(suffix))], "_") + suffix
	}
	return name
}

// snake turns s into lower snake_case of ASCII letters and digits:
// "createIssue" → "create_issue", "HTTPServer" → "http_server",
// "get-file.v2" → "get_file_v2". It returns "" when s has no letter or
// digit.
func snake(s string) string {
	rs := []rune(s)
	var b strings.Builder
	pendingSep := false
	for i, r := range rs {
		alnum := r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !alnum {
			pendingSep = b.Len() > 0
			continue
		}
		if unicode.IsUpper(r) && i > 0 && b.Len() > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				pendingSep = true
			}
		}
		if pendingSep {
			b.WriteByte('_')
			pendingSep = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// descriptionBudget is the most characters of a server's tool description
// tern sends: small models read short descriptions better, and every
// character costs tokens in every request.
const descriptionBudget = 200

// shortDescription trims a server's description to what a small model
// needs: the first paragraph, whitespace collapsed; when that is longer than
// max characters, the sentences that fit, else the words that fit and "…".
func shortDescription(desc string, max int) string {
	desc = strings.TrimSpace(desc)
	if i := strings.Index(desc, "\n\n"); i >= 0 {
		desc = desc[:i]
	}
	desc = strings.Join(strings.Fields(desc), " ")
	if len(desc) <= max {
		return desc
	}
	cut := desc[:max]
	// The last sentence end that fits: ". ", "! " or "? " (or one at the cut).
	end := -1
	for i := 0; i < len(cut); i++ {
		if strings.ContainsRune(".!?", rune(cut[i])) && (i+1 == len(desc) || desc[i+1] == ' ') {
			end = i + 1
		}
	}
	if end >= max/4 {
		return cut[:end]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	} else {
		for len(cut) > 0 && !utf8.RuneStart(desc[len(cut)]) {
			cut = cut[:len(cut)-1]
		}
	}
	cut = strings.TrimRight(cut, " ,;:")
	if strings.HasSuffix(cut, ".") || strings.HasSuffix(cut, "!") || strings.HasSuffix(cut, "?") {
		return cut
	}
	return cut + "…"
}
