// Package disclosure decides which tools the model sees. Tools come in
// tiers — 0 read, 1 edit, 2 commands, 3 external — and a session starts
// with the lowest it needs: the user's words ("fix", "run the tests") and
// the model's own request_tools calls unlock higher tiers as the work needs
// them, up to a cap the user sets. Fewer tools keep a small model's prompt
// short and its choices good; the user can always see and steer what it
// may use.
//
// Unlocks are sticky for the session, and the visible list only grows, by
// appending at its end in a fixed order, so the prompt prefix stays
// byte-identical from one request to the next and the server's prompt cache
// keeps working. Only an explicit lowering starts a new prefix.
//
// disclosure imports models, tools and context/budget; it must not import
// agent, session, tui or cmd.
package disclosure

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ternhq/tern/tools"
)

// Tier is a level of tools. A tier includes the tiers below it.
type Tier int

// The tiers. Which built-in tool is in which is said once, in package
// tools' table of built-in tools; tier 0 also holds request_tools, and
// tier 3 the MCP tools.
const (
	Read     Tier = tools.TierRead
	Edit     Tier = tools.TierEdit
	Commands Tier = tools.TierCommands
	External Tier = tools.TierExternal

	// NumTiers counts the tiers.
	NumTiers = tools.NumTiers
)

// String names the tier for people: "tier 1 (edit)".
func (t Tier) String() string {
	names := [NumTiers]string{"read", "edit", "commands", "external"}
	if t < 0 || t >= NumTiers {
		return fmt.Sprintf("tier %d", int(t))
	}
	return fmt.Sprintf("tier %d (%s)", int(t), names[t])
}

// Valid reports whether t is a tier.
func (t Tier) Valid() bool { return t >= 0 && t < NumTiers }

// Config is what a Set is built from.
type Config struct {
	// Tools holds each tier's tools in their fixed order. Tools[0] are the
	// read-only tools; the Set adds request_tools after them when anything
	// can be unlocked.
	Tools [NumTiers][]tools.Tool
	// Start is the tier a new session begins at.
	Start Tier
	// Max caps the tier: nothing above it is ever unlocked.
	Max Tier
	// Intents reads the user's prompts; nil unlocks nothing from them.
	Intents *Intents
	// Restore is the state an earlier run of this session saved; it
	// replaces Start.
	Restore *State
	// Save, when set, persists the state after every change, so that a
	// resumed session keeps its tools.
	Save func(ctx context.Context, s State) error
	// Catalog, when set, holds the external tools of tier 3 beyond
	// Tools[3]: unlocking tier 3 adds those matching the task.
	Catalog Catalog
}

// Set is the tools of one session as the model sees them. It satisfies the
// agent's toolbox: All returns the visible tools, Get also answers for
// locked ones with a stand-in that tells the model how to unlock them. A
// Set is safe for concurrent use.
type Set struct {
	tiers   [NumTiers][]tools.Tool
	tierOf  map[string]Tier
	max     Tier
	intents *Intents
	save    func(context.Context, State) error
	catalog Catalog

	mu      sync.Mutex
	tier    Tier
	visible []tools.Tool
	notices []string
	// external holds the catalog tools met so far, by name.
	external map[string]tools.Tool
}

// New returns the Set of one session. Tool names must be unique across the
// tiers.
func New(cfg Config) (*Set, error) {
	if !cfg.Max.Valid() {
		return nil, fmt.Errorf("max tier %d: want 0 to %d", cfg.Max, NumTiers-1)
	}
	if !cfg.Start.Valid() {
		return nil, fmt.Errorf("tier %d: want 0 to %d", cfg.Start, NumTiers-1)
	}
	if cfg.Start > cfg.Max {
		return nil, fmt.Errorf("tier %d is above the maximum tier %d", cfg.Start, cfg.Max)
	}
	s := &Set{tiers: cfg.Tools, tierOf: make(map[string]Tier), max: cfg.Max, intents: cfg.Intents, save: cfg.Save,
		catalog: cfg.Catalog, external: make(map[string]tools.Tool)}
	s.tiers[0] = slices.Clone(s.tiers[0])
	if cfg.Max > Read {
		rt, err := newRequestTools(s)
		if err != nil {
			return nil, err
		}
		s.tiers[0] = append(s.tiers[0], rt)
	}
	for tier, list := range s.tiers {
		for _, t := range list {
			name := t.Spec().Name
			if _, dup := s.tierOf[name]; dup {
				return nil, fmt.Errorf("tool %s is registered twice", name)
			}
			s.tierOf[name] = Tier(tier)
		}
	}
	s.tier = cfg.Start
	if cfg.Restore != nil {
		s.restore(*cfg.Restore)
	} else {
		s.visible = s.offered(s.upTo(s.tier))
	}
	return s, nil
}

