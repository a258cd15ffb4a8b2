package doctor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// TestOllamaMoE: a 35B-A3B mixture of experts on an 8 GiB GPU gets a 32k
// window with its experts in RAM, where the dense arithmetic found none;
// the report says what each server needs for that and how fast it is.
func TestOllamaMoE(t *testing.T) {
	t.Parallel()
	m := ollamatest.Qwen36MoE()
	srv := ollamatest.New(t, ollamatest.WithModels(m))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host, cfg.RAMGiB = srv.URL(), 28 })
	report, err := c.run(t)
	if err != nil && !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	blob := "/usr/share/ollama/.ollama/models/blobs/sha256-"
	lines(t, report,
		"Context     ✓ 32768 tokens (planned)",
		"              VRAM 8.0 GiB − 2.3 GiB = 5.7 GiB left for the KV cache, then for experts",
		"              chosen: 32768, the largest window that fits",
		"Experts     ✓ mixture of experts: 31 of 40 layers' experts stay in RAM (15.1 GiB of 28.0 GiB free); the GPU holds the rest and the 32768-token window",
		"              llama-server keeps just the experts in RAM, attention and KV cache on the GPU:",
		"                experts in RAM: each token reads 482 MiB from RAM and 1.6 GiB from VRAM: at most ~51–71 tokens/s (DDR4–DDR5); real runs reach roughly a quarter to a half of it",
	)
	if !strings.Contains(report, "llama-server -m "+blob) || !strings.Contains(report, " --jinja -c 32768 -ngl 99 --n-cpu-moe 31\n") {
		t.Errorf("no llama-server command line for the model's file:\n%s", report)
	}
	lines(t, report,
		`                (builds without --n-cpu-moe: -ot 'blk\.([0-9]|[1-2][0-9]|30)\.ffn_(up|down|gate)_(ch|)exps=CPU')`,
		"                then: tern --backend openai --host http://127.0.0.1:8080",
		"Placement   · Ollama 0.17.4 offloads whole layers, experts and attention together: about 12 of 40 fit on the GPU with this window, the other 28 run on the CPU",
		"                Ollama chooses the layers by itself (num_gpu unset); if loading fails for lack of memory, set num_gpu 12:",
		"                `ollama show qwen3.6:35b-a3b --modelfile > Modelfile`, add `PARAMETER num_gpu 12`, `ollama create qwen3.6-35b-a3b-gpu12 -f Modelfile`",
	)
	if strings.Contains(report, "no window fits") {
		t.Errorf("the dense arithmetic decided:\n%s", report)
	}
}

// TestOllamaMoEShortOfRAM: experts that do not fit in the free RAM are a
// problem, with what to do; a Modelfile's num_gpu is reported as set.
func TestOllamaMoEShortOfRAM(t *testing.T) {
	t.Parallel()
	m := ollamatest.Qwen36MoE()
	m.Parameters = "num_gpu 10"
	srv := ollamatest.New(t, ollamatest.WithModels(m))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host, cfg.RAMGiB = srv.URL(), 12 })
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v, want ErrProblems\n%s", err, report)
	}
	lines(t, report,
		"Experts     ✗ mixture of experts: 31 of 40 layers' experts stay in RAM (15.1 GiB of 12.0 GiB free): not enough free RAM, they would be read from disk for every token",
		"              close programs to free RAM, or pull a smaller quantization of qwen3.6:35b-a3b",
		"                its Modelfile sets num_gpu 10: Ollama offloads 10 layers whatever fits",
	)
}

// TestOllamaMoEFitsWhole: on a GPU that holds all of it, a mixture of
// experts is planned as any model.
func TestOllamaMoEFitsWhole(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen36MoE()))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host = srv.URL() })
	c.env.VRAM = func(context.Context, config.Config) int64 { return 32 << 30 }
	report, err := c.run(t)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	lines(t, report,
		"Context     ✓ 32768 tokens (planned)",
		"Experts     ✓ mixture of experts: all 40 layers' experts fit on the GPU with the window",
	)
	if strings.Contains(report, "llama-server") || strings.Contains(report, "Placement") {
		t.Errorf("settings for a model that fits:\n%s", report)
	}
}

// TestLlamaServerMoE: llama-server runs a mixture of experts from a file
// on this machine; doctor reads it and says the --n-cpu-moe that fits the
// window the server serves.
func TestLlamaServerMoE(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "moe.gguf")
	// 4 layers of 16 experts of 128 over 256 dims: 3 MiB of experts each.
	if err := ollamatest.WriteMoEGGUF(path, ollamatest.MoEFile{Layers: 4, Hidden: 256, Width: 128, Experts: 16, Used: 2}); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.New(t, openaitest.WithWindow(8192), openaitest.WithModelPath(path))
	c := newCheckup(t, func(cfg *config.Config) { cfg.SetHost(srv.URL()); cfg.RAMGiB = 4 })
	// Room for the compute buffers, the other weights, the KV cache and
	// two layers' experts.
	c.env.VRAM = func(context.Context, config.Config) int64 { return 522 << 20 }
	report, err := c.run(t)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	lines(t, report,
		"Context     ✓ 8192 tokens (llama-server /props default_generation_settings.n_ctx)",
		"Experts     ✓ mixture of experts: with the 8192-token window on 522 MiB of VRAM, 2 of 4 layers' experts belong in RAM (6 MiB of 4.0 GiB free)",
		"              mixture of experts: 16 experts a layer, 2 working on each token; routed experts 12 MiB of 13 MiB (from the tensor list)",
		"              experts in RAM: each token reads 768 KiB from RAM and 1 MiB from VRAM",
		`              start llama-server with -ngl 99 --n-cpu-moe 2 (builds without it: -ot 'blk\.([0-1])\.ffn_(up|down|gate)_(ch|)exps=CPU');`,
	)
}
