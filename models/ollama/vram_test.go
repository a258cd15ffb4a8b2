package ollama

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseNvidiaSMI(t *testing.T) {
	tests := []struct {
		out    string
		want   int64
		wantOK bool
	}{
		{"8192\n", 8 << 30, true},
		{"6144\n24576\n", 24576 << 20, true}, // the largest GPU
		{"", 0, false},
		{"[N/A]\n", 0, false},
		{"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseNvidiaSMI(tt.out)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseNvidiaSMI(%q) = %d, %v; want %d, %v", tt.out, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestDetectVRAM(t *testing.T) {
	t.Run("no nvidia-smi", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if n, ok := DetectVRAM(t.Context()); ok || n != 0 {
			t.Errorf("DetectVRAM() = %d, %v; want nothing", n, ok)
		}
	})
	t.Run("fake nvidia-smi", func(t *testing.T) {
		dir := t.TempDir()
		script := "#!/bin/sh\necho 8188\n"
		if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir)
		if n, ok := DetectVRAM(t.Context()); !ok || n != 8188<<20 {
			t.Errorf("DetectVRAM() = %d, %v; want 8188 MiB", n, ok)
		}
	})
}

func TestParseMeminfo(t *testing.T) {
	text := "MemTotal:       32594448 kB\nMemFree:         1234567 kB\nMemAvailable:   20971520 kB\nBuffers:          123 kB\n"
	if n, ok := parseMeminfo(text); !ok || n != 20<<30 {
		t.Errorf("parseMeminfo = %d, %v; want 20 GiB", n, ok)
	}
	for _, bad := range []string{"", "MemTotal: 1 kB\n", "MemAvailable: lots kB\n"} {
		if n, ok := parseMeminfo(bad); ok || n != 0 {
			t.Errorf("parseMeminfo(%q) = %d, %v", bad, n, ok)
		}
	}
}

func TestModelfileFrom(t *testing.T) {
	tests := []struct{ modelfile, want string }{
		{"# FROM qwen3:8b\n\nFROM /usr/share/ollama/.ollama/models/blobs/sha256-abc\nPARAMETER num_gpu 12\n", "/usr/share/ollama/.ollama/models/blobs/sha256-abc"},
		{"FROM C:\\Users\\me\\.ollama\\models\\blobs\\sha256-abc\n", "C:\\Users\\me\\.ollama\\models\\blobs\\sha256-abc"},
		{"FROM qwen3:8b\n", ""}, // a model, not a file
		{"", ""},
	}
	for _, tt := range tests {
		if got := modelfileFrom(tt.modelfile); got != tt.want {
			t.Errorf("modelfileFrom(%q) = %q, want %q", tt.modelfile, got, tt.want)
		}
	}
	if n, ok := paramValue("num_ctx                        8192\nnum_gpu                        0", "num_gpu"); !ok || n != 0 {
		t.Errorf("num_gpu 0 read as %d, %v", n, ok)
	}
	if _, ok := paramValue("num_ctx 8192", "num_gpu"); ok {
		t.Error("num_gpu read where none is set")
	}
}
