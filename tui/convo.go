package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// blockKind says what a block of the conversation shows.
type blockKind int

const (
	kindUser blockKind = iota
	kindAssistant
	kindThinking
	kindTool
	kindNotice
	kindInfo // output of a slash command: help, doctor, lists
)

// block is one item of the conversation: a prompt, an answer, a tool call,
// a notice. Expandable blocks (tool calls, thinking) have a long form.
type block struct {
	id    string
	kind  blockKind
	short []line
	long  []line // nil: the block does not expand
	open  bool

	// rows caches the wrapped lines for width.
	rows  [][]span
	width int

	// A streaming block (convo.stream) keeps its final lines apart from
	// its open tail, and how many rows they wrap to, so that a flush
	// wraps only the tail.
	stable     []line
	stableRows int
}

func (b *block) lines() []line {
	if b.open && b.long != nil {
		return b.long
	}
	return b.short
}

func (b *block) layout(width int) [][]span {
	if b.rows != nil && b.width == width {
		return b.rows
	}
	b.rows = b.rows[:0]
	lines := b.lines()
	b.stableRows = 0
	for i, l := range lines {
		if i == len(b.stable) {
			b.stableRows = len(b.rows)
		}
		b.rows = append(b.rows, wrap(l, width)...)
	}
	if len(b.stable) >= len(lines) {
		b.stableRows = len(b.rows)
	}
	if b.rows == nil {
		b.rows = [][]span{}
	}
	b.width = width
	return b.rows
}

func (b *block) invalidate() { b.rows, b.width, b.stableRows = nil, 0, 0 }

// compact blocks sit on consecutive rows; others get a blank row before.
func (k blockKind) compact() bool {
	return k == kindTool || k == kindNotice || k == kindThinking
}

// convo is the conversation view. It keeps styled blocks, wraps each one
// on its own when it changes or the width does, and draws only the rows
// on screen, so streaming into a long conversation stays cheap. It is
// used on the UI goroutine only.
type convo struct {
	*tview.Box
	th     theme
	blocks []*block
	// maxLines bounds the scrollback in logical lines; older blocks are
	// dropped from view (the session keeps them).
	maxLines int
	dropped  bool
	// top is the first row shown when not following the end.
	top    int
	follow bool
	// sel is the selected expandable block, -1 for none.
	sel int
	// height of the last draw, for paging.
	height int
}

func newConvo(th theme, maxLines int) *convo {
	c := &convo{Box: th.plain(tview.NewBox()), th: th, maxLines: maxLines, follow: true, sel: -1}
	return c
}

func (c *convo) find(id string) (int, *block) {
	if id == "" {
		return -1, nil
	}
	for i := len(c.blocks) - 1; i >= 0; i-- {
		if c.blocks[i].id == id {
			return i, c.blocks[i]
		}
	}
	return -1, nil
}

// add appends a block and trims the scrollback.
func (c *convo) add(b *block) {
	c.blocks = append(c.blocks, b)
	c.trim()
}

// set replaces the lines of the block with id, adding it when missing.
func (c *convo) set(id string, kind blockKind, short, long []line) {
	if _, b := c.find(id); b != nil {
		b.short, b.long, b.stable = short, long, nil
		b.invalidate()
		return
	}
	c.add(&block{id: id, kind: kind, short: short, long: long})
}

// stream grows the streaming block with id (adding it when missing): add
// joins its final lines and tail replaces its open tail. Only add and
// tail are wrapped, so the cost of a flush does not grow with the block.
func (c *convo) stream(id string, kind blockKind, add, tail []line) {
	_, b := c.find(id)
	if b == nil {
		b = &block{id: id, kind: kind}
		c.add(b)
	}
	if b.stable == nil {
		// Nothing is final yet, or the block was set whole before.
		b.invalidate()
	}
	b.long = nil
	if b.rows != nil && b.width > 0 {
		b.rows = b.rows[:b.stableRows]
		for _, l := range add {
			b.rows = append(b.rows, wrap(l, b.width)...)
		}
		b.stableRows = len(b.rows)
		for _, l := range tail {
			b.rows = append(b.rows, wrap(l, b.width)...)
		}
	}
	// short shares stable's array: appending the tail writes past its
	// end, where the last tail was. Keep room for the tail there, or
	// each flush would copy the whole array.
	b.stable = append(b.stable, add...)
	if need := len(b.stable) + len(tail); need > cap(b.stable) {
		b.stable = append(make([]line, 0, 2*need), b.stable...)
	}
	b.short = append(b.stable, tail...)
}

// remove drops the block with id.
func (c *convo) remove(id string) {
	if i, _ := c.find(id); i >= 0 {
		c.blocks = append(c.blocks[:i], c.blocks[i+1:]...)
		if c.sel == i {
			c.sel = -1
		} else if c.sel > i {
			c.sel--
		}
	}
}

// clear empties the view.
func (c *convo) clear() {
	c.blocks, c.dropped, c.sel, c.top, c.follow = nil, false, -1, 0, true
}

