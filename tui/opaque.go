package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// opaque wraps a dialog so that it clears every cell it covers before it
// draws. tview's Flex and Grid draw only their items and leave their
// border padding and any gaps untouched, so a dialog built from them shows
// the conversation underneath in those cells, right where the user reads
// a diff before allowing it. Every dialog goes through openModal, which
// wraps it in opaque; a dialog drawn some other way should wrap itself.
type opaque struct {
	tview.Primitive
	style tcell.Style
}

// newOpaque returns p wrapped so that it clears its area with style.
func newOpaque(p tview.Primitive, style tcell.Style) *opaque {
	return &opaque{Primitive: p, style: style}
}

func (o *opaque) Draw(screen tcell.Screen) {
	x, y, w, h := o.GetRect()
	for row := y; row < y+h; row++ {
		for col := x; col < x+w; col++ {
			screen.SetContent(col, row, ' ', nil, o.style)
		}
	}
	o.Primitive.Draw(screen)
}
