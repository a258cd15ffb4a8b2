package models

import (
	"strconv"
	"strings"
)

// Thinking controls: how a family's reasoning is switched off.
const (
	// ThinkAPI uses the request's think field (Ollama's own switch).
	ThinkAPI = "api"
	// ThinkTag also puts "/no_think" in the system prompt when thinking is
	// off, for Qwen3 builds whose template ignores the think field.
	ThinkTag = "tag"
)

// Profile is what tern knows about a model family's habits: which system
// prompt suits it, how it writes tool calls as text, how its thinking is
// switched off, which temperature it does tools best at, and whether it
// copes with more than one call per reply.
type Profile struct {
	// Name identifies the profile: "qwen3", "qwen2.5", "llama3", "granite",
	// "gemma", "phi", "mistral" or "default".
	Name string `json:"name"`
	// Prompt is the family of system prompt to render: the name of its
	// template in package prompts.
	Prompt string `json:"prompt"`
	// ToolFormat is how calls are written in the text tool protocol
	// (FormatTagged, FormatLlama, FormatMistral, FormatJSON).
	ToolFormat string `json:"tool_format"`
	// ThinkControl is ThinkAPI or ThinkTag.
	ThinkControl string `json:"think_control"`
	// Temperature is the recommended temperature for tool use; nil keeps
	// the model's own default.
	Temperature *float64 `json:"temperature,omitempty"`
	// OneToolPerReply asks the model for one call per reply and runs only
	// the first when it sends more: small models chain calls whose
	// arguments depend on results they have not seen.
	OneToolPerReply bool `json:"one_tool_per_reply"`
	// ToolMode, when set ("text", "native" or "constrained"), overrides
	// the automatic choice of tool protocol for the family.
	ToolMode string `json:"tool_mode,omitempty"`
}

// ProfileOverride changes some fields of a profile; nil fields keep the
// profile's value. It is what a [profiles.NAME] table of the config holds.
type ProfileOverride struct {
	// The system prompt family: qwen, llama, granite, gemma, phi,
	// mistral or default.
	Prompt *string `toml:"prompt"`
	// How calls are written in the text protocol: tagged, json, llama
	// or mistral.
	ToolFormat *string `toml:"tool_format"`
	// How thinking is switched: api (the request's think field) or tag
	// (also "/no_think" in the prompt).
	ThinkControl *string `toml:"think_control"`
	// The sampling temperature for these models.
	Temperature *float64 `toml:"temperature"`
	// Asks for one call per reply and runs only the first.
	OneToolPerReply *bool `toml:"one_tool_per_reply"`
	// auto, native, text or constrained for these models.
	ToolMode *string `toml:"tool_mode"`
}

func temp(t float64) *float64 { return &t }

// profiles are the known families, most specific first: the one table of
// model families. Each names the system prompt it renders (its template
// in package prompts); prompts.Families lists them in this order. match is
// tried against the model name, then against the family /api/show reports
// (Mistral models report family "llama", so names come first).
var profiles = []struct {
	names    []string // model name prefixes
	families []string // /api/show family prefixes
	p        Profile
}{
	{[]string{"qwen3"}, []string{"qwen3"}, Profile{Name: "qwen3", Prompt: "qwen", ToolFormat: FormatTagged,
		ThinkControl: ThinkAPI, Temperature: temp(0.6)}},
	{[]string{"qwen2", "qwen"}, []string{"qwen2", "qwen"}, Profile{Name: "qwen2.5", Prompt: "qwen", ToolFormat: FormatTagged,
		ThinkControl: ThinkAPI, Temperature: temp(0.3)}},
	{[]string{"llama3", "llama-3"}, []string{"llama"}, Profile{Name: "llama3", Prompt: "llama", ToolFormat: FormatLlama,
		ThinkControl: ThinkAPI, Temperature: temp(0.3), OneToolPerReply: true}},
	{[]string{"granite"}, []string{"granite"}, Profile{Name: "granite", Prompt: "granite", ToolFormat: FormatTagged,
		ThinkControl: ThinkAPI, Temperature: temp(0.2), OneToolPerReply: true}},
	{[]string{"gemma"}, []string{"gemma"}, Profile{Name: "gemma", Prompt: "gemma", ToolFormat: FormatTagged,
		ThinkControl: ThinkAPI, Temperature: temp(0.3), OneToolPerReply: true}},
	{[]string{"phi"}, []string{"phi"}, Profile{Name: "phi", Prompt: "phi", ToolFormat: FormatTagged,
		ThinkControl: ThinkAPI, Temperature: temp(0.2), OneToolPerReply: true}},
	{[]string{"mistral", "ministral", "mixtral", "devstral", "codestral", "open-mistral"}, []string{"mistral"}, Profile{Name: "mistral",
		Prompt: "mistral", ToolFormat: FormatMistral, ThinkControl: ThinkAPI, Temperature: temp(0.15)}},
}

