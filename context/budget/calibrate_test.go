package budget

import (
	"math"
	"strings"
	"testing"
)

func TestCalibrationLearnsTheModelsCount(t *testing.T) {
	var c Calibration
	if c.Value() != 1 || c.Scale(1000) != 1000 {
		t.Fatalf("an uncalibrated counter must not correct: factor %v", c.Value())
	}
	// A model whose tokenizer counts 30% more than cl100k.
	for range 12 {
		if v := c.Observe(Sample{Estimate: 3000, Reported: 3900, NumCtx: 8192, Reserve: 1638}); v.Truncated {
			t.Fatalf("a prompt well inside the window was taken as truncated: %s", v.Reason)
		}
	}
	if math.Abs(c.Value()-1.3) > 0.01 {
		t.Errorf("factor = %.3f after 12 replies, want about 1.3", c.Value())
	}
	if got := c.Scale(1000); got < 1290 || got > 1310 {
		t.Errorf("Scale(1000) = %d, want about 1300", got)
	}
	if got := c.Unscale(c.Scale(1000)); got < 999 || got > 1000 {
		t.Errorf("Unscale(Scale(1000)) = %d", got)
	}
}

func TestCalibrationSmallPromptsMoveItLess(t *testing.T) {
	var small, large Calibration
	small.Observe(Sample{Estimate: 50, Reported: 100, NumCtx: 4096})
	large.Observe(Sample{Estimate: 2000, Reported: 4000, NumCtx: 8192})
	if small.Value() >= large.Value() {
		t.Errorf("a 50-token prompt moved the factor to %.2f, a 2000-token one to %.2f", small.Value(), large.Value())
	}
}

func TestCalibrationStaysInRange(t *testing.T) {
	var c Calibration
	for range 20 {
		c.Observe(Sample{Estimate: 1000, Reported: 9000, NumCtx: 32768})
	}
	if c.Value() != MaxFactor {
		t.Errorf("factor = %v, want clamped at %v", c.Value(), MaxFactor)
	}
	for range 40 {
		c.Observe(Sample{Estimate: 1000, Reported: 520, NumCtx: 32768})
	}
	if c.Value() < MinFactor || c.Value() > 0.53 {
		t.Errorf("factor = %v, want about 0.52, never under %v", c.Value(), MinFactor)
	}
	before := c
	c.Observe(Sample{Estimate: 1000, Reported: 0, NumCtx: 8192})
	if c != before {
		t.Error("a reply without a prompt count changed the calibration")
	}
}

func TestCalibrationIgnoresCachedCounts(t *testing.T) {
	c := Calibration{Factor: 1.1, Samples: 10}
	// Some Ollama versions count only what the KV cache did not hold.
	c.Observe(Sample{Estimate: 3000, Reported: 180, NumCtx: 8192, Reserve: 1638})
	if c.Value() != 1.1 {
		t.Errorf("a cached prompt's partial count moved the factor to %.3f", c.Value())
	}
}

func TestTruncationDetection(t *testing.T) {
	tests := []struct {
		name   string
		factor float64
		s      Sample
		want   bool
		reason string
	}{
		{"inside the window", 1, Sample{Estimate: 3000, Reported: 3300, NumCtx: 8192, Reserve: 1638}, false, ""},
		{"runner clamped at num_ctx", 1, Sample{Estimate: 1800, Reported: 2048, NumCtx: 2048, Reserve: 512}, true, "whole 2048-token window"},
		{"messages dropped from a full prompt", 1.2, Sample{Estimate: 1700, Reported: 1500, NumCtx: 2048, Reserve: 512}, true, "tern counted at 2040"},
		{"past the planned prompt into the reserve", 1, Sample{Estimate: 1500, Reported: 1900, NumCtx: 2048, Reserve: 512}, true, "planned for at most 1536"},
		{"near the plan's edge but inside", 1, Sample{Estimate: 1500, Reported: 1700, NumCtx: 2048, Reserve: 512}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Calibration{Factor: tt.factor, Samples: 5}
			v := c.Observe(tt.s)
			if v.Truncated != tt.want || !strings.Contains(v.Reason, tt.reason) {
				t.Fatalf("Observe = %+v, want truncated=%v with %q", v, tt.want, tt.reason)
			}
			if tt.want {
				// A cut prompt proves the model counts at least the window.
				if need := float64(tt.s.NumCtx) / float64(tt.s.Estimate); c.Value() < math.Min(need, MaxFactor) || c.Value() < tt.factor {
					t.Errorf("factor after truncation = %.3f, want at least %.3f", c.Value(), need)
				}
			}
		})
	}
}
