package budget

import (
	"fmt"

	"github.com/ternhq/tern/models"
)

// Meter counts what assembly needs counted; *Counter satisfies it. A
// caller that sends messages in another form than it keeps them (the text
// tool protocol) passes a Meter that counts the form sent.
type Meter interface {
	Count(text string) int
	MessageTokens(m models.Message) int
}

// Plan is how one request spends the context window, in the model's tokens
// (tern's counts times the calibration factor). Reserve, Prefix, Retrieval,
// History and Message never add up to more than Window.
type Plan struct {
	// Window is num_ctx, fixed for the session.
	Window int `json:"window"`
	// Reserve is kept free for the reply; it is sent as num_predict.
	Reserve int `json:"reserve"`
	// Prefix is the system prompt and the tool schemas, the same bytes on
	// every request.
	Prefix int `json:"prefix"`
	// Retrieval is the repository map and retrieved snippets; 0 when RAG is
	// off.
	Retrieval int `json:"retrieval"`
	// History is the earlier messages sent; Message the newest user message.
	History int `json:"history"`
	Message int `json:"message"`
	// Factor is the calibration the plan was made with.
	Factor float64 `json:"factor"`
}

// Room is what the conversation may take: the window less the reserve, the
// prefix and the retrieved context.
func (p Plan) Room() int { return p.Window - p.Reserve - p.Prefix - p.Retrieval }

// Used is the prompt's size.
func (p Plan) Used() int { return p.Prefix + p.Retrieval + p.History + p.Message }

// Free is what is left of the prompt's share of the window.
func (p Plan) Free() int { return p.Window - p.Reserve - p.Used() }

// String shows the plan in one line, for a status bar or `tern prompt`.
func (p Plan) String() string {
	s := fmt.Sprintf("prefix %d + ", p.Prefix)
	if p.Retrieval > 0 {
		s += fmt.Sprintf("retrieval %d + ", p.Retrieval)
	}
	return s + fmt.Sprintf("history %d + message %d = %d of %d tokens (reserve %d for the reply; counts ×%.2f)",
		p.History, p.Message, p.Used(), p.Window, p.Reserve, p.Factor)
}

// Input is what a request is assembled from. Counts are tern's own
// (uncalibrated); Calibration converts them.
type Input struct {
	Window, Reserve int
	Calibration     Calibration
	// Prefix is the count of the system prompt and the tool schemas.
	Prefix int
	// Retrieval is the count of retrieved context sent with the request
	// (0 when RAG is off; the retrieval packer decides what fits in its
	// share of Room before assembly).
	Retrieval int
	// History is the conversation, the newest user message included;
	// Costs[i] is the count of History[i].
	History []models.Message
	Costs   []int
}

// Assembly is the conversation part of one request.
type Assembly struct {
	Plan Plan
	// Messages are the history to send, oldest first.
	Messages []models.Message
	// Estimate is tern's uncalibrated count of the whole prompt.
	Estimate int
	// Dropped counts history messages left out; Shortened those sent cut.
	Dropped, Shortened int
}

// Assemble chooses the history a request carries so that the prompt never
// takes more than the window less the reserve, by calibrated count.
//
// As much recent history as fits is kept by whole turns (see Fit). The
// newest user message is always sent; when it, or it with the newest step
// of its turn, is larger than the room, the largest messages are shortened
// (head and tail kept, with a note saying so) rather than sent whole. A
// tool result is never sent without the call it answers.
func Assemble(m Meter, in Input) Assembly {
	cal := in.Calibration
	p := Plan{
		Window: in.Window, Reserve: in.Reserve,
		Prefix: cal.Scale(in.Prefix), Retrieval: cal.Scale(in.Retrieval),
		Factor: cal.Value(),
	}
	a := Assembly{Plan: p}
	room := cal.Unscale(p.Room())
	s := fit(in.History, in.Costs, room)
	if s.empty() {
		a.Estimate = in.Prefix + in.Retrieval
		return a
	}
	var cost, message int
	if s.hasUser() && s.cost <= room {
		a.Messages = make([]models.Message, 0, 1+len(in.History)-s.start)
		if s.withUser {
			a.Messages = append(a.Messages, in.History[s.user])
		}
		a.Messages = append(a.Messages, in.History[s.start:]...)
		cost = s.cost
		if s.user >= 0 {
			message = in.Costs[s.user]
		}
	} else {
		var sq squeezed
		sq = squeeze(m, in.History, in.Costs, s.user, room)
		a.Messages, cost, message, a.Shortened = sq.msgs, sq.cost, sq.message, sq.shortened
	}
	a.Dropped = len(in.History) - len(a.Messages)
	a.Estimate = in.Prefix + in.Retrieval + cost
	a.Plan.Message = cal.Scale(message)
	a.Plan.History = cal.Scale(cost) - a.Plan.Message
	return a
}

