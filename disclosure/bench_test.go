package disclosure

import (
	"testing"
)

// BenchmarkDetect reads a long-ish prompt for intent, as every turn does.
func BenchmarkDetect(b *testing.B) {
	in := defaultIntents(b)
	prompt := "The retry loop in agent/loop.go gives up too early when the server is slow. " +
		"Don't change the public API, but fix the backoff so it waits longer, add a test for it, " +
		"and then run the tests. What does maxRetries do, by the way?"
	for b.Loop() {
		if len(in.Detect(prompt)) == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkSetLookup is the per-call cost the Set adds: the tool list for
// a request and a name lookup.
func BenchmarkSetLookup(b *testing.B) {
	s, err := New(Config{Tools: fakeTiers(), Start: Edit, Max: External})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if len(s.All()) == 0 {
			b.Fatal("no tools")
		}
		if _, ok := s.Get("git_commit"); !ok {
			b.Fatal("no git_commit")
		}
	}
}
