package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"unicode/utf8"
)

// The size of the PNG and SVG charts, in pixels, and their plot area's
// margins: layoutOf widens the area for many bars and the image for long
// series names.
const (
	chartHeight = 520
	areaLeft    = 80
	areaTop     = 50
	areaBottom  = 450
	minArea     = 640 // the plot area's least width
	maxArea     = 1400
	legendGap   = 20 // between the plot area and the legend
	maxLegend   = 70 // characters of a series name the legend shows
	minBar      = 40 // the least width of a bar, room for its figure
	barGroup    = 0.8
)

// layout is where draw puts a chart's parts, in pixels.
type layout struct {
	width int     // of the image
	right float64 // the plot area's right edge (its left is areaLeft)
	// legend is the legend's left edge.
	legend float64
}

// layoutOf returns c's layout: a plot area wide enough for each bar to
// hold its figure, and a legend as wide as its longest name.
func layoutOf(c *Chart) layout {
	area := float64(minArea)
	if c.Categories != nil {
		bars := float64(len(c.Categories) * max(len(c.Series), 1))
		area = min(max(area, bars*minBar/barGroup), maxArea)
	}
	l := layout{right: areaLeft + area}
	l.legend = l.right + legendGap
	names := 0
	for _, s := range c.Series {
		names = max(names, utf8.RuneCountInString(legendName(s.Name)))
	}
	l.width = int(l.legend) + 20 + charWidth*max(names, 10) + 10
	return l
}

// anchor is the horizontal alignment of a text.
type anchor int

const (
	anchorStart anchor = iota
	anchorMiddle
	anchorEnd
)

// pt is a position in pixels, y down.
type pt struct{ x, y float64 }

// canvas is what draw draws on: the PNG and the SVG writer implement it.
type canvas interface {
	// rect fills a rectangle.
	rect(x0, y0, x1, y1 float64, c color.RGBA)
	// stroke draws a polyline of the chart's frame (axes, grid, ticks).
	stroke(pts []pt, c color.RGBA, width float64)
	// line draws series i as a line through pts with a marker on each.
	line(i int, pts []pt, c color.RGBA)
	// bars draws series i as filled rectangles (x0, y0, x1, y1).
	bars(i int, rects [][4]float64, c color.RGBA)
	// text writes s with its baseline at y.
	text(x, y float64, s string, a anchor, c color.RGBA)
}

// Colours of the frame, and of the series in turn (Tableau's ten, which
// stay apart for colour-blind readers).
var (
	black     = color.RGBA{0, 0, 0, 255}
	grey      = color.RGBA{0xdd, 0xdd, 0xdd, 255}
	lightGrey = color.RGBA{0xf0, 0xf0, 0xf0, 255}
	white     = color.RGBA{255, 255, 255, 255}
	palette   = [...]color.RGBA{
		{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255},
		{0xd6, 0x27, 0x28, 255}, {0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255},
		{0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255}, {0xbc, 0xbd, 0x22, 255},
		{0x17, 0xbe, 0xcf, 255},
	}
)

// charWidth and charHeight are the advance and the line height of the
// PNG writer's font.
const (
	charWidth  = 7
	charHeight = 13
)

// legendName returns name, shortened at the front with "..." to
// maxLegend characters (the PNG font has ASCII and Latin-1 only).
func legendName(name string) string {
	r := []rune(name)
	if len(r) <= maxLegend {
		return name
	}
	return "..." + string(r[len(r)-maxLegend+3:])
}

// seriesColor returns the colour of series i.
func seriesColor(i int) color.RGBA { return palette[i%len(palette)] }

