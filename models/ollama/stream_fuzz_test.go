package ollama

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzReadStream: whatever a server sends, the stream reader neither
// panics nor hands on a line that is not JSON, and a tool call it keeps
// has arguments that are valid JSON.
func FuzzReadStream(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","message":{"role":"assistant","content":"hi"},"done":false}` + "\n" + `{"model":"m","done":true,"done_reason":"stop"}` + "\n",
		`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"read_file","arguments":"README.md"}}]}}` + "\n",
		`{"message":{"tool_calls":[{"function":{"name":"x","arguments":[1,2]}},{"function":{"name":"y","arguments":{"a":1}}}]}}` + "\n",
		`{"error":"model runner has unexpectedly stopped"}` + "\n",
		`{"model":` + "\n",
		"\n\n  \n",
		`{"message":{"tool_calls":[{"function":{"arguments":42}}]}}`,
	} {
		f.Add([]byte(s), 200)
		f.Add([]byte(s), 500)
	}
	f.Fuzz(func(t *testing.T, data []byte, status int) {
		_ = readStream(bytes.NewReader(data), status, "status", 1<<16, func(line []byte) error {
			if !json.Valid(line) {
				t.Fatalf("handed on a line that is not JSON: %q", line)
			}
			cl, err := decodeChatLine(line)
			if err != nil {
				return err
			}
			for i := range cl.Message.ToolCalls {
				if raw, ok := cl.Args[i]; ok && !json.Valid(raw) {
					t.Fatalf("kept arguments that are not JSON: %q", raw)
				}
			}
			return nil
		})
	})
}
