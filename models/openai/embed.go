package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
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
//
// A server refuses a whole request for one input it cannot read at once:
// llama-server one longer than its physical batch (-ub, 512 tokens by
// default: "input (N tokens) is too large to process"), vLLM one over
// max_model_len. Then the inputs go one by one, and one the server
// refuses is embedded by its start, halved until the server takes it, as
// Ollama truncates an input to the model's context.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	vecs, err := c.embed(ctx, model, inputs)
	if err == nil || !refusedInput(err) {
		return vecs, err
	}
	out := make([][]float32, len(inputs))
	for i, text := range inputs {
		for {
			v, err := c.embed(ctx, model, []string{text})
			if err == nil {
				out[i] = v[0]
				break
			}
			if !refusedInput(err) || len(text) <= minEmbedInput {
				return nil, err
			}
			text = strings.ToValidUTF8(text[:len(text)/2], "")
		}
	}
	return out, nil
}

// minEmbedInput is the shortest start of an input Embed halves one to;
// a server that refuses even that refuses it for another reason.
const minEmbedInput = 256

// refusedInput reports whether err is the server refusing what it was
// asked to embed (HTTP 400, 413, 422 or 500), not being unreachable,
// unauthorised, without the model, or busy.
func refusedInput(err error) bool {
	var se *ServerError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusInternalServerError:
		return sentinel(se) == nil
	}
	return false
}

func (c *Client) embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
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