// draw lays c out on cv: title, grid, axes with ticks and titles, the
// series, and a legend on the right.
func draw(cv canvas, c *Chart) {
	l := layoutOf(c)
	cv.rect(0, 0, float64(l.width), chartHeight, white)
	cv.text(float64(l.width)/2, 25, c.Title, anchorMiddle, black)
	xmin, xmax, ymin, ymax := c.bounds()
	xs, ys := span{xmin, xmax, c.X.Scale}, span{ymin, ymax, c.Y.Scale}
	var xt []tick
	switch {
	case c.Categories != nil:
		xs.scale = Linear
		for i, name := range c.Categories {
			xt = append(xt, tick{float64(i), name})
		}
	case c.X.Scale == Log2:
		xt = xs.ticks(int((l.right - areaLeft) / 50)) // "512 KiB" and room
	default:
		xt = xs.ticks(int((l.right - areaLeft) / 65))
	}
	yt := ys.ticks(9)
	if c.Y.Scale != Linear {
		yt = ys.ticks((areaBottom - areaTop) / 20)
	}
	px := func(v float64) float64 { return areaLeft + xs.at(v)*(l.right-areaLeft) }
	py := func(v float64) float64 { return areaBottom - ys.at(v)*(areaBottom-areaTop) }

	for _, t := range yt {
		y := py(t.v)
		if t.minor() {
			cv.stroke([]pt{{areaLeft, y}, {l.right, y}}, lightGrey, 1)
			cv.stroke([]pt{{areaLeft - 3, y}, {areaLeft, y}}, black, 1)
			continue
		}
		cv.stroke([]pt{{areaLeft, y}, {l.right, y}}, grey, 1)
		cv.stroke([]pt{{areaLeft - 5, y}, {areaLeft, y}}, black, 1)
		cv.text(areaLeft-8, y+4, t.label, anchorEnd, black)
	}
	for _, t := range xt {
		x := px(t.v)
		if t.minor() {
			cv.stroke([]pt{{x, areaTop}, {x, areaBottom}}, lightGrey, 1)
			cv.stroke([]pt{{x, areaBottom}, {x, areaBottom + 3}}, black, 1)
			continue
		}
		if c.Categories == nil {
			cv.stroke([]pt{{x, areaTop}, {x, areaBottom}}, grey, 1)
		}
		cv.stroke([]pt{{x, areaBottom}, {x, areaBottom + 5}}, black, 1)
		lines := []string{t.label}
		if c.Categories != nil && charWidth*len(t.label) > int(l.right-areaLeft)/len(c.Categories) {
			lines = strings.Fields(t.label) // one word a line where a phase's name is wider than its bars
		}
		for k, ln := range lines {
			cv.text(x, areaBottom+19+13*float64(k), ln, anchorMiddle, black)
		}
	}
	cv.stroke([]pt{{areaLeft, areaTop}, {areaLeft, areaBottom}, {l.right, areaBottom}}, black, 1)
	cv.text((areaLeft+l.right)/2, areaBottom+58, c.X.Title()+scaleNote(c.X.Scale, c.Categories), anchorMiddle, black)
	cv.text(areaLeft-8, areaTop-12, c.Y.Title()+scaleNote(c.Y.Scale, nil), anchorStart, black)

	if c.Categories != nil {
		drawBars(cv, c, px, py, ys)
	} else {
		for i, s := range c.Series {
			pts := make([]pt, len(s.Points))
			for j, p := range s.Points {
				pts[j] = pt{px(p.X), py(p.Y)}
			}
			cv.line(i, pts, seriesColor(i))
		}
		drawClipped(cv, c, px, l, ys.hi)
	}
	drawLegend(cv, c, l)
}

// drawLegend lists c's series on the right of the plot area, as many as
// the image has room for and a count of the others.
func drawLegend(cv canvas, c *Chart, l layout) {
	fit := (chartHeight - areaTop - 20) / 20
	for i, s := range c.Series {
		y := float64(areaTop + 8 + 20*i)
		if i == fit-1 && len(c.Series) > fit {
			cv.text(l.legend, y+4, fmt.Sprintf("... and %d more", len(c.Series)-i), anchorStart, black)
			break
		}
		cv.rect(l.legend, y-6, l.legend+14, y+4, seriesColor(i))
		cv.text(l.legend+20, y+4, legendName(s.Name), anchorStart, black)
	}
}

// drawClipped writes, under the top edge of the plot area, the figure of
// each point above top (Chart.Clip), in its series' colour, one under
// the other where they are close.
func drawClipped(cv canvas, c *Chart, px func(float64) float64, l layout, top float64) {
	var placed []float64 // the x of the figures written
	for i, s := range c.Series {
		for _, p := range s.Points {
			if p.Y <= top {
				continue
			}
			x, a := px(p.X)+6, anchorStart
			if x > l.right-60 {
				x, a = px(p.X)-6, anchorEnd
			}
			near := 0
			for _, at := range placed {
				if math.Abs(at-x) < 60 {
					near++
				}
			}
			placed = append(placed, x)
			cv.text(x, areaTop+12+charHeight*float64(near), "^ "+barValue(p.Y), a, seriesColor(i))
		}
	}
}

// drawBars draws a bar chart: in each category, one bar per series side
// by side, each with its figure above it. On a log axis the bars rise
// from its bottom.
func drawBars(cv canvas, c *Chart, px, py func(float64) float64, ys span) {
	group := (px(1) - px(0)) * barGroup
	w := group / float64(len(c.Series))
	base := py(ys.lo)
	if ys.scale == Linear {
		base = py(0)
	}
	for i, s := range c.Series {
		rects := make([][4]float64, 0, len(s.Points))
		for _, p := range s.Points {
			x0 := px(p.X) - group/2 + float64(i)*w
			rects = append(rects, [4]float64{x0, py(p.Y), x0 + w - 1, base})
		}
		cv.bars(i, rects, seriesColor(i))
		for j, p := range s.Points {
			label := shortFigure(p.Y)
			if float64(charWidth*len(label)) > w-4 {
				label = figureDigits(p.Y, 2)
			}
			if float64(charWidth*len(label)) > w-4 {
				continue // no room: the terminal chart and the archive have it
			}
			r := rects[j]
			cv.text((r[0]+r[2])/2, math.Min(r[1], base)-4, label, anchorMiddle, black)
		}
	}
}

// scaleNote says that an axis is logarithmic.
func scaleNote(s Scale, categories []string) string {
	if categories != nil {
		return ""
	}
	switch s {
	case Log2:
		return ", log 2"
	case Log10:
		return ", log 10"
	}
	return ""
}

// fmtPx formats a pixel position for the SVG writer.
func fmtPx(v float64) string { return fmt.Sprintf("%.1f", v) }
