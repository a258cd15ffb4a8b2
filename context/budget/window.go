package budget

// Window is a session's context window as tern plans it: the window the
// server is asked for, the part of it this agent's prompts may fill, the
// share kept for the reply and the calibration that turns tern's counts
// into the model's. All window arithmetic goes through it, so that a
// caller never mixes the two kinds of tokens: counts given to and returned
// by Model and Tern say which kind they are in; Size, Reserve, Room and
// Share are in the model's tokens.
type Window struct {
	// NumCtx is the served window (num_ctx), sent with every request.
	NumCtx int
	// Limit, when set below NumCtx, is the part of the served window the
	// prompts may fill: a subagent's share. Requests still carry NumCtx,
	// so the model is not reloaded.
	Limit int
	// Reserve is kept free for the reply, in the model's tokens.
	Reserve int
	// Calibration converts tern's counts into the model's.
	Calibration Calibration
}

// DefaultReserve is the reply's share of a window when none is configured:
// a fifth of it, at least 512 tokens.
func DefaultReserve(numCtx int) int { return max(numCtx/5, 512) }

// Size is the part of the served window the prompts may fill: all of it,
// or Limit when that is smaller.
func (w Window) Size() int {
	if w.Limit > 0 && w.Limit < w.NumCtx {
		return w.Limit
	}
	return w.NumCtx
}

// Room is what the conversation may take, in the model's tokens: the
// window less the reply's reserve and fixed, the count (tern's) of what
// every request carries before the conversation (prefix, retrieved code).
func (w Window) Room(fixed int) int { return w.Size() - w.Reserve - w.Model(fixed) }

// Share is the fraction f of the window, in the model's tokens.
func (w Window) Share(f float64) int { return int(f * float64(w.Size())) }

// Part is the window of a subagent that may fill the share f of this one:
// at least least tokens, but never more than this window's Size. It keeps
// the served window (a different one would reload the model) and the
// calibration, and reserves nothing yet: the subagent sizes its reply.
func (w Window) Part(f float64, least int) Window {
	return Window{NumCtx: w.NumCtx, Limit: min(max(w.Share(f), least), w.Size()), Calibration: w.Calibration}
}

// Model converts tern's count n into the model's, rounding up.
func (w Window) Model(n int) int { return w.Calibration.Scale(n) }

// Tern converts n of the model's tokens into tern's: the most tern-counted
// tokens whose model count stays within n.
func (w Window) Tern(n int) int { return w.Calibration.Unscale(n) }

// Observe learns from one reply (tern's estimate of the prompt sent and
// the server's count) and says whether the server cut the prompt; see
// Calibration.Observe.
func (w *Window) Observe(estimate, reported int) Verdict {
	return w.Calibration.Observe(Sample{Estimate: estimate, Reported: reported, NumCtx: w.NumCtx, Reserve: w.Reserve})
}
