package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
)

// This file makes the requests of a turn: the stable prefix (system prompt
// and tools), the history that fits the window, the text tool protocol's
// rewriting of calls and results, and the streaming of the reply.

// step makes one model request of turn t and streams its reply.
func (a *Agent) step(ctx context.Context, t *turn, send func(Event)) (models.Reply, *Usage, error) {
	req, asm := a.request(t)
	t.sent = req
	bounded := a.bounded
	if bounded {
		// The request was made without counting; the encoder is built
		// while the model reads it.
		go a.counter.(BoundingCounter).Warm()
	}
	began := a.now()
	filter := newCallFilter()
	specs := a.allSpecs()
	filter.tool = func(name string) bool { return models.NamesTool(name, specs) }
	if a.constrained() {
		filter.hold("") // a JSON reply: shown once it is read
	}
	cctx, watch := a.watch(ctx, req)
	part := a.newPartial()
	reply, err := a.model.Chat(cctx, req, func(d models.Delta) {
		if !watch.delta(d) {
			return // cut at the thinking budget; what still arrives is dropped
		}
		part.add(ctx, d.Content)
		if d.Thinking != "" {
			send(Thinking{Text: d.Thinking})
		}
		if shown := filter.Write(d.Content); shown != "" {
			send(Token{Text: shown})
		}
	})
	reply, err = watch.finish(cctx, reply, err)
	defer func() {
		// Release held text that turned out not to be a tool call.
		if held := filter.Held(); held != "" && len(reply.Message.ToolCalls) == 0 {
			if shown := a.shownAfterHold(held); shown != "" {
				send(Token{Text: shown})
			}
		}
	}()
	if ctx.Err() != nil && err != nil {
		err = fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %w", context.Canceled, err)
		}
	}
	reply.Message.Role, reply.Message.Model = models.RoleAssistant, a.cfg.Model
	if bounded && err == nil {
		// The plan of the request sent, counted: the same messages, by
		// the calibration it was made with (calibrate below moves it).
		a.settle(t)
		asm = a.assemble(t)
	}
	usage := &Usage{
		Estimate: asm.Estimate, Calibrated: asm.Plan.Used(), PromptTokens: reply.Metrics.PromptTokens,
		EvalTokens: reply.Metrics.EvalTokens, NumCtx: a.win.NumCtx, Dropped: asm.Dropped,
		DoneReason: reply.DoneReason, Duration: a.now().Sub(began),
	}
	a.cacheUse(req, reply.Metrics, usage)
	if err == nil {
		t.verdict = a.calibrate(ctx, usage)
		m := session.TurnMetrics{
			Model: a.cfg.Model, NumCtx: a.win.NumCtx, Estimate: asm.Estimate,
			PromptTokens: reply.Metrics.PromptTokens, EvalTokens: reply.Metrics.EvalTokens,
			Duration: usage.Duration, PromptDuration: reply.Metrics.PromptDuration,
			EvalDuration: reply.Metrics.EvalDuration, LoadDuration: reply.Metrics.LoadDuration,
			Truncated:  usage.Truncated,
			DoneReason: reply.DoneReason,
		}
		if rerr := a.rec.RecordTurn(ctx, a.cfg.SessionID, m); rerr != nil {
			return reply, usage, fmt.Errorf("record turn: %w", rerr)
		}
		return reply, usage, nil
	}
	return reply, nil, err
}

// Prefix returns the stable start of every request: the system prompt and
// the tools offered natively (none in the text tool protocol, where the
// system prompt describes them).
func (a *Agent) Prefix() (system string, specs []models.ToolSpec) { return a.prefix(nil) }

// prefix is the start of turn t's next request.
func (a *Agent) prefix(t *turn) (system string, specs []models.ToolSpec) {
	all := a.offered(t, a.tools.All())
	specs = make([]models.ToolSpec, len(all))
	for i, tl := range all {
		specs[i] = tl.Spec()
	}
	if a.textTools(t) {
		return a.textSystemPrompt(specs), nil
	}
	return a.system(), specs
}

// PrefixTokens estimates what the prefix costs. The prefix only changes
// when the tools do, so the count is kept until then.
func (a *Agent) PrefixTokens() int {
	a.settle(nil)
	return a.prefixTokens(nil)
}

// prefixTokens estimates what the prefix of turn t's next request costs:
// an upper bound of it while the agent is bounded.
func (a *Agent) prefixTokens(t *turn) int {
	system, specs := a.prefix(t)
	key := toolKey(specs) + a.goalText
	if a.textTools(t) {
		key = system
	}
	if key == a.prefixKey {
		return a.prefixCost
	}
	sys := models.Message{Role: models.RoleSystem, Content: system}
	var cost int
	if a.bounded {
		cost = a.counter.(BoundingCounter).MessageBound(sys)
		for _, s := range specs {
			cost += budget.Bound(string(s.WireJSON()))
		}
	} else {
		cost = a.counter.MessageTokens(sys)
		for _, s := range specs {
			cost += a.counter.Count(string(s.WireJSON()))
		}
	}
	a.prefixCost, a.prefixKey = cost, key
	return cost
}

// request assembles the next request inside the window: the prefix, then as
// much of the history as fits next to the reply's reserve and the turn's
// retrieved code, which goes just before the question.
func (a *Agent) request(t *turn) (models.Request, budget.Assembly) {
	system, specs := a.prefix(t)
	asm := a.assemble(t)
	history := t.withRetrieval(asm.Messages)
	msgs := make([]models.Message, 0, len(history)+1)
	msgs = append(msgs, models.Message{Role: models.RoleSystem, Content: system})
	if a.textTools(t) {
		msgs = append(msgs, textProtocol(history, a.callFormat())...)
	} else {
		msgs = append(msgs, history...)
	}
	req := models.Request{
		Model:    a.cfg.Model,
		Messages: msgs,
		Tools:    specs,
		Options: models.Options{
			NumCtx:      a.win.NumCtx,
			NumPredict:  a.win.Reserve,
			Temperature: a.cfg.Temperature,
			Think:       a.think(t),
			KeepAlive:   a.cfg.KeepAlive,
		},
	}
	a.constrain(t, &req)
	return req, asm
}

// textProtocol rewrites history for a model that takes no native tools:
// calls become text in the model's call format and results become user
// messages.
func textProtocol(history []models.Message, format string) []models.Message {
	out := make([]models.Message, 0, len(history))
	for _, m := range history {
		switch {
		case format == models.FormatConstrained && m.Role == models.RoleAssistant:
			out = append(out, models.Message{Role: models.RoleAssistant, Content: models.ConstrainedText(m)})
		case m.Role == models.RoleAssistant && len(m.ToolCalls) > 0:
			var b strings.Builder
			b.WriteString(m.Content)
			for _, c := range m.ToolCalls {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(models.FormatCall(format, c.Name, c.Arguments))
			}
			out = append(out, models.Message{Role: models.RoleAssistant, Content: b.String()})
		case m.Role == models.RoleTool:
			out = append(out, models.Message{Role: models.RoleUser,
				Content: fmt.Sprintf("<tool_response name=%q>\n%s\n</tool_response>", m.ToolName, m.Content)})
		default:
			out = append(out, m)
		}
	}
	return out
}
