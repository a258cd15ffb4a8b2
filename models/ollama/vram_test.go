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