// conditional is a tool offered only while what it needs is there:
// definition and references, while a language server runs. Until then
// the Set holds it back; the first time All finds it available it is
// appended to the visible tools, as an unlock is, and stays.
type conditional interface {
	Available() bool
	// Needs names what it needs, for the notice: "a language server".
	Needs() string
}

// heldBack reports whether t waits for what it needs.
func heldBack(t tools.Tool) bool {
	c, ok := t.(conditional)
	return ok && !c.Available()
}

// offered returns list without the tools held back.
func (s *Set) offered(list []tools.Tool) []tools.Tool {
	return slices.DeleteFunc(list, heldBack)
}

// upTo returns the tools of tiers 0 to t in their fixed order.
func (s *Set) upTo(t Tier) []tools.Tool {
	var list []tools.Tool
	for k := Read; k <= t; k++ {
		list = append(list, s.tiers[k]...)
	}
	return list
}

// restore rebuilds the visible list of a resumed session in its saved
// order, within the cap.
func (s *Set) restore(st State) {
	s.tier = min(max(st.Tier, Read), s.max)
	if st.Tier > s.max {
		s.notices = append(s.notices, fmt.Sprintf("this session had unlocked %s; --max-tier caps it at %s", st.Tier, s.max))
	}
	for _, name := range st.Tools {
		if t, ok := s.find(name); ok && s.tierOf[name] <= s.max && !s.isVisible(name) {
			s.visible = append(s.visible, t)
		}
	}
	for _, t := range s.offered(s.upTo(s.tier)) {
		if !s.isVisible(t.Spec().Name) {
			s.visible = append(s.visible, t)
		}
	}
}

// All returns the visible tools: those of the unlocked tiers and the ones
// unlocked by name, in the order they became visible. Tools held back
// until what they need is there join the end once it is.
func (s *Set) All() []tools.Tool {
	s.mu.Lock()
	var added, needs []string
	for _, t := range s.upTo(s.tier) {
		if name := t.Spec().Name; !heldBack(t) && !s.isVisible(name) {
			s.visible = append(s.visible, t)
			added = append(added, name)
			if c, ok := t.(conditional); ok && !slices.Contains(needs, c.Needs()) {
				needs = append(needs, c.Needs())
			}
		}
	}
	all := slices.Clone(s.visible)
	var st State
	if len(added) > 0 {
		s.notices = append(s.notices, fmt.Sprintf("%s unlocked — %s runs", strings.Join(added, ", "), strings.Join(needs, " and ")))
		st = s.stateLocked()
	}
	s.mu.Unlock()
	if len(added) > 0 {
		s.persist(context.Background(), st)
	}
	return all
}

// Get returns the tool named name. For a tool of a locked tier it returns a
// stand-in whose result tells the model to call request_tools first, so a
// locked tool is never run silently.
func (s *Set) Get(name string) (tools.Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range []string{name, normalName(name)} {
		for _, t := range s.visible {
			if t.Spec().Name == n {
				return t, true
			}
		}
		if tier, ok := s.tierOf[n]; ok && tier <= s.tier {
			t, _ := s.find(n) // held back: it says itself what it lacks
			return t, true
		} else if ok {
			return &locked{name: n, tier: tier, max: s.max}, true
		}
		if _, ok := s.external[n]; ok {
			return &locked{name: n, tier: External, max: s.max}, true
		}
	}
	return nil, false
}

// normalName forgives the slips small models make in tool names.
func normalName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "functions.")
	return strings.ReplaceAll(n, "-", "_")
}

// Tier returns the unlocked tier.
func (s *Set) Tier() Tier {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tier
}

// Max returns the cap on the tier.
func (s *Set) Max() Tier { return s.max }

// Tools returns the tools registered in tier t, in their fixed order.
func (s *Set) Tools(t Tier) []tools.Tool {
	if !t.Valid() {
		return nil
	}
	return slices.Clone(s.tiers[t])
}

// State returns what a resumed session needs to see the same tools.
func (s *Set) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked()
}

func (s *Set) stateLocked() State {
	st := State{Tier: s.tier}
	for _, t := range s.visible {
		st.Tools = append(st.Tools, t.Spec().Name)
	}
	return st
}

// Notices returns, and forgets, what the user should be told about the
// tools since the last call: unlocks and their reasons.
func (s *Set) Notices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// Notify queues a notice for the user, for things that happen next to the
// tools (a checkpoint taken before the first change).
func (s *Set) Notify(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notices = append(s.notices, text)
}

