package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
)

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one unit-length vector per input, in order, from one
// /v1/embeddings request (llama-server needs --embeddings, vLLM an
// embedding model). Vectors are normalised here, whatever the server's
// pooling did, so that they compare by cosine like Ollama's.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	what := "openai embed " + model
	resp, err := c.do(ctx, what, http.MethodPost, "/v1/embeddings", embedRequest{Model: model, Input: inputs, EncodingFormat: "float"})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var er embedResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 256<<20)).Decode(&er); err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", what, err)
	}
	if len(er.Data) != len(inputs) {
		return nil, fmt.Errorf("%s: %d vectors for %d inputs", what, len(er.Data), len(inputs))
	}
	out := make([][]float32, len(inputs))
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("%s: vector index %d is out of place", what, d.Index)
		}
		out[d.Index] = normalize(d.Embedding)
	}
	return out, nil
}

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}
