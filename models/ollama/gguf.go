package ollama

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"

	"github.com/ternhq/tern/models"
)

// ggufArrayLimit is the longest metadata array ReadGGUF keeps: per-layer
// arrays are a few dozen long; the vocabulary's, which it skips, is
// hundreds of thousands.
const ggufArrayLimit = 1024

// ReadGGUF reads what the planner needs of a GGUF model file: its
// metadata and tensor list (not its weights), with Ollama's own GGUF
// reader, as Show reads them from /api/show. It serves a model an
// OpenAI-compatible server such as llama-server runs from a file on this
// machine (its /props model_path), which says nothing of its layers
// itself.
func ReadGGUF(path string) (models.ModelInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return models.ModelInfo{}, fmt.Errorf("read gguf: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return models.ModelInfo{}, fmt.Errorf("read gguf: %w", err)
	}
	g, err := ggml.Decode(f, ggufArrayLimit)
	if err != nil {
		return models.ModelInfo{}, fmt.Errorf("read gguf %s: %w", path, err)
	}
	// The metadata as /api/show sends it: JSON numbers, arrays as lists,
	// arrays past the limit as null.
	raw, err := json.Marshal(g.KV())
	if err != nil {
		return models.ModelInfo{}, fmt.Errorf("read gguf %s: %w", path, err)
	}
	var mi map[string]any
	if err := json.Unmarshal(raw, &mi); err != nil {
		return models.ModelInfo{}, fmt.Errorf("read gguf %s: %w", path, err)
	}
	var tensors []api.Tensor
	for _, t := range g.Tensors().Items() {
		tensors = append(tensors, api.Tensor{Name: t.Name, Type: t.Type(), Shape: t.Shape})
	}
	info := models.ModelInfo{
		Name: filepath.Base(path), SizeBytes: st.Size(), GGUFPath: path,
		Quantization: g.KV().FileType().String(),
	}
	readModel(&info, mi, tensors)
	return info, nil
}