// OnPrompt reads the user's prompt for what it asks to do and unlocks the
// tier it needs, within the cap; a request beyond the cap is reported. What
// changed is queued as notices.
func (s *Set) OnPrompt(ctx context.Context, prompt string) {
	if s.intents == nil {
		return
	}
	hits := s.intents.Detect(prompt)
	hit, ok := s.wanted(hits, s.max)
	if ok && hit.Tier > s.Tier() {
		s.raise(ctx, hit.Tier, fmt.Sprintf("the request says %q", hit.Word))
	}
	if ok && hit.Tier == External {
		if _, problem := s.fromCatalog(ctx, prompt); problem != "" {
			s.Notify("some external tools are unavailable: " + problem)
		}
	}
	if hit, ok := s.wanted(hits, NumTiers-1); ok && hit.Tier > s.max {
		s.Notify(fmt.Sprintf("the request looks like it needs %s (%q), but this session is capped at %s (--max-tier)", hit.Tier, hit.Word, s.max))
	}
}

// wanted picks, of the detected hits up to tier limit, the highest tier
// that has tools.
func (s *Set) wanted(hits []Hit, limit Tier) (Hit, bool) {
	best, ok := Hit{}, false
	for _, h := range hits {
		if h.Tier.Valid() && h.Tier <= limit && s.hasTools(h.Tier) && (!ok || h.Tier > best.Tier) {
			best, ok = h, true
		}
	}
	return best, ok
}

// raise unlocks the tiers up to t (at most the cap) and returns the tools
// it added. why ends the notice: "tier 1 (edit) unlocked: edit_file,
// write_file — the request says "fix"".
func (s *Set) raise(ctx context.Context, t Tier, why string) []string {
	s.mu.Lock()
	t = min(t, s.max)
	if t <= s.tier {
		s.mu.Unlock()
		return nil
	}
	var added []string
	for _, tool := range s.offered(s.upTo(t)) {
		if name := tool.Spec().Name; !s.isVisible(name) {
			s.visible = append(s.visible, tool)
			added = append(added, name)
		}
	}
	s.tier = t
	s.notices = append(s.notices, fmt.Sprintf("%s unlocked: %s — %s", t, listOrNone(added), why))
	st := s.stateLocked()
	s.mu.Unlock()
	s.persist(ctx, st)
	return added
}

// unlock makes one tool visible, appended at the end, without raising the
// tier.
func (s *Set) unlock(ctx context.Context, name, why string) {
	s.mu.Lock()
	t, ok := s.find(name)
	if !ok || s.isVisible(name) {
		s.mu.Unlock()
		return
	}
	s.visible = append(s.visible, t)
	s.notices = append(s.notices, fmt.Sprintf("%s unlocked — %s", name, why))
	st := s.stateLocked()
	s.mu.Unlock()
	s.persist(ctx, st)
}

// SetTier moves the session to tier t: up, unlocking what it adds, or down,
// dropping every tool above t. Lowering changes the prompt prefix, so the
// server reads the whole prompt again once; raising only appends.
func (s *Set) SetTier(ctx context.Context, t Tier, why string) error {
	if !t.Valid() {
		return fmt.Errorf("tier %d: want 0 to %d", t, NumTiers-1)
	}
	if t > s.max {
		return fmt.Errorf("tier %d is above this session's maximum, %d (--max-tier)", t, s.max)
	}
	s.mu.Lock()
	cur := s.tier
	s.mu.Unlock()
	if t >= cur {
		s.raise(ctx, t, why)
		return nil
	}
	s.mu.Lock()
	s.visible = s.offered(s.upTo(t))
	s.tier = t
	s.notices = append(s.notices, fmt.Sprintf("tools lowered to %s — %s", t, why))
	st := s.stateLocked()
	s.mu.Unlock()
	s.persist(ctx, st)
	return nil
}

func (s *Set) persist(ctx context.Context, st State) {
	if s.save == nil {
		return
	}
	if err := s.save(ctx, st); err != nil {
		s.Notify(fmt.Sprintf("could not save the unlocked tools in the session: %v", err))
	}
}

// hasTools reports whether tier t has anything to unlock.
func (s *Set) hasTools(t Tier) bool {
	return len(s.tiers[t]) > 0 || t == External && s.catalog != nil
}

// find returns the registered tool named name.
func (s *Set) find(name string) (tools.Tool, bool) {
	tier, ok := s.tierOf[name]
	if !ok {
		t, ok := s.external[name]
		return t, ok
	}
	i := slices.IndexFunc(s.tiers[tier], func(t tools.Tool) bool { return t.Spec().Name == name })
	return s.tiers[tier][i], true
}

func (s *Set) isVisible(name string) bool {
	return slices.ContainsFunc(s.visible, func(t tools.Tool) bool { return t.Spec().Name == name })
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "no new tools"
	}
	return strings.Join(names, ", ")
}
