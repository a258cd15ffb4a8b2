package budget

import (
	"fmt"
	"math"
)

// The limits of calibration. A model's tokenizer rarely differs from
// cl100k_base by more than a factor of two either way; a factor outside
// this range means a broken sample, not a tokenizer.
const (
	MinFactor = 0.5
	MaxFactor = 3.0
)

const (
	// sampleWeight is how much one reply moves the factor (an exponentially
	// weighted moving average), and firstWeight how much the first does.
	sampleWeight = 0.3
	firstWeight  = 0.7
	// fullSample is the prompt size at which a reply counts fully; smaller
	// prompts are dominated by the chat template's fixed overhead and move
	// the factor less.
	fullSample = 512
	// truncationMargin is how far below the calibrated estimate the
	// server's count must fall before tern believes it dropped something.
	truncationMargin = 0.1
	// nearWindow is the share of the window above which a prompt may have
	// been cut.
	nearWindow = 0.95
)

// Calibration corrects tern's cl100k token counts toward a model's own
// tokenizer. Factor is the model's count over tern's, learnt from the
// prompt_eval_count of its replies; Samples counts the replies it learnt
// from. The zero value is uncalibrated (a factor of 1).
type Calibration struct {
	Factor  float64 `json:"factor"`
	Samples int     `json:"samples"`
}

// factor is the correction to apply: 1 until something was learnt.
func (c Calibration) factor() float64 {
	if c.Factor <= 0 {
		return 1
	}
	return c.Factor
}

// Value returns the factor in effect (1 when uncalibrated).
func (c Calibration) Value() float64 { return c.factor() }

// Scale converts tern's count into the model's, rounding up.
func (c Calibration) Scale(n int) int {
	return int(math.Ceil(float64(n) * c.factor()))
}

// Unscale converts a budget in the model's tokens into tern's: the most
// tern-counted tokens whose scaled count stays within n.
func (c Calibration) Unscale(n int) int {
	if n <= 0 {
		return 0
	}
	return int(float64(n) / c.factor())
}

// Sample is one reply's prompt accounting.
type Sample struct {
	// Estimate is tern's own count of the prompt it sent (uncalibrated).
	Estimate int
	// Reported is the server's prompt_eval_count.
	Reported int
	// NumCtx and Reserve are the window and the share kept for the reply.
	NumCtx, Reserve int
}

// Verdict is what a reply's accounting says about its prompt.
type Verdict struct {
	// Truncated is set when the server very probably cut the prompt.
	Truncated bool
	// Reason says why, for the user.
	Reason string
}

// Observe learns from one reply and says whether the server cut its prompt.
//
// Ollama cuts an over-long prompt silently and reports the count after the
// cut. So a reply is taken as truncated when the server counted exactly the
// window or more (the runner clamps at num_ctx); when a prompt calibrated at
// 95% of the window or more came back clearly smaller (messages dropped
// from the front); or when the server's count ran past the space planned
// for the prompt into the second half of the reply's reserve, which a
// correctly calibrated plan never does. A truncated reply's count is a
// floor, not a measurement: the factor then only rises, to what the cut
// proves, and never learns from it by averaging. Nor does it learn from a
// count under half the estimate, which only a cached prefix explains.
func (c *Calibration) Observe(s Sample) Verdict {
	if s.Estimate <= 0 || s.Reported <= 0 {
		return Verdict{}
	}
	f := c.factor()
	calibrated := float64(s.Estimate) * f
	ratio := float64(s.Reported) / float64(s.Estimate)
	var v Verdict
	switch {
	case s.NumCtx > 0 && s.Reported >= s.NumCtx:
		v = Verdict{true, fmt.Sprintf("the server evaluated %d tokens, the whole %d-token window", s.Reported, s.NumCtx)}
	case s.NumCtx > 0 && calibrated >= nearWindow*float64(s.NumCtx) && float64(s.Reported) < calibrated*(1-truncationMargin):
		v = Verdict{true, fmt.Sprintf("the server evaluated %d tokens of a prompt tern counted at %.0f in a %d-token window", s.Reported, calibrated, s.NumCtx)}
	case s.NumCtx > 0 && s.Reserve > 0 && s.Reported > s.NumCtx-s.Reserve/2:
		v = Verdict{true, fmt.Sprintf("the server counted %d tokens where tern planned for at most %d in a %d-token window", s.Reported, s.NumCtx-s.Reserve, s.NumCtx)}
	}
	if v.Truncated {
		// The whole prompt was at least the window (or what was counted).
		floor := max(ratio, float64(s.NumCtx)/float64(s.Estimate))
		c.Factor = clampFactor(max(f, floor))
		c.Samples++
		return v
	}
	if ratio < MinFactor {
		// No tokenizer counts half of cl100k: this is a partial count, as
		// some Ollama versions report when the prompt's start came from the
		// KV cache. It says nothing about the model's tokenizer.
		return v
	}
	w := sampleWeight
	if c.Samples == 0 {
		w = firstWeight
	}
	w *= min(1, float64(s.Estimate)/fullSample)
	c.Factor = clampFactor(f + w*(ratio-f))
	c.Samples++
	return v
}

func clampFactor(f float64) float64 {
	return min(max(f, MinFactor), MaxFactor)
}
