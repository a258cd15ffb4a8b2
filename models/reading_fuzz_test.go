package models

import (
	"os"
	"strings"
	"testing"
)

// FuzzReadReply feeds ReadReply arbitrary replies, with the tolerant
// reader in play: it must never panic, and a call it would have the agent
// run (no Problem) must name an offered tool and fit its schema. The seed
// corpus is the malformed-output table and the real replies the agent's
// scorer plays (../agent/testdata/replies: the tune set and the prose
// set; not the held-aside set).
func FuzzReadReply(f *testing.F) {
	for _, tc := range loadTable(f) {
		f.Add(tc.input)
	}
	for _, name := range []string{"tune.txt", "prose.txt"} {
		for _, r := range replySeeds(f, "../agent/testdata/replies/"+name) {
			f.Add(r)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		r := ReadReply(Message{Role: RoleAssistant, Content: text}, tableTools)
		if (r.Kind == ReplyCalls) != (len(r.Calls) > 0) {
			t.Fatalf("kind %d with %d calls from %q", r.Kind, len(r.Calls), text)
		}
		for _, c := range r.Calls {
			if c.Problem != "" {
				continue
			}
			spec, ok := specNamed(tableTools, c.Name)
			if !ok {
				t.Fatalf("a call of %q, which is not offered, from %q", c.Name, text)
			}
			if _, _, err := CheckArgs(spec, c.Arguments); err != nil {
				t.Fatalf("call %s %s does not fit its schema (%v), from %q", c.Name, c.Arguments, err, text)
			}
		}
		if len(r.Rest) > len(text)+len("\n") {
			t.Fatalf("rest %q is longer than the reply %q", r.Rest, text)
		}
	})
}

func specNamed(specs []ToolSpec, name string) (ToolSpec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return ToolSpec{}, false
}

// replySeeds reads the replies of a file of real replies: the text after
// each "--- reply" line up to the next case.
func replySeeds(f *testing.F, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	var out []string
	for _, c := range strings.Split(string(data), "\n=== ") {
		if _, reply, ok := strings.Cut(c, "--- reply\n"); ok {
			out = append(out, reply)
		}
	}
	return out
}
