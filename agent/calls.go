package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// outcome is one finished call.
type outcome struct {
	call   models.ToolCall
	result tools.Result
	took   time.Duration
}

// runCalls runs the plan of one reply's calls and returns the tool
// messages that answer them, in call order. Consecutive read-only calls run
// in parallel; a call that writes or executes runs alone, after approval.
// Every call gets an answer, even when the context is cancelled, so the
// history stays whole.
func (a *Agent) runCalls(ctx context.Context, t *turn, plan callPlan, send func(Event)) []models.Message {
	calls := plan.calls
	outs := make([]outcome, len(calls))
	// spent is set when a call spent model tokens (explore's subagent):
	// its requests took the server's prompt cache.
	var spent atomic.Bool
	defer func() {
		if spent.Load() {
			a.lastPrint = promptPrint{}
		}
	}()
	for i := 0; i < len(calls); {
		j := i + 1
		if a.readOnly(calls[i].call) {
			for j < len(calls) && a.readOnly(calls[j].call) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			c := calls[k].call
			send(ToolStart{ID: c.ID, Name: c.Name, Args: c.Arguments, Repair: repairLabel(calls[k].repair),
				Subject: a.Describe(c.Name, c.Arguments)})
			wg.Add(1)
			go func() {
				defer wg.Done()
				began := a.now()
				report := progressTo(send, c)
				res := a.call(ctx, calls[k], plan.limit, func(p tools.Progress) {
					if p.Tokens > 0 {
						spent.Store(true)
					}
					report(p)
				})
				outs[k] = outcome{call: c, result: res, took: a.now().Sub(began)}
				send(ToolEnd{ID: c.ID, Name: c.Name, Output: res.Output, IsError: res.IsError,
					Summary: res.Summary, Diff: res.Diff, Detail: res.Detail, Diagnostics: res.Diagnostics, Duration: outs[k].took})
			}()
		}
		wg.Wait()
		i = j
	}

	msgs := make([]models.Message, len(outs))
	for i, o := range outs {
		msgs[i] = models.Message{Role: models.RoleTool, Content: o.result.Output, ToolName: o.call.Name, ToolCallID: o.call.ID}
		rec := session.ToolCallRecord{
			CallID: o.call.ID, Name: o.call.Name, Args: o.call.Arguments, Output: o.result.Output,
			IsError: o.result.IsError, Summary: o.result.Summary, Duration: o.took, Repair: calls[i].repair,
		}
		t.rememberResult(o.call, o.result.Output)
		if err := a.rec.RecordToolCall(context.WithoutCancel(ctx), a.cfg.SessionID, rec); err != nil {
			a.log.Error("record tool call", "tool", o.call.Name, "err", err)
		}
	}
	return msgs
}

func repairLabel(repair string) string {
	if repair == models.RepairNative {
		return ""
	}
	return repair
}

func (a *Agent) readOnly(c models.ToolCall) bool {
	t, ok := a.lookup(c.Name)
	return !ok || t.Effect() == tools.ReadOnly
}

// call checks and runs one planned call, its output capped at limit bytes.
// Whatever goes wrong becomes a result the model can learn from.
func (a *Agent) call(ctx context.Context, p plannedCall, limit int, progress func(tools.Progress)) tools.Result {
	if err := ctx.Err(); err != nil {
		return tools.Result{Output: "not run: the user cancelled the turn", IsError: true, Summary: "cancelled"}
	}
	if p.preset != nil {
		return *p.preset
	}
	c := p.call
	t, ok := a.lookup(c.Name)
	if !ok {
		res := tools.Errorf("unknown tool %q. Available tools: %s.", c.Name, strings.Join(a.toolNames(), ", "))
		res.Summary = InvalidCall
		return res
	}
	spec := t.Spec()
	args, notes, err := models.CheckArgs(spec, c.Arguments)
	if err != nil {
		res := tools.Errorf("%v", err)
		res.Summary = InvalidCall
		return res
	}
	notes = append(p.notes, notes...)
	if t.Effect() != tools.ReadOnly {
		rv := review(ctx, t, args)
		if rv.Refused != nil {
			return *rv.Refused
		}
		if res, ok := a.approve(ctx, c.ID, t, args, rv); !ok {
			return res
		}
	}
	res := t.Run(ctx, tools.Input{Args: args, Limit: limit, CallID: c.ID, Progress: progress})
	if len(notes) > 0 {
		res.Output = "(" + strings.Join(notes, "; ") + ")\n" + res.Output
	}
	return res
}

// lookup finds the tool a call names, forgiving the slips small models make
// in names (models.ResolveToolName): case, a "functions." prefix, dashes
// for underscores, a small misspelling.
func (a *Agent) lookup(name string) (tools.Tool, bool) {
	if t, ok := a.tools.Get(name); ok {
		return t, true
	}
	if n := models.ResolveToolName(name, a.toolNames()); n != "" {
		return a.tools.Get(n)
	}
	return nil, false
}

func (a *Agent) toolNames() []string {
	var names []string
	for _, t := range a.tools.All() {
		names = append(names, t.Spec().Name)
	}
	return names
}

// approve asks the user (or the headless policy) whether a call that
// changes something may run, showing what the review found. Calls the
// configuration allows run without asking; destructive calls, and those
// reviewed as "once", ask every time. ok is false when the call may not
// run; res then says so.
func (a *Agent) approve(ctx context.Context, id string, t tools.Tool, args json.RawMessage, rv tools.Review) (res tools.Result, ok bool) {
	name := t.Spec().Name
	once := rv.Once || rv.Destructive != ""
	if rv.Allowed && rv.Destructive == "" || !once && (a.grants.Allowed(name) || a.grants.AllowedPrefix(name, rv.Prefix)) {
		return tools.Result{}, true
	}
	prefix := rv.Prefix
	if once {
		prefix = ""
	}
	if a.approver == nil {
		return tools.Errorf("%s is not allowed in this session.", name), false
	}
	d, err := a.approver.Approve(ctx, Approval{ID: id, Tool: name, Effect: t.Effect(), Args: args,
		Preview: rv.Preview, Destructive: rv.Destructive != "", Why: rv.Destructive, Once: once, Prefix: prefix})
	if err != nil {
		return tools.Errorf("not run: approval failed: %v", err), false
	}
	if !d.Allow {
		msg := fmt.Sprintf("The user denied this %s call.", name)
		if d.Reason != "" {
			msg += " Reason: " + d.Reason
		}
		return tools.Result{Output: msg, IsError: true, Summary: "denied"}, false
	}
	switch {
	case d.Always && !once:
		a.grants.Allow(name)
	case d.Prefix != "" && d.Prefix == prefix:
		a.grants.AllowPrefix(name, d.Prefix)
	}
	return tools.Result{}, true
}
