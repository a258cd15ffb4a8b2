package tui

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// This file completes @path mentions at the prompt from the repository's
// files (Deps.Files): typing @ and the start of a path shows the matches
// under the prompt, and Tab completes, a directory at a time like a
// shell. The agent attaches the files a sent prompt mentions.

// mentionShown is how many matches the hint lists.
const mentionShown = 6

// mentionStale is how old the file list may be before a new @ reloads it.
const mentionStale = 10 * time.Second

// mentionOpeners are what may come right before the @ of a mention (as
// agent.Mentions reads them), besides the start of the prompt.
const mentionOpeners = " \t\n([{\"'`"

// mention is the @mention being typed at the end of the prompt: it starts
// at byte at, its path so far is prefix, and quoted is set when it opened
// with a double quote (@"my fi), as a path with spaces must.
type mention struct {
	at     int
	prefix string
	quoted bool
}

// mentionToken finds the @mention being typed at the end of text, if any.
func mentionToken(text string) (mention, bool) {
	for i := strings.LastIndexByte(text, '@'); i >= 0; i = strings.LastIndexByte(text[:i], '@') {
		if i > 0 && !strings.ContainsRune(mentionOpeners, rune(text[i-1])) {
			continue // user@host
		}
		rest := text[i+1:]
		if quoted, ok := strings.CutPrefix(rest, `"`); ok {
			if strings.ContainsAny(quoted, "\"\n") {
				return mention{}, false // closed: the mention is done
			}
			return mention{at: i, prefix: quoted, quoted: true}, true
		}
		if strings.ContainsAny(rest, mentionOpeners+"<>)]}") {
			return mention{}, false
		}
		return mention{at: i, prefix: rest}, true
	}
	return mention{}, false
}

// mentionText writes name as a mention: quoted when it holds a space (or
// was begun quoted), the quote left open for a directory, to go on into.
func mentionText(name string, quoted, done bool) string {
	if !quoted && !strings.ContainsAny(name, " \t") {
		return "@" + name
	}
	if done {
		return `@"` + name + `"`
	}
	return `@"` + name
}

// loadMentionFiles fetches the repository's files in the background when
// the list is missing or old, and shows the matches once it arrives.
func (a *App) loadMentionFiles() {
	if a.deps.Files == nil || a.mention.loading || a.now().Sub(a.mention.loaded) < mentionStale {
		return
	}
	a.mention.loading = true
	a.background(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		files, err := a.deps.Files(ctx)
		a.pump.post(func() {
			a.mention.loading = false
			a.mention.loaded = a.now()
			if err == nil {
				a.mention.files = files
			}
			a.inputChanged() // show the matches of what was typed meanwhile
		})
	})
}

// mentionMatches lists what @prefix may complete to: the next path
// segment of the files under it (directories end in /), or, when no path
// starts so, the files whose name does.
func (a *App) mentionMatches(prefix string) []string {
	out := NextSegments(a.mention.files, prefix)
	if len(out) > 0 || strings.Contains(prefix, "/") {
		return out
	}
	for _, f := range a.mention.files {
		if strings.HasPrefix(path.Base(f), prefix) {
			out = append(out, f)
		}
	}
	return out
}

// mentionHint shows the matches of the mention being typed.
func (a *App) mentionHint(mn mention) {
	prefix := mn.prefix
	a.loadMentionFiles()
	if a.mention.files == nil {
		if a.deps.Files == nil {
			a.setHint("@path attaches a file")
		} else {
			a.setHint("@path attaches a file; listing the repository's files…")
		}
		return
	}
	m := a.mentionMatches(prefix)
	switch {
	case len(m) == 0:
		a.setHint("no file matches @" + prefix + "; a mention that names no file is sent as written")
	case len(m) == 1 && m[0] == prefix:
		a.setHint(mentionText(prefix, mn.quoted, true) + " is attached when the prompt is sent")
	default:
		shown := make([]string, min(len(m), mentionShown))
		for i := range shown {
			shown[i] = mentionText(m[i], false, !strings.HasSuffix(m[i], "/"))
		}
		hint := strings.Join(shown, "   ")
		if len(m) > len(shown) {
			hint += fmt.Sprintf("   … %d more", len(m)-len(shown))
		}
		a.setHint(hint + "   (Tab completes)")
	}
}

// completeMention completes the @mention at the end of the prompt to the
// longest prefix its matches share; a single file gets a space after it.
// A name with a space is written quoted (@"my notes.md").
func (a *App) completeMention(mn mention) {
	prefix := mn.prefix
	m := a.mentionMatches(prefix)
	if len(m) == 0 {
		return
	}
	common := m[0]
	for _, s := range m[1:] {
		for !strings.HasPrefix(s, common) {
			common = common[:len(common)-1]
		}
	}
	file := len(m) == 1 && !strings.HasSuffix(common, "/")
	if len(common) <= len(prefix) && !slices.Contains(m, prefix) {
		return // several names share no more than what is typed
	}
	text := mentionText(common, mn.quoted, file)
	if file {
		text += " "
	}
	a.input.SetText(a.input.GetText()[:mn.at]+text, true)
}

// mentionState is the file list @ completes from.
type mentionState struct {
	files   []string
	loaded  time.Time
	loading bool
}

// NextSegments lists what prefix completes to among files (slash-separated
// paths): each file's path up to the end of the next segment after prefix,
// once, in the order of files; a directory ends in /. The TUI's @path
// matches and tern ask's shell completion share it.
func NextSegments(files []string, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if !strings.HasPrefix(f, prefix) {
			continue
		}
		next := f
		if i := strings.IndexByte(f[len(prefix):], '/'); i >= 0 {
			next = f[:len(prefix)+i+1]
		}
		if !seen[next] {
			seen[next] = true
			out = append(out, next)
		}
	}
	return out
}
