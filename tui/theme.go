package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// theme holds every style the TUI draws with. A monochrome theme keeps
// the distinctions with attributes alone (bold, dim, underline, reverse),
// for terminals without colour and for NO_COLOR.
type theme struct {
	mono bool

	text, dim, bold, italic       tcell.Style
	heading, heading2, link, code tcell.Style
	quote, rule                   tcell.Style
	user, userMark                tcell.Style
	thinking                      tcell.Style
	tool, toolOK, toolErr         tcell.Style
	toolOutput                    tcell.Style
	diffAdd, diffDel, diffHunk    tcell.Style
	notice, warn, errorText       tcell.Style
	selected                      tcell.Style

	bar, barKey, barDim             tcell.Style
	good, fair, full, offline, busy tcell.Style
	dialog, dialogTitle, border     tcell.Style
}

// plain gives a box the terminal's own background, so tern looks right on
// light and dark terminals and has no colour at all in the mono theme.
func (th theme) plain(b *tview.Box) *tview.Box {
	fg, _, _ := th.dialogTitle.Decompose()
	return b.SetBackgroundColor(tcell.ColorDefault).SetBorderStyle(th.border).SetTitleColor(fg)
}

func newTheme(mono bool) theme {
	d := tcell.StyleDefault
	if mono {
		return theme{
			mono: true,
			text: d, dim: d.Dim(true), bold: d.Bold(true), italic: d.Italic(true),
			heading: d.Bold(true).Underline(true), heading2: d.Bold(true), link: d.Underline(true), code: d.Bold(true),
			quote: d.Dim(true), rule: d.Dim(true),
			user: d.Bold(true), userMark: d.Bold(true),
			thinking: d.Dim(true).Italic(true),
			tool:     d, toolOK: d.Bold(true), toolErr: d.Bold(true).Reverse(true), toolOutput: d.Dim(true),
			diffAdd: d.Bold(true), diffDel: d.Dim(true), diffHunk: d.Underline(true),
			notice: d.Italic(true), warn: d.Bold(true), errorText: d.Bold(true).Reverse(true),
			selected: d.Reverse(true),
			bar:      d.Reverse(true), barKey: d.Reverse(true).Bold(true), barDim: d.Reverse(true),
			good: d.Reverse(true), fair: d.Reverse(true).Bold(true), full: d.Reverse(true).Bold(true).Underline(true),
			offline: d.Reverse(true).Bold(true), busy: d.Reverse(true).Bold(true),
			dialog: d, dialogTitle: d.Bold(true), border: d,
		}
	}
	barBG := tcell.NewRGBColor(0x26, 0x2b, 0x36)
	bar := d.Background(barBG).Foreground(tcell.ColorSilver)
	return theme{
		text: d, dim: d.Foreground(tcell.ColorGray), bold: d.Bold(true), italic: d.Italic(true),
		heading:    d.Foreground(tcell.ColorLightSkyBlue).Bold(true).Underline(true),
		heading2:   d.Foreground(tcell.ColorLightSkyBlue).Bold(true),
		link:       d.Foreground(tcell.ColorCornflowerBlue).Underline(true),
		code:       d.Foreground(tcell.ColorKhaki),
		quote:      d.Foreground(tcell.ColorGray).Italic(true),
		rule:       d.Foreground(tcell.ColorDimGray),
		user:       d.Foreground(tcell.ColorWhite).Bold(true),
		userMark:   d.Foreground(tcell.ColorMediumPurple).Bold(true),
		thinking:   d.Foreground(tcell.ColorGray).Italic(true),
		tool:       d.Foreground(tcell.ColorLightSteelBlue),
		toolOK:     d.Foreground(tcell.ColorMediumSeaGreen),
		toolErr:    d.Foreground(tcell.ColorIndianRed).Bold(true),
		toolOutput: d.Foreground(tcell.ColorDarkGray),
		diffAdd:    d.Foreground(tcell.ColorMediumSeaGreen),
		diffDel:    d.Foreground(tcell.ColorIndianRed),
		diffHunk:   d.Foreground(tcell.ColorSteelBlue),
		notice:     d.Foreground(tcell.ColorDarkCyan),
		warn:       d.Foreground(tcell.ColorGold),
		errorText:  d.Foreground(tcell.ColorIndianRed).Bold(true),
		selected:   d.Background(tcell.NewRGBColor(0x3a, 0x3f, 0x4b)),

		bar: bar, barKey: bar.Foreground(tcell.ColorWhite).Bold(true), barDim: bar.Foreground(tcell.ColorGray),
		good: bar.Foreground(tcell.ColorMediumSeaGreen), fair: bar.Foreground(tcell.ColorGold),
		full: bar.Foreground(tcell.ColorIndianRed).Bold(true), offline: bar.Foreground(tcell.ColorIndianRed).Bold(true),
		busy:   bar.Foreground(tcell.ColorLightSkyBlue),
		dialog: d, dialogTitle: d.Foreground(tcell.ColorLightSkyBlue).Bold(true),
		border: d.Foreground(tcell.ColorGray),
	}
}