// defaultProfile serves models of no known family.
var defaultProfile = Profile{Name: "default", Prompt: "default", ToolFormat: FormatTagged, ThinkControl: ThinkAPI}

// Profiles returns the built-in profiles, most specific first, the default
// last.
func Profiles() []Profile {
	out := make([]Profile, 0, len(profiles)+1)
	for _, e := range profiles {
		out = append(out, e.p)
	}
	return append(out, defaultProfile)
}

// EffectiveTemperature is the sampling temperature the user set (the
// config's temperature) or, when unset, the profile's; nil leaves the
// model's own default.
func (p Profile) EffectiveTemperature(requested *float64) *float64 {
	if requested != nil {
		return requested
	}
	return p.Temperature
}

// FamilyOfName guesses a model's family from its name, for when the
// server cannot be asked: "qwen3:8b" → "qwen3", "hf.co/org/Phi4:q4" →
// "phi4".
func FamilyOfName(model string) string {
	name, _, _ := strings.Cut(model, ":")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}

// ProfileFor returns the profile of a model, chosen by its name and then
// its family, with overrides applied: the override keyed by the model's
// full name wins over one keyed by a prefix of it, which wins over one
// keyed by the profile's name.
func ProfileFor(info ModelInfo, overrides map[string]ProfileOverride) Profile {
	p := builtinProfile(info)
	name := strings.ToLower(info.Name)
	var keys []string
	for k := range overrides {
		keys = append(keys, k)
	}
	// Least specific first, so the most specific is applied last.
	rank := func(k string) int {
		k = strings.ToLower(k)
		switch {
		case k == name || k+":latest" == name:
			return 3
		case strings.HasPrefix(name, k):
			return 2
		case k == p.Name:
			return 1
		}
		return 0
	}
	for r := 1; r <= 3; r++ {
		for _, k := range keys {
			if rank(k) == r {
				p = p.apply(overrides[k])
			}
		}
	}
	return p
}

func builtinProfile(info ModelInfo) Profile {
	name := strings.ToLower(info.Name)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:] // "hf.co/user/Qwen3-8B-GGUF" → "qwen3-8b-gguf"
	}
	for _, e := range profiles {
		for _, n := range e.names {
			if strings.HasPrefix(name, n) {
				return e.p
			}
		}
	}
	fams := append([]string{info.Family}, info.Families...)
	for _, e := range profiles {
		for _, f := range e.families {
			for _, fam := range fams {
				if fam != "" && strings.HasPrefix(strings.ToLower(fam), f) {
					return e.p
				}
			}
		}
	}
	return defaultProfile
}

func (p Profile) apply(o ProfileOverride) Profile {
	if o.Prompt != nil {
		p.Prompt = *o.Prompt
	}
	if o.ToolFormat != nil {
		p.ToolFormat = *o.ToolFormat
	}
	if o.ThinkControl != nil {
		p.ThinkControl = *o.ThinkControl
	}
	if o.Temperature != nil {
		p.Temperature = o.Temperature
	}
	if o.OneToolPerReply != nil {
		p.OneToolPerReply = *o.OneToolPerReply
	}
	if o.ToolMode != nil {
		p.ToolMode = *o.ToolMode
	}
	return p
}

// String describes the profile in one line, for tern doctor.
func (p Profile) String() string {
	var b strings.Builder
	b.WriteString(p.Name)
	b.WriteString(": prompt " + p.Prompt + ", text calls " + p.ToolFormat)
	if p.Temperature != nil {
		b.WriteString(", temperature " + strconv.FormatFloat(*p.Temperature, 'g', -1, 64))
	}
	if p.OneToolPerReply {
		b.WriteString(", one tool per reply")
	}
	if p.ThinkControl == ThinkTag {
		b.WriteString(", /no_think")
	}
	if p.ToolMode != "" {
		b.WriteString(", tool mode " + p.ToolMode)
	}
	return b.String()
}

// Validate reports a profile that names a value tern does not know, so a
// config typo is an error instead of a silent default.
func (p Profile) Validate() error {
	switch p.ToolFormat {
	case FormatTagged, FormatJSON, FormatLlama, FormatMistral:
	default:
		return &profileError{p.Name, "tool_format", p.ToolFormat, "tagged, json, llama or mistral"}
	}
	switch p.ThinkControl {
	case ThinkAPI, ThinkTag:
	default:
		return &profileError{p.Name, "think_control", p.ThinkControl, "api or tag"}
	}
	switch p.ToolMode {
	case "", "auto", "native", "text", "constrained":
	default:
		return &profileError{p.Name, "tool_mode", p.ToolMode, "auto, native, text or constrained"}
	}
	return nil
}

type profileError struct{ profile, key, value, want string }

func (e *profileError) Error() string {
	return "profile " + e.profile + ": " + e.key + " must be " + e.want + ", not " + strconv.Quote(e.value)
}
