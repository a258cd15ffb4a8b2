package openai_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
)

// TestOverflowInEveryWording: each server build refuses a prompt over its
// window in its own words, not all of them with numbers, and each refusal
// must come back as a truncated reply (the caller compacts and asks
// again), never as a failed turn. The prompt count is the server's when
// it says one, else the window: the prompt was at least that.
func TestOverflowInEveryWording(t *testing.T) {
	const window = 8192
	cases := []struct {
		name   string
		status int
		body   string
		prompt int // the prompt count the reply must carry
	}{
		// llama.cpp tools/server, current builds (server-context.cpp, server_task_result_error::to_json).
		{"llama-server with counts", 400, `{"error":{"code":400,"message":"request (9310 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9310,"n_ctx":8192}}`, 9310},
		// llama.cpp builds of 2025 before n_prompt_tokens was added.
		{"llama-server without counts", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, window},
		// llama.cpp builds of 2024 (ERROR_TYPE_INVALID_REQUEST, context shift off).
		{"llama-server 2024", 400, `{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"invalid_request_error"}}`, window},
		// llama.cpp: "input (%d tokens) is larger than the max context size (%d tokens). skipping".
		{"llama-server larger than", 400, `{"error":{"code":400,"message":"input (9001 tokens) is larger than the max context size (8192 tokens). skipping","type":"exceed_context_size_error"}}`, 9001},
		// vLLM up to 0.10.1 (serving_engine.py _validate_input).
		{"vLLM messages and completion", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 9100 tokens (8100 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}}`, 8192},
		// vLLM 0.10.2 and later: the prompt alone (renderer _create_tokens_prompt).
		{"vLLM input tokens", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. Please reduce the length of the input messages.","type":"BadRequestError","param":null,"code":400}}`, 9000},
		// vLLM 0.10.2 and later: the prompt and max_tokens together.
		{"vLLM max_tokens too large", 400, `{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 8192 tokens and your request has 7500 input tokens (1000 > 8192 - 7500). (parameter=max_tokens, value=1000)","type":"BadRequestError","param":"max_tokens","code":400}}`, window},
		// vLLM, newest wording (VLLMValidationError with parameter and value).
		{"vLLM at least", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 1000 output tokens and your prompt contains at least 7500 input tokens, for a total of at least 8500 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=7500)","type":"BadRequestError","param":"input_tokens","code":400}}`, window},
		// LM Studio.
		{"LM Studio", 400, `{"error":"Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input"}`, 9000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			c, err := openai.New(srv.URL, "")
			if err != nil {
				t.Fatal(err)
			}
			req := models.Request{Model: "m", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}},
				Options: models.Options{NumCtx: window, NumPredict: 1000}}
			r, err := c.Chat(t.Context(), req, nil)
			if err != nil {
				t.Fatalf("a refusal of an over-long prompt must come back as a truncated reply, not %v", err)
			}
			if r.DoneReason != "length" || r.Metrics.PromptTokens != tc.prompt {
				t.Errorf("done %q, prompt tokens %d; want length, %d", r.DoneReason, r.Metrics.PromptTokens, tc.prompt)
			}
		})
	}
}
