// Package chart renders the portal's charts as inline SVG on the server: readable
// without JavaScript, with no script and no style attribute (the portal's
// Content-Security-Policy allows neither inline), colours as fill attributes. Each chart
// has an accessible name; the pages put the same numbers in a table beside it.
package chart

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Series is one part of a stacked bar chart: a name, a colour (an SVG fill value) and one
// value per label.
type Series struct {
	Name   string
	Color  string
	Values []int64
}

// Bars is a vertical bar chart: one bar per label, its series stacked in order from the
// bottom. Values are not negative (a negative value draws nothing).
type Bars struct {
	ID     string // unique on the page; names the chart's title element
	Title  string // the accessible name
	Labels []string
	Series []Series
	// Format writes an axis value (nil: the integer).
	Format func(int64) string
}

// Ranking is a horizontal bar chart of one value per label, in the order given.
type Ranking struct {
	ID     string
	Title  string
	Labels []string
	Values []int64
	Color  string
	Format func(int64) string
}

// Geometry of the charts, in SVG user units (the SVG scales to its container).
const (
	width      = 720.0
	plotTop    = 12.0
	plotHeight = 200.0
	axisLeft   = 64.0
	plotRight  = width - 12
	legendRow  = 20.0
	charWidth  = 7.0 // a rough width of one character at the charts' font size
	rowHeight  = 22.0
	labelWidth = 260.0 // the ranking's label column
)

// textFont is the font of every text element, as presentation attributes.
const textFont = `font-family="sans-serif" font-size="11" fill="#333"`

// Scale returns the step between the value axis's ticks and its top for a largest
// value of largest: a step of 1, 2 or 5 times a power of ten (at least 1), about four
// steps, and the smallest multiple of it at or above largest (at least one step).
func Scale(largest int64) (step, top int64) {
	step = 1
	if largest > 4 {
		raw := float64(largest) / 4
		pow := math.Pow(10, math.Floor(math.Log10(raw)))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*pow >= raw {
				step = int64(m * pow)
				break
			}
		}
	}
	top = (largest + step - 1) / step * step
	return step, max(top, step)
}

func format(f func(int64) string, v int64) string {
	if f != nil {
		return f(v)
	}
	return strconv.FormatInt(v, 10)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// esc escapes text for SVG inside HTML.
func esc(s string) string { return html.EscapeString(s) }

// open writes the svg element and its title for a chart of height h.
func open(b *strings.Builder, id, title string, h float64) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %s %s" width="100%%" role="img" aria-labelledby="%s-title">`,
		num(width), num(h), esc(id))
	fmt.Fprintf(b, `<title id="%s-title">%s</title>`, esc(id), esc(title))
}

// SVG renders the chart.
func (c Bars) SVG() template.HTML {
	n := len(c.Labels)
	totals := make([]int64, n)
	var largest int64
	for i := range n {
		for _, s := range c.Series {
			if i < len(s.Values) && s.Values[i] > 0 {
				totals[i] += s.Values[i]
			}
		}
		largest = max(largest, totals[i])
	}
	step, top := Scale(largest)
	legendRows := c.legendRows()
	height := plotTop + plotHeight + 24 + float64(len(legendRows))*legendRow + 4
	var b strings.Builder
	open(&b, c.ID, c.Title, height)
	bottom := plotTop + plotHeight
	y := func(v int64) float64 { return bottom - float64(v)/float64(top)*plotHeight }
	// Value axis: a grid line and a label per tick.
	for v := int64(0); v <= top; v += step {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`, num(axisLeft), num(y(v)), num(plotRight), num(y(v)))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" %s>%s</text>`, num(axisLeft-6), num(y(v)+4), textFont, esc(format(c.Format, v)))
	}
	if largest == 0 {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" %s>No data in this period</text>`,
			num((axisLeft+plotRight)/2), num(plotTop+plotHeight/2), textFont)
	}
	if n > 0 {
		band := (plotRight - axisLeft) / float64(n)
		barWidth := band * 0.7
		every := (n + 9) / 10 // at most about ten labels under the axis
		for i, label := range c.Labels {
			x := axisLeft + float64(i)*band + (band-barWidth)/2
			var below int64
			for _, s := range c.Series {
				if i >= len(s.Values) || s.Values[i] <= 0 {
					continue
				}
				v := s.Values[i]
				fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s · %s: %s</title></rect>`,
					num(x), num(y(below+v)), num(barWidth), num(y(below)-y(below+v)), esc(s.Color), esc(label), esc(s.Name), esc(format(c.Format, v)))
				below += v
			}
			if i%every == 0 {
				fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" %s>%s</text>`, num(x+barWidth/2), num(bottom+16), textFont, esc(label))
			}
		}
	}
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#666"/>`, num(axisLeft), num(bottom), num(plotRight), num(bottom))
	// The legend, in rows under the axis.
	for r, row := range legendRows {
		x, ly := axisLeft, bottom+24+float64(r)*legendRow
		for _, s := range row {
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="12" height="12" fill="%s"/>`, num(x), num(ly), esc(s.Color))
			fmt.Fprintf(&b, `<text x="%s" y="%s" %s>%s</text>`, num(x+16), num(ly+10), textFont, esc(s.Name))
			x += legendWidth(s.Name)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it was escaped
}

func legendWidth(name string) float64 { return 16 + float64(len([]rune(name)))*charWidth + 16 }

// legendRows lays the series' legend entries out in rows that fit the width.
func (c Bars) legendRows() [][]Series {
	var rows [][]Series
	x := plotRight + 1 // start a row at once
	for _, s := range c.Series {
		if w := legendWidth(s.Name); x+w > plotRight {
			rows = append(rows, nil)
			x = axisLeft
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], s)
		x += legendWidth(s.Name)
	}
	return rows
}

// SVG renders the chart.
func (c Ranking) SVG() template.HTML {
	var largest int64
	for _, v := range c.Values {
		largest = max(largest, v)
	}
	rows := max(len(c.Labels), 1)
	height := plotTop + float64(rows)*rowHeight + 8
	var b strings.Builder
	open(&b, c.ID, c.Title, height)
	if largest == 0 {
		fmt.Fprintf(&b, `<text x="%s" y="%s" %s>No data in this period</text>`, num(labelWidth), num(plotTop+14), textFont)
	}
	barMax := plotRight - labelWidth - 60 // room for the value after the bar
	for i, label := range c.Labels {
		var v int64
		if i < len(c.Values) {
			v = max(c.Values[i], 0)
		}
		y := plotTop + float64(i)*rowHeight
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" %s>%s</text>`, num(labelWidth-8), num(y+14), textFont, esc(label))
		w := 0.0
		if largest > 0 {
			w = float64(v) / float64(largest) * barMax
		}
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="16" fill="%s"><title>%s: %s</title></rect>`,
			num(labelWidth), num(y+2), num(w), esc(c.Color), esc(label), esc(format(c.Format, v)))
		fmt.Fprintf(&b, `<text x="%s" y="%s" %s>%s</text>`, num(labelWidth+w+6), num(y+14), textFont, esc(format(c.Format, v)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
