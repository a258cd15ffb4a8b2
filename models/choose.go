package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrNoChatModel: the server has models, but none that can chat.
var ErrNoChatModel = errors.New("no chat model installed")

// Installed finds the model name among the installed ones, as Ollama
// names them: "qwen3" is "qwen3:latest".
func Installed(name string, installed []ModelInfo) (ModelInfo, bool) {
	for _, m := range installed {
		if m.Name == name || m.Name == name+":latest" {
			return m, true
		}
	}
	return ModelInfo{}, false
}

// ChooseModel resolves the model to use among those installed. A
// requested name must be installed ("qwen3" matches "qwen3:latest") and
// able to chat; with none requested, the best installed chat model is
// picked, preferring tool support, a size that fits a laptop GPU and a
// family that handles tools well. show describes one model; a model it
// cannot describe is passed over. why says how the model was chosen, for
// the user.
func ChooseModel(ctx context.Context, want string, installed []ModelInfo, show func(context.Context, string) (ModelInfo, error)) (name, why string, err error) {
	if want != "" {
		m, ok := Installed(want, installed)
		if !ok {
			return "", "", fmt.Errorf("%w: %s", ErrModelNotFound, want)
		}
		if info, err := show(ctx, m.Name); err == nil && !CanChat(info) {
			return "", "", NotChatError{Name: m.Name, Caps: info.Capabilities}
		}
		return m.Name, "requested", nil
	}
	type candidate struct {
		info  ModelInfo
		score int
	}
	var cands []candidate
	for _, m := range installed {
		info, err := show(ctx, m.Name)
		if err != nil {
			continue // a model that cannot be shown cannot be used either
		}
		if !CanChat(info) {
			continue
		}
		info.ParameterSize = cmp.Or(info.ParameterSize, m.ParameterSize)
		cands = append(cands, candidate{info, modelScore(m.Name, info)})
	}
	if len(cands) == 0 {
		return "", "", ErrNoChatModel
	}
	slices.SortStableFunc(cands, func(x, y candidate) int { return cmp.Compare(y.score, x.score) })
	best := cands[0].info
	why = "best installed model with tool support"
	if !best.Has(CapTools) {
		why = "no installed model supports tools natively; best chat model"
	}
	return best.Name, why, nil
}

// CanChat reports whether a model can answer a chat request: it lists the
// completion capability, and is not an embedding model. A model that
// lists no capabilities at all (an old server) is given the benefit of
// the doubt.
func CanChat(info ModelInfo) bool {
	if len(info.Capabilities) == 0 {
		return true
	}
	return info.Has(CapCompletion) && !info.Has(CapEmbedding)
}

// NotChatError is a requested chat model that cannot chat, such as an
// embedding model: the server would answer every chat request with an
// error.
type NotChatError struct {
	Name string
	Caps []Capability
}

func (e NotChatError) Error() string {
	kind := "cannot chat"
	if slices.Contains(e.Caps, CapEmbedding) {
		kind = "is an embedding model and cannot chat"
	}
	caps := make([]string, len(e.Caps))
	for i, c := range e.Caps {
		caps[i] = string(c)
	}
	return fmt.Sprintf("%s %s (capabilities: %s); choose a chat model with --model (`tern doctor` lists what each installed model can do)",
		e.Name, kind, strings.Join(caps, ", "))
}

// preferredFamilies rank families by how well their 4B–8B models use tools.
var preferredFamilies = []string{"qwen3", "qwen2.5-coder", "qwen2.5", "llama3.1", "llama3.2", "granite3", "mistral"}

// modelScore ranks a model for automatic choice: tools first, then a size
// that fits an 8 GB GPU, then family.
func modelScore(name string, info ModelInfo) int {
	score := 0
	if info.Has(CapTools) {
		score += 1000
	}
	if b := billions(info.ParameterSize); b >= 3.5 && b <= 9 {
		score += 300
	} else if b > 0 && b < 3.5 {
		score += 200
	} else if b > 9 && b <= 15 {
		score += 100
	}
	n := strings.ToLower(name)
	for i, f := range preferredFamilies {
		if strings.HasPrefix(n, f) || strings.HasPrefix(strings.ToLower(info.Family), f) {
			score += 10 * (len(preferredFamilies) - i)
			break
		}
	}
	return score
}

// billions parses a parameter size such as "8.2B" or "513M".
func billions(size string) float64 {
	size = strings.TrimSpace(strings.ToUpper(size))
	mult := 1.0
	switch {
	case strings.HasSuffix(size, "B"):
		size = strings.TrimSuffix(size, "B")
	case strings.HasSuffix(size, "M"):
		size, mult = strings.TrimSuffix(size, "M"), 1e-3
	case strings.HasSuffix(size, "K"):
		size, mult = strings.TrimSuffix(size, "K"), 1e-6
	}
	f, err := strconv.ParseFloat(size, 64)
	if err != nil {
		return 0
	}
	return f * mult
}
