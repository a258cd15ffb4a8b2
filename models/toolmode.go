package models

import "fmt"

// The tool modes a user (--tool-mode, tool_mode) or a profile may ask for.
const (
	// ToolModeAuto uses native calls when the model has the tools
	// capability, else the text protocol.
	ToolModeAuto = "auto"
	// ToolModeNative sends tools in the request's tools field.
	ToolModeNative = "native"
	// ToolModeText describes the tools in the system prompt and parses
	// calls from the reply's text.
	ToolModeText = "text"
	// ToolModeConstrained is the text protocol with replies held to a
	// JSON schema.
	ToolModeConstrained = "constrained"
)

// ToolProtocol is how tools reach the model in a session.
type ToolProtocol struct {
	// Text is set for the text tool protocol: tools described in the
	// prompt, calls parsed from the reply.
	Text bool
	// Constrained holds the text protocol's replies to a JSON schema.
	Constrained bool
	// Why says why the text protocol is used, as a notice for the user;
	// "" for native calls.
	Why string
}

// EffectiveToolMode is the mode the user asked for (--tool-mode or
// tool_mode), unless that is auto and the profile makes a choice.
func (p Profile) EffectiveToolMode(requested string) string {
	if requested == ToolModeAuto && p.ToolMode != "" && p.ToolMode != ToolModeAuto {
		return p.ToolMode
	}
	return requested
}

// ChooseToolProtocol decides the tool protocol: the requested mode when
// it is native, text or constrained; else the profile's choice; else
// native calls when the model has the tools capability.
func ChooseToolProtocol(requested string, info ModelInfo, p Profile) ToolProtocol {
	mode := p.EffectiveToolMode(requested)
	src := "--tool-mode " + mode
	if requested == ToolModeAuto {
		src = "the " + p.Name + " profile"
	}
	switch mode {
	case ToolModeText:
		return ToolProtocol{Text: true, Why: fmt.Sprintf("using the text tool protocol (%s)", src)}
	case ToolModeConstrained:
		return ToolProtocol{Text: true, Constrained: true, Why: fmt.Sprintf("using the text tool protocol with replies held to a JSON schema (%s)", src)}
	case ToolModeNative:
		return ToolProtocol{}
	}
	if !info.Has(CapTools) {
		return ToolProtocol{Text: true, Why: fmt.Sprintf("%s has no native tool support; using the text tool protocol", info.Name)}
	}
	return ToolProtocol{}
}

// Fallback is a past session in which the model fell back from native
// calls to the text protocol: its id, the mode it fell back to (text or
// constrained) and why, as the session recorded it.
type Fallback struct {
	Session, Mode, Why string
}

// Recall starts a session in the text protocol the model fell back to in
// a recent session, fb, unless the protocol is text already or the mode
// (requested, or the profile's) is not auto: then nothing is recalled
// and t is returned as it is.
func (t ToolProtocol) Recall(requested string, p Profile, fb Fallback) ToolProtocol {
	if t.Text || p.EffectiveToolMode(requested) != ToolModeAuto {
		return t
	}
	return ToolProtocol{
		Text:        true,
		Constrained: fb.Mode == ToolModeConstrained,
		Why:         fmt.Sprintf("using the text tool protocol: in session %s, %s (force native calls with --tool-mode native)", fb.Session, fb.Why),
	}
}
