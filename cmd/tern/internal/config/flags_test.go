package config

import (
	"reflect"
	"strings"
	"testing"
)

// ptr is a flag that was given.
func ptr[T any](v T) *T { return &v }

// TestFlagsCheck: each flag's wrong value, named as the flag, before
// anything is read; the flags not given are not checked.
func TestFlagsCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags Flags
		want  string
	}{
		{Flags{}, ""},
		{Flags{Ctx: ptr(8192), VRAMGiB: ptr(6.0), MaxTurns: ptr(40), Tier: ptr(1), MaxTier: ptr(2), ToolMode: ptr("text"), Backend: ptr("openai")}, ""},
		{Flags{Ctx: ptr(99999999999)}, "--ctx must be between 1024 and 2097152 (tokens; the context window), not 99999999999"},
		{Flags{VRAMGiB: ptr(-1.0)}, "--vram must be between 0.25 and 4096"},
		{Flags{MaxTurns: ptr(0)}, "--max-turns must be between 1 and 10000"},
		{Flags{Tier: ptr(4)}, "--tier must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not 4"},
		{Flags{MaxTier: ptr(-1)}, "--max-tier must be 0 (read)"},
		{Flags{Tier: ptr(2), MaxTier: ptr(1)}, "--tier 2 is above --max-tier 1"},
		{Flags{ToolMode: ptr("natve")}, `--tool-mode must be auto, native, text or constrained, not "natve"; did you mean "native"?`},
		{Flags{Backend: ptr("olama")}, `--backend must be auto, ollama or openai, not "olama"; did you mean "ollama"?`},
	} {
		err := tt.flags.Check()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("Check() = %v, want %q", err, tt.want)
		}
	}
}

// TestWithFlags: flags beat the files, --allow-read adds to them, --host
// beats base_url, --tier raises a configured cap, and a --max-tier below
// the files' tier is refused.
func TestWithFlags(t *testing.T) {
	t.Parallel()
	files := Default()
	files.Model, files.BaseURL, files.Ctx, files.Tier, files.MaxTier, files.AllowRead = "from-file", "http://b:8080", 4096, 1, 2, []string{"/file"}
	for _, tt := range []struct {
		name  string
		flags Flags
		want  func(*Config)
		err   string
	}{
		{name: "none", want: func(*Config) {}},
		{name: "values", flags: Flags{Model: ptr("m"), Ctx: ptr(8192), VRAMGiB: ptr(6.0), MaxTurns: ptr(9), ToolMode: ptr("text"), Backend: ptr("ollama"), AllowRead: []string{"/flag"}},
			want: func(c *Config) {
				c.Model, c.Ctx, c.VRAMGiB, c.MaxTurns, c.ToolMode, c.Backend = "m", 8192, 6, 9, "text", "ollama"
				c.AllowRead = []string{"/file", "/flag"}
			}},
		{name: "--host", flags: Flags{Host: ptr("h:1")}, want: func(c *Config) { c.SetHost("h:1") }},
		{name: "--tier raises the cap", flags: Flags{Tier: ptr(3)}, want: func(c *Config) { c.Tier, c.MaxTier = 3, 3 }},
		{name: "--max-tier lowers it", flags: Flags{Tier: ptr(0), MaxTier: ptr(0)}, want: func(c *Config) { c.Tier, c.MaxTier = 0, 0 }},
		{name: "--max-tier below the files' tier", flags: Flags{MaxTier: ptr(0)}, err: "--tier 1 is above --max-tier 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := files.WithFlags(tt.flags)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := files
			want.AllowRead = []string{"/file"}
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
	if got := files.AllowRead; len(got) != 1 {
		t.Errorf("WithFlags changed the files' allow_read: %v", got)
	}
	if got, _ := files.WithFlags(Flags{Host: ptr("h:1")}); got.OpenAIAddr() != "h:1" || got.UsesOpenAI() {
		t.Errorf("--host h:1 with a base_url: OpenAI at %q (%v); want --host to win", got.OpenAIAddr(), got.UsesOpenAI())
	}
}