// Whole reports whether the whole of in's history fits, by in's counts,
// next to its prefix and retrieval. Assemble then cuts nothing and sends
// the history from its first user message on, a choice made by the
// messages' roles alone: the same for any smaller counts, since every
// conversion between tern's and the model's tokens (Scale, Unscale) is
// monotonic whatever the calibration. So a caller holding only upper
// bounds of the counts (Bound) knows what Assemble would send with the
// exact ones, without counting; only the plan's numbers need them.
func Whole(in Input) bool {
	cal := in.Calibration
	room := cal.Unscale(in.Window - in.Reserve - cal.Scale(in.Prefix) - cal.Scale(in.Retrieval))
	total := 0
	for _, c := range in.Costs {
		total += c
	}
	return total <= room
}

// squeezed is a current turn cut to fit.
type squeezed struct {
	msgs                     []models.Message
	cost, message, shortened int
}

// squeeze fits a current turn whose question and newest step are together
// larger than room: the question keeps what the step leaves it (at least a
// third of the room), and the step's largest messages share the rest. When
// the step cannot be made to fit (its tool calls alone are too large), the
// question is sent alone.
func squeeze(m Meter, history []models.Message, costs []int, u, room int) squeezed {
	last := len(history) - 1
	s := last + 1
	for i := last; i > u && i >= 0; i-- {
		if history[i].Role == models.RoleAssistant {
			s = i
			break
		}
	}
	if u < 0 && s > last {
		s = last // no question and no step: the last message is all there is
	}
	step, stepCosts := history[s:], costs[s:]
	stepCost := 0
	for _, c := range stepCosts {
		stepCost += c
	}

	var out squeezed
	if u >= 0 {
		budget := room
		if len(step) > 0 {
			budget = min(costs[u], max(room-stepCost, room/3))
		}
		q, c, cut := ShortenMessage(m, history[u], costs[u], budget)
		out.msgs, out.cost, out.message = append(out.msgs, q), c, c
		if cut {
			out.shortened++
		}
	}
	if len(step) == 0 {
		return out
	}
	msgs, c, n, ok := squeezeStep(m, step, stepCosts, room-out.cost)
	if !ok {
		return out
	}
	out.msgs = append(out.msgs, msgs...)
	out.cost += c
	out.shortened += n
	return out
}

// squeezeStep shortens the largest messages of a step so that it costs at
// most left. Messages under an even share are kept whole; the others split
// what remains.
func squeezeStep(m Meter, step []models.Message, costs []int, left int) (msgs []models.Message, cost, shortened int, ok bool) {
	if left <= 0 {
		return nil, 0, 0, false
	}
	fair := left / len(step)
	fixed, big := 0, 0
	for _, c := range costs {
		if c <= fair {
			fixed += c
		} else {
			big++
		}
	}
	share := 0
	if big > 0 {
		share = (left - fixed) / big
	}
	msgs = make([]models.Message, len(step))
	for i, msg := range step {
		if costs[i] <= fair {
			msgs[i], cost = msg, cost+costs[i]
			continue
		}
		short, c, cut := ShortenMessage(m, msg, costs[i], share)
		msgs[i], cost = short, cost+c
		if cut {
			shortened++
		}
	}
	return msgs, cost, shortened, cost <= left
}

// ShortenMessage cuts msg's text so that the message costs at most limit by
// m's count; cost is its count now. It reports whether it cut anything.
// The tool calls of an assistant message are never cut: such a message
// may stay over limit. A text that cannot be cut to fit is replaced by a
// one-line note, never sent whole.
func ShortenMessage(m Meter, msg models.Message, cost, limit int) (models.Message, int, bool) {
	if cost <= limit {
		return msg, cost, false
	}
	bare := msg
	bare.Content = ""
	base := m.MessageTokens(bare)
	room := limit - base
	for range 4 {
		if room < 0 {
			break
		}
		short := msg
		short.Content = shorten(m.Count, msg.Content, max(cost-base, room+1), room)
		c := m.MessageTokens(short)
		if c <= limit {
			return short, c, true
		}
		room -= c - limit + 2
	}
	if msg.Content == "" {
		return msg, cost, false
	}
	bare.Content = fmt.Sprintf("[%d tokens cut: too large for the context window]", cost-base)
	return bare, m.MessageTokens(bare), true
}

// The bounds of a tool's output cap, in bytes, and the bytes one token is
// taken to hold when converting (cl100k averages about 4 on code; 3 errs on
// the side of sending less).
const (
	MinOutputBytes = 1 << 10
	MaxOutputBytes = 32 << 10
	bytesPerToken  = 3
)

// OutputLimit is the byte cap for each of calls tool outputs when left
// tokens of the room are free: half of them, so that the turn can take more
// steps, shared among the calls, within [MinOutputBytes, MaxOutputBytes].
func OutputLimit(left, calls int) int {
	per := left * bytesPerToken / 2 / max(calls, 1)
	return min(max(per, MinOutputBytes), MaxOutputBytes)
}
