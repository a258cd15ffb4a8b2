package tui

import (
	"sync"
	"time"

	"github.com/rivo/tview"

	"github.com/ternhq/tern/agent"
)

// flushEvery paces the pump: token deltas that arrive within it are drawn
// together, which keeps a fast model from causing a redraw per token.
const flushEvery = 40 * time.Millisecond

// spinEvery is how often the status bar's spinner moves while tern works.
const spinEvery = 100 * time.Millisecond

// item is one thing waiting to reach the screen: an agent event or an
// update prepared elsewhere.
type item struct {
	ev agent.Event
	n  int    // deltas merged into ev
	fn func() // runs on the UI goroutine
}

// pump is the one goroutine that moves work onto tview's event loop with
// QueueUpdateDraw. Everyone else (the agent's emit, the approver, search,
// index and connect jobs) posts to it without blocking; input handlers,
// which run on the event loop, never queue updates at all. Token deltas
// are merged; nothing else is ever dropped. Stopping the application is
// itself an update queued by the pump, so no update can be left waiting
// on a loop that has stopped.
type pump struct {
	app   *tview.Application
	pres  *presenter
	every time.Duration

	mu      sync.Mutex
	queue   []item
	stopped bool
	busy    bool // spin: redraw every spinEvery

	wake chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

func newPump(app *tview.Application, pres *presenter) *pump {
	return &pump{
		app: app, pres: pres, every: flushEvery,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
	}
}

// emit posts an agent event. It is the agent's emit function and never
// blocks on the UI.
func (p *pump) emit(ev agent.Event) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	if n := len(p.queue); n > 0 && p.queue[n-1].fn == nil {
		last := &p.queue[n-1]
		switch e := ev.(type) {
		case agent.Token:
			if t, ok := last.ev.(agent.Token); ok {
				last.ev, last.n = agent.Token{Text: t.Text + e.Text}, last.n+1
				p.mu.Unlock()
				return
			}
		case agent.Thinking:
			if t, ok := last.ev.(agent.Thinking); ok {
				last.ev, last.n = agent.Thinking{Text: t.Text + e.Text}, last.n+1
				p.mu.Unlock()
				return
			}
		}
	}
	p.queue = append(p.queue, item{ev: ev, n: 1})
	p.mu.Unlock()
	p.poke()
}

// post queues fn to run on the UI goroutine. It never blocks; fn is
// dropped once the pump has stopped.
func (p *pump) post(fn func()) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.queue = append(p.queue, item{fn: fn})
	p.mu.Unlock()
	p.poke()
}

// spin turns the spinner's redraws on or off.
func (p *pump) spin(on bool) {
	p.mu.Lock()
	p.busy = on
	p.mu.Unlock()
	p.poke()
}

func (p *pump) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// stop asks the pump to stop the application after the updates already
// queued. It does not block, so input handlers may call it.
func (p *pump) stop() {
	p.once.Do(func() { close(p.quit) })
}

// run moves queued work onto the event loop until stop is called, then
// stops the application.
func (p *pump) run() {
	defer close(p.done)
	tick := time.NewTicker(spinEvery)
	defer tick.Stop()
	last := time.Time{}
	for {
		select {
		case <-p.quit:
			p.finish()
			return
		case <-p.wake:
		case <-tick.C:
			p.mu.Lock()
			idle := !p.busy && len(p.queue) == 0
			p.mu.Unlock()
			if idle {
				continue
			}
		}
		if wait := p.every - time.Since(last); wait > 0 {
			select {
			case <-p.quit:
				p.finish()
				return
			case <-time.After(wait):
			}
		}
		p.mu.Lock()
		batch := p.queue
		p.queue = nil
		p.mu.Unlock()
		var ops []func()
		for _, it := range batch {
			if it.fn != nil {
				ops = append(ops, it.fn)
				continue
			}
			ops = append(ops, p.pres.event(it.ev, it.n)...)
		}
		ops = append(ops, p.pres.flush()...)
		p.app.QueueUpdateDraw(func() {
			for _, op := range ops {
				op()
			}
		})
		last = time.Now()
	}
}

// finish applies what is still queued, then stops the application from
// inside its own loop.
func (p *pump) finish() {
	p.mu.Lock()
	p.stopped = true
	batch := p.queue
	p.queue = nil
	p.mu.Unlock()
	p.app.QueueUpdate(func() {
		for _, it := range batch {
			if it.fn != nil {
				it.fn()
			}
		}
		p.app.Stop()
	})
}
