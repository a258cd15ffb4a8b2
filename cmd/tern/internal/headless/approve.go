package headless

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// Approver is the approval policy of `tern ask`: with Yes, writes and
// commands run, but destructive ones are refused; with Yolo those run
// too. Without either, calls are refused with a result that tells the
// model (and, through it, the user) how to allow them.
type Approver struct {
	Yes, Yolo bool
	// Command names the tern command for messages; "tern ask" when empty.
	Command string
	// Refused, when set, counts what was refused.
	Refused *Refusals
}

// Approve answers ap by the policy, never asking anyone.
func (h Approver) Approve(ctx context.Context, ap agent.Approval) (agent.Decision, error) {
	switch {
	case h.Yolo, h.Yes && !ap.Destructive:
		return agent.Decision{Allow: true}, nil
	}
	command := cmp.Or(h.Command, "tern ask")
	kind := map[tools.Effect]string{tools.Writes: "file change", tools.Executes: "command", tools.External: "external tool call"}[ap.Effect]
	if ap.Destructive {
		h.Refused.add(destructiveKind)
		return agent.Decision{Reason: fmt.Sprintf("it %s; %s refuses destructive or unchecked commands unless run with --yolo", ap.Why, command)}, nil
	}
	if strings.HasPrefix(ap.Tool, mcp.ServerStartTool) { // a server start is no change of the model's
		return agent.Decision{Reason: fmt.Sprintf("%s asks no questions, so it starts a server the repository configures only when run with --yes", command)}, nil
	}
	h.Refused.add(cmp.Or(kind, "change"))
	// Worded for the model and the user alike: the model passes it on,
	// and tern doctor shows it as it is.
	return agent.Decision{Reason: fmt.Sprintf("%s asks no questions, so it refuses %s unless run with --yes", command, cmp.Or(kind, "change")+"s")}, nil
}

// Refusals counts the calls an Approver refused, by kind, in the order
// the kinds were first refused. Its zero value is ready; it is safe for
// concurrent use.
type Refusals struct {
	mu      sync.Mutex
	byKind  map[string]int
	ordered []string
}

func (r *Refusals) add(kind string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKind == nil {
		r.byKind = map[string]int{}
	}
	if r.byKind[kind] == 0 {
		r.ordered = append(r.ordered, kind)
	}
	r.byKind[kind]++
}

// summary is the number of refused calls and a phrase for them: "2 file
// changes and 1 command were".
func (r *Refusals) summary() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	n := 0
	for _, k := range r.ordered {
		c := r.byKind[k]
		n += c
		parts = append(parts, words.Count(c, k))
	}
	if n == 0 {
		return 0, ""
	}
	return n, words.OrList(parts) + map[bool]string{true: " was", false: " were"}[n == 1]
}

// howToAllow says which flag allows what was refused.
func (r *Refusals) howToAllow() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var plain []string
	for _, k := range r.ordered {
		if k != destructiveKind {
			plain = append(plain, k+"s")
		}
	}
	switch {
	case len(plain) == 0:
		return "run with --yolo to allow destructive commands"
	case r.byKind[destructiveKind] > 0:
		return "run with --yes to allow " + words.OrList(plain) + ", --yolo for destructive commands too"
	}
	return "run with --yes to allow " + words.OrList(plain)
}

// destructiveKind is what Refusals calls a destructive command.
const destructiveKind = "destructive command"