func (c *convo) trim() {
	total := 0
	for _, b := range c.blocks {
		total += len(b.lines())
	}
	drop := 0
	for total > c.maxLines && drop < len(c.blocks)-1 {
		total -= len(c.blocks[drop].lines())
		drop++
	}
	if drop > 0 {
		c.blocks = append([]*block(nil), c.blocks[drop:]...)
		c.dropped = true
		c.sel = max(-1, c.sel-drop)
	}
}

// text returns everything in view as plain text, for tests and copying.
func (c *convo) text() string {
	var s []byte
	for _, b := range c.blocks {
		for _, l := range b.lines() {
			s = append(s, l.plain()...)
			s = append(s, '\n')
		}
	}
	return string(s)
}

// layoutRows wraps every block at width and returns, for each block, its
// first row, with the total row count.
func (c *convo) layoutRows(width int) (starts []int, total int) {
	starts = make([]int, len(c.blocks))
	if c.dropped {
		total = 2
	}
	for i, b := range c.blocks {
		if i > 0 && !(b.kind.compact() && c.blocks[i-1].kind.compact()) {
			total++
		}
		starts[i] = total
		total += len(b.layout(width))
	}
	return starts, total
}

// Draw draws the rows in view.
func (c *convo) Draw(screen tcell.Screen) {
	c.Box.DrawForSubclass(screen, c)
	x, y, width, height := c.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	c.height = height
	starts, total := c.layoutRows(width)
	if c.follow || c.top > total-height {
		c.top = max(0, total-height)
		if total-height <= c.top {
			c.follow = true
		}
	}
	if c.top < 0 {
		c.top = 0
	}
	if c.dropped && c.top < 1 {
		drawSpans(screen, x, y-c.top, width, []span{{text: "… earlier output is no longer shown here; the session keeps all of it", style: c.th.dim}}, c.th.text)
	}
	for i, b := range c.blocks {
		rows := b.layout(width)
		first := starts[i]
		if first+len(rows) <= c.top || first >= c.top+height {
			continue
		}
		base := c.th.text
		if i == c.sel && c.HasFocus() {
			base = c.th.selected
		}
		for r, row := range rows {
			sy := first + r - c.top
			if sy < 0 || sy >= height {
				continue
			}
			if base != c.th.text {
				for col := 0; col < width; col++ {
					screen.SetContent(x+col, y+sy, ' ', nil, base)
				}
			}
			drawSpans(screen, x, y+sy, width, row, base)
		}
	}
}

// scroll moves the view by n rows (negative: up).
func (c *convo) scroll(n int) {
	_, _, width, height := c.GetInnerRect()
	_, total := c.layoutRows(max(width, 1))
	if c.follow {
		c.top = max(0, total-height)
	}
	c.top = max(0, min(c.top+n, total-height))
	c.follow = c.top >= total-height
}

// page scrolls by a screen (n = 1 down, -1 up).
func (c *convo) page(n int) { c.scroll(n * max(1, c.height-2)) }

func (c *convo) toEnd() { c.follow = true }

func (c *convo) toStart() { c.follow, c.top = false, 0 }

// selectNext moves the selection to the next expandable block in
// direction dir (1 down, -1 up) and scrolls it into view.
func (c *convo) selectNext(dir int) {
	i := c.sel
	if i < 0 {
		i = len(c.blocks)
		if dir > 0 {
			i = -1
		}
	}
	for i += dir; i >= 0 && i < len(c.blocks); i += dir {
		if c.blocks[i].long != nil {
			c.sel = i
			c.reveal(i)
			return
		}
	}
}

// selectLast selects the newest expandable block.
func (c *convo) selectLast() {
	c.sel = -1
	c.selectNext(-1)
}

// toggle expands or collapses the selected block.
func (c *convo) toggle() {
	if c.sel < 0 || c.sel >= len(c.blocks) {
		return
	}
	b := c.blocks[c.sel]
	b.open = !b.open
	b.invalidate()
	c.reveal(c.sel)
}

// reveal scrolls block i into view, its start first.
func (c *convo) reveal(i int) {
	_, _, width, height := c.GetInnerRect()
	starts, total := c.layoutRows(max(width, 1))
	first, n := starts[i], len(c.blocks[i].rows)
	if c.follow {
		c.top = max(0, total-height)
	}
	switch {
	case first < c.top:
		c.top = first
	case first+n > c.top+height:
		c.top = max(0, min(first, first+n-height))
	}
	c.follow = c.top >= total-height
}

// InputHandler handles the keys of the focused conversation: Up/Down
// select tool calls and thinking, Enter or Space opens and closes them.
func (c *convo) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return c.WrapInputHandler(func(ev *tcell.EventKey, _ func(p tview.Primitive)) {
		switch ev.Key() {
		case tcell.KeyUp:
			c.selectNext(-1)
		case tcell.KeyDown:
			c.selectNext(1)
		case tcell.KeyEnter:
			c.toggle()
		case tcell.KeyHome:
			c.toStart()
		case tcell.KeyEnd:
			c.toEnd()
		case tcell.KeyRune:
			switch ev.Rune() {
			case ' ':
				c.toggle()
			case 'k':
				c.selectNext(-1)
			case 'j':
				c.selectNext(1)
			case 'g':
				c.toStart()
			case 'G':
				c.toEnd()
			}
		}
	})
}
