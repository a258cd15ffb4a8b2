package tools

import (
	"bytes"
	"sync"
	"time"
)

// progressEvery is how often a running command's latest output is passed
// on; tailBytes how much of its end is kept for it, and tailLines how
// many of its last lines are passed.
const (
	progressEvery = 250 * time.Millisecond
	tailBytes     = 4 << 10
	tailLines     = 3
)

// progressTail is a writer that keeps the end of a running command's
// output and passes its last lines to send, at most every progressEvery
// and only when they changed, until stop.
type progressTail struct {
	send func(Progress)

	mu    sync.Mutex
	tail  []byte
	dirty bool

	done chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

func newProgressTail(send func(Progress)) *progressTail {
	p := &progressTail{send: send, done: make(chan struct{})}
	p.wg.Add(1)
	go p.run()
	return p
}

func (p *progressTail) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.tail = append(p.tail, b...)
	if n := len(p.tail); n > tailBytes {
		p.tail = append(p.tail[:0], p.tail[n-tailBytes:]...)
	}
	p.dirty = true
	p.mu.Unlock()
	return len(b), nil
}

func (p *progressTail) run() {
	defer p.wg.Done()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-tick.C:
		}
		p.mu.Lock()
		text, dirty := lastOutputLines(p.tail, tailLines), p.dirty
		p.dirty = false
		p.mu.Unlock()
		if dirty && text != "" {
			p.send(Progress{Text: text})
		}
	}
}

// stop ends the reports; none is sent after it returns.
func (p *progressTail) stop() {
	p.once.Do(func() { close(p.done) })
	p.wg.Wait()
}

// lastOutputLines is the last n lines of out that hold more than spaces,
// each as the terminal would leave it after a carriage return.
func lastOutputLines(out []byte, n int) string {
	var lines [][]byte
	for rest := out; len(rest) > 0 && len(lines) < n; {
		i := bytes.LastIndexByte(rest, '\n')
		line := rest[i+1:]
		rest = rest[:max(i, 0)]
		if i < 0 {
			rest = nil
		}
		if j := bytes.LastIndexByte(bytes.TrimRight(line, "\r"), '\r'); j >= 0 {
			line = line[j+1:] // a progress bar redrawn in place
		}
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, bytes.TrimRight(line, "\r"))
		}
	}
	var b bytes.Buffer
	for i := len(lines) - 1; i >= 0; i-- {
		b.Write(lines[i])
		if i > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
