package disclosure

import (
	"testing"
)

func defaultIntents(tb testing.TB) *Intents {
	tb.Helper()
	in, err := DefaultIntents()
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// detectTier is the highest tier text asks for.
func detectTier(in *Intents, text string) (Tier, string) {
	best, word := Read, ""
	for _, h := range in.Detect(text) {
		if h.Tier > best {
			best, word = h.Tier, h.Word
		}
	}
	return best, word
}

func TestDetect(t *testing.T) {
	in := defaultIntents(t)
	tests := []struct {
		text string
		want Tier
	}{
		// Reading and explaining stays at tier 0.
		{"what does this repository do?", Read},
		{"explain the retry loop in agent/loop.go", Read},
		{"where is the config parsed", Read},
		{"find every caller of parseConfig", Read},
		{"summarize README.md", Read},
		{"show me how errors are wrapped", Read},
		// Negations.
		{"don't change anything, just explain", Read},
		{"Don’t change anything; just explain why it fails.", Read},
		{"do not edit files, only read them", Read},
		{"explain it without changing any code", Read},
		{"never run commands here, just tell me what the Makefile does", Read},
		{"no need to run the tests, describe them", Read},
		{"I can't build it. Why?", Read},
		// Questions ask for information.
		{"how do I add a flag to the CLI?", Read},
		{"how would I fix this?", Read},
		{"why does the build fail?", Read},
		{"what would happen if I changed the timeout", Read},
		{"should we refactor this package?", Read},
		{"is this function tested?", Read},
		{"tell me how to run the tests", Read},
		// Nouns that look like keywords.
		{"the tests fail on CI", Read},
		{"Build is broken since yesterday", Read},
		{"explain this test", Read},
		{"show me the last commit message", Read},
		{"summarise the changes in this file", Read},
		{"what's in run_command.go", Read},
		{"read fix_test.go and tell me what it checks", Read},
		// Edits.
		{"fix the off-by-one in pager.go", Edit},
		{"Fix the typo in the README.", Edit},
		{"please rename Foo to Bar", Edit},
		{"can you add a --verbose flag?", Edit},
		{"could you please update the docs", Edit},
		{"refactor the parser into two functions", Edit},
		{"implement the missing Close method", Edit},
		{"I want you to write a test for parseConfig", Edit},
		{"the function should be renamed to Parse", Edit},
		{"go ahead and remove the dead code", Edit},
		{"let's clean up the imports", Edit},
		{"Create a CONTRIBUTING.md", Edit},
		{"help me change the default port", Edit},
		{"don't run anything but fix the typo", Edit},
		{"add a comment, no need to run the tests", Edit},
		{"What's wrong with main.go? Fix it.", Edit},
		// Commands.
		{"run the tests", Commands},
		{"can you run go test ./... please", Commands},
		{"fix the bug and run the tests", Commands},
		{"build it and tell me what breaks", Commands},
		{"commit these changes", Commands},
		{"install the dependencies", Commands},
		{"please execute make lint", Commands},
		{"could you test the parser?", Commands},
		{"update the changelog, then commit", Commands},
		{"try running the benchmarks", Commands},
		// External.
		{"fetch https://example.com/spec and summarize it", External},
		{"download the latest release notes", External},
		{"look up the tiktoken docs online", External},
		{"search the web for this error", External},
		{"what does the url in the README point to?", Read},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, word := detectTier(in, tt.text)
			if got != tt.want {
				t.Errorf("Detect(%q) = %s (by %q), want %s", tt.text, got, word, tt.want)
			}
		})
	}
	if len(tests) < 40 {
		t.Errorf("only %d phrasings; keep at least 40", len(tests))
	}
}

func TestInflections(t *testing.T) {
	in := defaultIntents(t)
	for _, text := range []string{
		"please fixing", "and fixed", "to be modified", "and running", "and committed", "please writes",
		"we should be rewriting it", "try modifying", "and implemented", "and upgraded", "to be deployed",
	} {
		if got, _ := detectTier(in, text); got == Read {
			t.Errorf("Detect(%q) found nothing", text)
		}
	}
	// Inflected forms do not count where only a command would be.
	if got, w := detectTier(in, "fixes landed yesterday"); got != Read {
		t.Errorf("a sentence starting with a plural noun unlocked %s by %q", got, w)
	}
}

func TestOverrides(t *testing.T) {
	in := defaultIntents(t).With(Overrides{
		Edit:     []string{"frobnicate", "-add"},
		Commands: []string{"@pytest"},
		Negation: []string{"skip"},
	})
	tests := []struct {
		text string
		want Tier
	}{
		{"frobnicate the widget", Edit},
		{"add a flag", Read},
		{"why does pytest hang", Read},
		{"the pytest suite is slow, look at it", Commands},
		{"skip fixing, explain", Read},
		{"fix it", Edit},
	}
	for _, tt := range tests {
		if got, w := detectTier(in, tt.text); got != tt.want {
			t.Errorf("Detect(%q) = %s (by %q), want %s", tt.text, got, w, tt.want)
		}
	}
	if got, _ := detectTier(defaultIntents(t), "add a flag"); got != Edit {
		t.Error("With changed the intents it was called on")
	}
}

func TestParseIntentsErrors(t *testing.T) {
	for _, text := range []string{"fix\n[edit]\n", "[edit]\nfix\n[nonsense]\nx\n"} {
		if _, err := ParseIntents(text); err == nil {
			t.Errorf("ParseIntents(%q) succeeded", text)
		}
	}
}
