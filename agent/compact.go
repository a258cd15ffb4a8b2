package agent

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/context/compact"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
)

// DefaultCompactAt is the share of the window past which the history is
// compacted before a request.
const DefaultCompactAt = 0.7

// The proportions of compaction, as shares of the window.
const (
	// summaryShare caps the summary note (~12% of the window).
	summaryShare = 0.12
	// stallShare: a compaction that frees less than this is not repeated
	// until the history has grown by as much again.
	stallShare = 0.05
)

// Compact shrinks the conversation now, as /compact asks, whatever its
// size: old tool outputs become stubs, then the oldest turns are
// summarised, or trimmed when the summary fails. It reports what it did as
// Notice events (no Done: it is not a turn). It returns an error only when
// ctx ends or the store fails; the session goes on either way. Do not call
// it while Run is running.
func (a *Agent) Compact(ctx context.Context, emit func(Event)) error {
	_, err := a.compact(ctx, nil, emit, true)
	return err
}

// historyCost is tern's count of the whole active history.
func (a *Agent) historyCost() int {
	n := 0
	for _, c := range a.costs {
		n += c
	}
	return n
}

// autoCompact compacts before a request of turn t when the prompt would
// pass the threshold share of the window, unless the last compaction
// stalled and the history has not grown much since.
func (a *Agent) autoCompact(ctx context.Context, t *turn, send func(Event)) error {
	if a.cfg.CompactAt >= 1 {
		return nil
	}
	over := func() bool {
		return a.win.Model(a.prefixTokens(t)+t.codeCost()+a.historyCost()) > a.win.Share(a.cfg.CompactAt)
	}
	if !over() {
		return nil // by bounds too, while the agent is bounded
	}
	a.settle(t)
	if !over() {
		return nil
	}
	h := a.historyCost()
	if a.stalledAt > 0 && h < a.stalledAt+a.win.Tern(a.win.Share(stallShare)) {
		return nil
	}
	_, err := a.compact(ctx, t, send, false)
	return err
}

// compact runs the ladder down to half the room, saves the result and says
// what it did; t is the turn in progress (nil between turns). thorough, for
// /compact, folds all but the current turn whatever the history's size.
func (a *Agent) compact(ctx context.Context, t *turn, send func(Event), thorough bool) (compact.Result, error) {
	a.settle(t)
	target := a.win.Tern(a.room(t) / 2)
	summaryMax := a.win.Tern(a.win.Share(summaryShare))
	ladder := compact.Ladder{
		Cost: wireMeter{a, t}.MessageTokens, Count: a.counter.Count, Summarize: a.summarize,
		SummaryMax: summaryMax, TranscriptMax: a.transcriptMax(summaryMax),
		Limit: a.win.Tern(a.room(t)), Thorough: thorough,
	}
	res, err := ladder.Compact(ctx, a.history, a.costs, target)
	if err != nil {
		return res, err
	}
	if res.Freed() <= 0 {
		a.stalledAt = res.Before
		if thorough {
			send(Notice{Level: Info, Text: fmt.Sprintf("nothing to compact: the conversation takes %d tokens", a.win.Model(res.Before))})
		}
		return res, nil
	}
	if r, ok := a.rec.(HistoryReplacer); ok {
		if err := r.ReplaceHistory(ctx, a.cfg.SessionID, res.History); err != nil {
			return res, fmt.Errorf("save compacted history: %w", err)
		}
	}
	a.history, a.costs = res.History, res.Costs
	a.stalledAt = 0
	if a.win.Model(res.Freed()) < a.win.Share(stallShare) {
		a.stalledAt = res.After
	}
	if res.SummaryErr != nil {
		send(Notice{Level: Warn, Text: fmt.Sprintf("the summary of the earlier conversation could not be used (%v); dropped the oldest messages instead", res.SummaryErr)})
	}
	send(Notice{Level: Info, Text: fmt.Sprintf("compacted the conversation from %d to %d tokens: %s (the full history stays in the session)",
		a.win.Model(res.Before), a.win.Model(res.After), res)})
	return res, nil
}

// transcriptMax is how much conversation the summary request may carry, in
// tern's tokens: the window less the summary's own reply and its prompt.
func (a *Agent) transcriptMax(summaryMax int) int {
	system, user, err := prompts.RenderSummary(prompts.Summary{MaxWords: summaryMax})
	if err != nil {
		return 0
	}
	fixed := a.counter.Count(system) + a.counter.Count(user) + 16
	return max(a.win.Tern(a.win.NumCtx-a.summaryPredict(summaryMax))-fixed-64, 0)
}

// summaryPredict is the reply cap of the summary request: the note's cap in
// the model's tokens, with room for it to finish a sentence.
func (a *Agent) summaryPredict(maxTokens int) int { return a.win.Model(maxTokens) * 5 / 4 }

// summarize asks the model for the notes of compaction: no tools, no
// thinking, the session's window (a different one would reload the model).
func (a *Agent) summarize(ctx context.Context, system, user string, maxTokens int) (string, error) {
	began := a.now()
	a.lastPrint = promptPrint{} // the summary's prompt takes the server's cache
	reply, err := a.model.Chat(ctx, models.Request{
		Model: a.cfg.Model,
		Messages: []models.Message{
			{Role: models.RoleSystem, Content: system},
			{Role: models.RoleUser, Content: user},
		},
		Options: models.Options{
			NumCtx:      a.win.NumCtx,
			NumPredict:  a.summaryPredict(maxTokens),
			Temperature: a.cfg.Temperature,
			KeepAlive:   a.cfg.KeepAlive,
		},
	}, func(models.Delta) {})
	if err != nil {
		return "", err
	}
	m := session.TurnMetrics{
		Model: a.cfg.Model, NumCtx: a.win.NumCtx,
		Estimate:     a.counter.Count(system) + a.counter.Count(user),
		PromptTokens: reply.Metrics.PromptTokens, EvalTokens: reply.Metrics.EvalTokens,
		Duration: a.now().Sub(began), PromptDuration: reply.Metrics.PromptDuration,
		EvalDuration: reply.Metrics.EvalDuration, LoadDuration: reply.Metrics.LoadDuration,
		Truncated: reply.Metrics.PromptTokens >= a.win.NumCtx, DoneReason: "summary " + reply.DoneReason,
	}
	if err := a.rec.RecordTurn(context.WithoutCancel(ctx), a.cfg.SessionID, m); err != nil {
		a.log.Error("record summary turn", "err", err)
	}
	return reply.Message.Content, nil
}
