package plot

import (
	"fmt"
	"image/color"
	"strings"
	"unicode/utf8"
)

// The size of the PNG and SVG charts, in pixels (chartWidth widens them
// for long series names), and the plot area's box.
const (
	minWidth    = 900
	maxWidth    = 1600
	chartHeight = 520
	areaLeft    = 80
	areaRight   = 660
	areaTop     = 50
	areaBottom  = 450
	legendLeft  = 680
)

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
	black   = color.RGBA{0, 0, 0, 255}
	grey    = color.RGBA{0xdd, 0xdd, 0xdd, 255}
	white   = color.RGBA{255, 255, 255, 255}
	palette = [...]color.RGBA{
		{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255},
		{0xd6, 0x27, 0x28, 255}, {0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255},
		{0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255}, {0xbc, 0xbd, 0x22, 255},
		{0x17, 0xbe, 0xcf, 255},
	}
)

// chartWidth returns the width of c's image: wide enough for the legend's
// longest name, up to maxWidth (legendName shortens longer ones).
func chartWidth(c *Chart) int {
	w := minWidth
	for _, s := range c.Series {
		w = max(w, legendLeft+20+charWidth*utf8.RuneCountInString(s.Name)+10)
	}
	return min(w, maxWidth)
}

// charWidth is the advance of the PNG writer's font.
const charWidth = 7

// legendName returns name, shortened at the front with "..." to fit in
// the widest image (the PNG font has ASCII and Latin-1 only).
func legendName(name string) string {
	room := (maxWidth - legendLeft - 30) / charWidth
	r := []rune(name)
	if len(r) <= room {
		return name
	}
	return "..." + string(r[len(r)-room+3:])
}

// seriesColor returns the colour of series i.
func seriesColor(i int) color.RGBA { return palette[i%len(palette)] }

// draw lays c out on cv: title, grid, axes with ticks and titles, the
// series, and a legend on the right.
func draw(cv canvas, c *Chart) {
	cv.rect(0, 0, float64(chartWidth(c)), chartHeight, white)
	cv.text(float64(chartWidth(c))/2, 25, c.Title, anchorMiddle, black)
	xmin, xmax, ymin, ymax := c.bounds()
	xs, ys := span{xmin, xmax, c.X.Scale}, span{ymin, ymax, c.Y.Scale}
	var xt []tick
	if c.Categories == nil {
		xt = xs.ticks(9)
	} else {
		xs.scale = Linear
		for i, name := range c.Categories {
			xt = append(xt, tick{float64(i), name})
		}
	}
	yt := ys.ticks(6)
	px := func(v float64) float64 { return areaLeft + xs.at(v)*(areaRight-areaLeft) }
	py := func(v float64) float64 { return areaBottom - ys.at(v)*(areaBottom-areaTop) }

	for _, t := range yt {
		y := py(t.v)
		cv.stroke([]pt{{areaLeft, y}, {areaRight, y}}, grey, 1)
		cv.stroke([]pt{{areaLeft - 5, y}, {areaLeft, y}}, black, 1)
		cv.text(areaLeft-8, y+4, t.label, anchorEnd, black)
	}
	for _, t := range xt {
		x := px(t.v)
		if c.Categories == nil {
			cv.stroke([]pt{{x, areaTop}, {x, areaBottom}}, grey, 1)
		}
		cv.stroke([]pt{{x, areaBottom}, {x, areaBottom + 5}}, black, 1)
		lines := []string{t.label}
		if c.Categories != nil && charWidth*len(t.label) > (areaRight-areaLeft)/len(c.Categories) {
			lines = strings.Fields(t.label) // one word a line where a phase's name is wider than its bars
		}
		for k, l := range lines {
			cv.text(x, areaBottom+19+13*float64(k), l, anchorMiddle, black)
		}
	}
	cv.stroke([]pt{{areaLeft, areaTop}, {areaLeft, areaBottom}, {areaRight, areaBottom}}, black, 1)
	cv.text((areaLeft+areaRight)/2, areaBottom+58, c.X.Title()+scaleNote(c.X.Scale, c.Categories), anchorMiddle, black)
	cv.text(areaLeft-8, areaTop-12, c.Y.Title()+scaleNote(c.Y.Scale, nil), anchorStart, black)

	if c.Categories != nil {
		drawBars(cv, c, px, py)
	} else {
		for i, s := range c.Series {
			pts := make([]pt, len(s.Points))
			for j, p := range s.Points {
				pts[j] = pt{px(p.X), py(p.Y)}
			}
			cv.line(i, pts, seriesColor(i))
		}
	}
	fit := (chartHeight - areaTop - 20) / 20 // legend lines the image has room for
	for i, s := range c.Series {
		y := float64(areaTop + 8 + 20*i)
		if i == fit-1 && len(c.Series) > fit {
			cv.text(legendLeft, y+4, fmt.Sprintf("... and %d more", len(c.Series)-i), anchorStart, black)
			break
		}
		cv.rect(legendLeft, y-6, legendLeft+14, y+4, seriesColor(i))
		cv.text(legendLeft+20, y+4, legendName(s.Name), anchorStart, black)
	}
}

// drawBars draws a bar chart: in each category, one bar per series side
// by side.
func drawBars(cv canvas, c *Chart, px, py func(float64) float64) {
	group := (px(1) - px(0)) * 0.8
	w := group / float64(len(c.Series))
	base := py(0) // a bar chart's y axis starts at 0 (Chart.bounds)
	for i, s := range c.Series {
		rects := make([][4]float64, 0, len(s.Points))
		for _, p := range s.Points {
			x0 := px(p.X) - group/2 + float64(i)*w
			rects = append(rects, [4]float64{x0, py(p.Y), x0 + w - 1, base})
		}
		cv.bars(i, rects, seriesColor(i))
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
