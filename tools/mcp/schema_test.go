package mcp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestCompactSchemaGolden pins the schema tern sends for a pydantic-style
// schema (the form Python MCP servers produce): $defs inlined, nullable
// anyOf collapsed, const and oneOf rewritten, keywords Ollama drops gone.
// Rewrite with go test ./tools/mcp -run CompactSchemaGolden -update.
func TestCompactSchemaGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pydantic_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in any
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	got := compactSchema(in)
	var v any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("compact schema is not JSON: %v\n%s", err, got)
	}
	golden := filepath.Join("testdata", "pydantic_schema.golden")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(strings.TrimSpace(string(want)), string(got)); d != "" {
		t.Errorf("compact schema changed (-want +got):\n%s", d)
	}
	for _, gone := range []string{"$ref", "$defs", "title", "minLength", "uniqueItems", "additionalProperties", "format", "oneOf", "const", "missing_from_properties"} {
		if strings.Contains(string(got), `"`+gone) {
			t.Errorf("compact schema still has %q:\n%s", gone, got)
		}
	}
	if strings.Contains(string(got), `"type":"null"`) {
		t.Errorf("compact schema still offers null:\n%s", got)
	}
	var orig bytes.Buffer
	if err := json.Compact(&orig, raw); err != nil {
		t.Fatal(err)
	}
	if len(got) >= orig.Len()*8/10 {
		t.Errorf("compact schema is %d bytes, not much below the original %d", len(got), orig.Len())
	}
}

// TestCompactSchemaFitsOllama checks that what tern sends decodes into the
// Ollama API's parameter type: a schema that did not would fail the whole
// chat request.
func TestCompactSchemaFitsOllama(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pydantic_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	schemas := []string{
		string(raw),
		`null`,
		`{}`,
		`{"type":"object"}`,
		`{"type":"object","properties":{"a":{"description":7,"enum":"x","type":3}}}`,
		`{"type":"object","properties":{"deep":{"type":"object","properties":{"d2":{"type":"object","properties":{"d3":{"type":"object","properties":{"d4":{"type":"object","properties":{"d5":{"type":"object","properties":{"d6":{"type":"string"}}}}}}}}}}}}}`,
		`{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/A"}}}`,
		`[1,2]`,
	}
	for _, s := range schemas {
		var in any
		_ = json.Unmarshal([]byte(s), &in)
		got := compactSchema(in)
		var params api.ToolFunctionParameters
		if err := json.Unmarshal(got, &params); err != nil {
			t.Errorf("compactSchema(%.60s) = %s does not decode as Ollama tool parameters: %v", s, got, err)
			continue
		}
		if params.Type != "object" || params.Properties == nil {
			t.Errorf("compactSchema(%.60s) = %s: want an object with properties", s, got)
		}
		if again := compactSchema(in); string(again) != string(got) {
			t.Errorf("compactSchema is not stable: %s then %s", got, again)
		}
	}
}
