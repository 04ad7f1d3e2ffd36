package plot

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"strings"
)

// WriteSVG draws c as an SVG document of the size WritePNG draws. Each series is one <path class="series"> element (its line, or
// its bars as subpaths), so that tools can find them.
func WriteSVG(w io.Writer, c *Chart) error {
	if err := c.validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"+
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\">\n",
		layoutOf(c).width, chartHeight, layoutOf(c).width, chartHeight)
	draw(&svgCanvas{w: bw}, c)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// svgCanvas is a canvas that writes SVG elements.
type svgCanvas struct{ w *bufio.Writer }

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (s *svgCanvas) rect(x0, y0, x1, y1 float64, c color.RGBA) {
	fmt.Fprintf(s.w, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"/>\n",
		fmtPx(min(x0, x1)), fmtPx(min(y0, y1)), fmtPx(max(x0, x1)-min(x0, x1)), fmtPx(max(y0, y1)-min(y0, y1)), hexColor(c))
}

// pathData returns the "M x y L x y ..." of a polyline.
func pathData(pts []pt) string {
	var b strings.Builder
	for i, p := range pts {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString(" L")
		}
		b.WriteString(fmtPx(p.x) + " " + fmtPx(p.y))
	}
	return b.String()
}

func (s *svgCanvas) stroke(pts []pt, c color.RGBA, width float64) {
	fmt.Fprintf(s.w, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%g\"/>\n", pathData(pts), hexColor(c), width)
}

func (s *svgCanvas) line(i int, pts []pt, c color.RGBA) {
	fmt.Fprintf(s.w, "<path class=\"series\" data-series=\"%d\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		i, pathData(pts), hexColor(c))
	for _, p := range pts {
		s.rect(p.x-3, p.y-3, p.x+3, p.y+3, c)
	}
}

func (s *svgCanvas) bars(i int, rects [][4]float64, c color.RGBA) {
	var b strings.Builder
	for _, r := range rects {
		fmt.Fprintf(&b, "M%s %s H%s V%s H%s Z ", fmtPx(r[0]), fmtPx(r[1]), fmtPx(r[2]), fmtPx(r[3]), fmtPx(r[0]))
	}
	fmt.Fprintf(s.w, "<path class=\"series\" data-series=\"%d\" d=\"%s\" fill=\"%s\"/>\n", i, strings.TrimSpace(b.String()), hexColor(c))
}

func (s *svgCanvas) text(x, y float64, str string, a anchor, c color.RGBA) {
	anchors := [...]string{"start", "middle", "end"}
	fmt.Fprintf(s.w, "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" fill=\"%s\">", fmtPx(x), fmtPx(y), anchors[a], hexColor(c))
	s.w.WriteString(escapeXML(str))
	s.w.WriteString("</text>\n")
}

// escapeXML returns s with the characters XML text cannot hold as they are
// written as entities, and control characters, which XML 1.0 refuses, as
// '?'. (It is not encoding/xml's EscapeText, so that the binary does not
// link encoding/xml and run its init in every process.)
func escapeXML(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r < 0x20 || r == 0x7f || r == 0xfffd:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
