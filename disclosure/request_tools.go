package disclosure

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/ternhq/tern/tools"
)

//go:embed request_tools.md
var requestToolsDoc string

// RequestTools is the name of the meta-tool with which the model unlocks
// more tools.
const RequestTools = "request_tools"

// ReservedNames are the names of tern's own tools in a session, the
// built-in ones and request_tools, which tools from MCP servers must not
// take.
func ReservedNames(ws *tools.Workspace) []string {
	return append(tools.BuiltinNames(ws), RequestTools)
}

// requestTools is the meta-tool with which the model asks for a higher tier,
// or one tool, with a reason. The unlock is shown to the user and kept for
// the session.
type requestTools struct {
	tools.Decl
	set *Set
}

// tierLine is one unlockable tier in request_tools' description.
type tierLine struct {
	N     int
	Names string
	Label string
}

// newRequestTools describes the tiers above 0 that s may unlock (up to its
// cap, those with tools). The description is fixed when the Set is built,
// so it never changes the prompt prefix.
func newRequestTools(s *Set) (tools.Tool, error) {
	body, labelText, _ := strings.Cut(requestToolsDoc, "\n## labels\n")
	labels := map[int]string{}
	for line := range strings.SplitSeq(labelText, "\n") {
		n, label, ok := strings.Cut(line, ":")
		if k, err := strconv.Atoi(strings.TrimSpace(n)); ok && err == nil {
			labels[k] = strings.TrimSpace(label)
		}
	}
	var lines []tierLine
	for t := Edit; t <= s.max; t++ {
		if !s.hasTools(t) {
			continue
		}
		lines = append(lines, tierLine{N: int(t), Names: s.tierNames(t), Label: labels[int(t)]})
	}
	tmpl, err := template.New("request_tools").Parse(body)
	if err != nil {
		return nil, fmt.Errorf("request_tools description: %w", err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, lines); err != nil {
		return nil, fmt.Errorf("request_tools description: %w", err)
	}
	decl := tools.Declare[requestArgs](RequestTools, b.String())
	if s.catalog != nil && s.max >= External {
		decl = tools.Declare[catalogRequestArgs](RequestTools, b.String())
	}
	return &requestTools{Decl: decl, set: s}, nil
}

// requestArgs are request_tools' parameters. Tier is read by hand
// (parseTier): small models send 1, "1", "tier 1" or 1.0.
type requestArgs struct {
	Tier   json.RawMessage `json:"tier" tool:"type=integer"`
	Tool   string          `json:"tool"`
	Reason string          `json:"reason"`
}

// catalogRequestArgs adds the query that picks MCP tools, offered when the
// session has a catalog to pick from.
type catalogRequestArgs struct {
	requestArgs
	Query string `json:"query" tool:"subject=quoted"`
}

// tierNames lists what tier t holds, for request_tools: its tools, and the
// catalog's for tier 3.
func (s *Set) tierNames(t Tier) string {
	list := names(s.tiers[t])
	if t == External && s.catalog != nil {
		list = append(list, "MCP tools matching a query")
	}
	return strings.Join(list, ", ")
}

// Effect is read-only: the call changes what the model may call, not the
// workspace, and never needs approval.
func (r *requestTools) Effect() tools.Effect { return tools.ReadOnly }

func (r *requestTools) Run(ctx context.Context, in tools.Input) tools.Result {
	var args catalogRequestArgs
	if err := json.Unmarshal(bytes.TrimSpace(orEmpty(in.Args)), &args); err != nil {
		return r.fail("invalid arguments: %v", err)
	}
	reason := oneLine(args.Reason, 120)
	why := "the model asked"
	if reason != "" {
		why += ": " + reason
	}
	s := r.set
	if name := strings.TrimSpace(args.Tool); name != "" {
		return r.unlockTool(ctx, name, why)
	}
	tier, ok := parseTier(args.Tier)
	if !ok {
		if s.intents != nil {
			if hit, found := s.wanted(s.intents.Detect(args.Reason+" "+string(args.Tier)), NumTiers-1); found {
				tier, ok = hit.Tier, true
			}
		}
		if !ok {
			return r.fail(`say which tier you need, e.g. {"tier": 1, "reason": "fix the bug in main.go"}. %s`, r.choices())
		}
	}
	switch {
	case tier <= Read:
		return r.fail("tier 0 tools are always available; %s", r.choices())
	case !tier.Valid():
		return r.fail("there is no tier %d; %s", tier, r.choices())
	case tier > s.max:
		return r.fail("%s is not allowed: the user limited this session to %s. Do the task with the tools you have, or tell the user what you need.", tier, s.max)
	case !s.hasTools(tier):
		return r.fail("%s has no tools in this session. %s", tier, r.choices())
	}
	var added []string
	if tier > s.Tier() {
		added = s.raise(ctx, tier, why)
	}
	var problem string
	if tier == External {
		query := strings.TrimSpace(args.Query)
		if query == "" {
			query = args.Reason
		}
		found, p := s.fromCatalog(ctx, query)
		added, problem = append(added, found...), p
	}
	if len(added) == 0 {
		out := fmt.Sprintf("%s is already unlocked: %s.", tier, strings.Join(names(s.upTo(tier)[len(s.tiers[Read]):]), ", "))
		if tier == External && s.catalog != nil {
			out += " No other external tool matches; try another query."
		}
		if problem != "" {
			out += " (" + problem + ")"
		}
		return tools.Result{Output: out, Summary: fmt.Sprintf("%s already unlocked", tier)}
	}
	out := fmt.Sprintf("Unlocked %s: %s. You can call them now.", tier, strings.Join(added, ", "))
	if problem != "" {
		out += " Some external tools are unavailable: " + problem
	}
	return tools.Result{Output: out, Summary: fmt.Sprintf("unlocked %s", tier)}
}

func (r *requestTools) unlockTool(ctx context.Context, name, why string) tools.Result {
	s := r.set
	name = normalName(name)
	tier, ok := s.tierOf[name]
	if !ok {
		if _, found := s.fromCatalogByName(ctx, name); found {
			tier, ok = External, true
		}
	}
	switch {
	case !ok:
		return r.fail("there is no tool %q. %s", name, r.choices())
	case tier > s.max:
		return r.fail("%s is in %s, which the user does not allow in this session (limit: %s).", name, tier, s.max)
	}
	s.mu.Lock()
	visible := s.isVisible(name)
	s.mu.Unlock()
	if visible {
		return tools.Result{Output: name + " is already available.", Summary: name + " already available"}
	}
	s.unlock(ctx, name, why)
	return tools.Result{Output: fmt.Sprintf("Unlocked %s. You can call it now.", name), Summary: "unlocked " + name}
}

// choices lists what may still be unlocked.
func (r *requestTools) choices() string {
	s := r.set
	cur := s.Tier()
	var parts []string
	for t := cur + 1; t <= s.max; t++ {
		if s.hasTools(t) {
			parts = append(parts, fmt.Sprintf("tier %d: %s", t, s.tierNames(t)))
		}
	}
	if len(parts) == 0 {
		return "Every tool this session allows is already unlocked."
	}
	return "You can unlock " + strings.Join(parts, "; ") + "."
}

func (r *requestTools) fail(format string, a ...any) tools.Result {
	return tools.Result{Output: fmt.Sprintf(format, a...), IsError: true, Summary: "request_tools: refused"}
}

// parseTier reads a tier given as 1, "1", "tier 1" or 1.0.
func parseTier(raw json.RawMessage) (Tier, bool) {
	s := strings.ToLower(strings.Trim(strings.TrimSpace(string(raw)), `"`))
	s = strings.TrimSpace(strings.TrimPrefix(s, "tier"))
	if s == "" || s == "null" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int(f)) {
		return 0, false
	}
	return Tier(f), true
}

func names(ts []tools.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Spec().Name
	}
	return slices.Clip(out)
}

func orEmpty(b []byte) []byte {
	if len(bytes.TrimSpace(b)) == 0 || string(bytes.TrimSpace(b)) == "null" {
		return []byte("{}")
	}
	return b
}

// oneLine squeezes s onto one line of at most n runes.
func oneLine(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}
