package plot

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// WritePNG draws c as a PNG image 520 pixels high and about 900 wide:
// wider for many bars or a legend of long names.
func WritePNG(w io.Writer, c *Chart) error {
	if err := c.validate(); err != nil {
		return err
	}
	r := &raster{img: image.NewRGBA(image.Rect(0, 0, layoutOf(c).width, chartHeight))}
	draw(r, c)
	return png.Encode(w, r.img)
}

// raster is a canvas on an RGBA image.
type raster struct{ img *image.RGBA }

func (r *raster) rect(x0, y0, x1, y1 float64, c color.RGBA) {
	b := image.Rect(int(math.Round(math.Min(x0, x1))), int(math.Round(math.Min(y0, y1))),
		int(math.Round(math.Max(x0, x1))), int(math.Round(math.Max(y0, y1)))).Intersect(r.img.Rect)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r.img.SetRGBA(x, y, c)
		}
	}
}

func (r *raster) stroke(pts []pt, c color.RGBA, width float64) {
	for i := 1; i < len(pts); i++ {
		r.segment(pts[i-1], pts[i], c, width)
	}
}

// segment draws a line of the given width from a to b by stamping squares
// along it.
func (r *raster) segment(a, b pt, c color.RGBA, width float64) {
	n := int(math.Ceil(2*math.Hypot(b.x-a.x, b.y-a.y))) + 1
	h := width / 2
	for k := 0; k <= n; k++ {
		f := float64(k) / float64(n)
		x, y := a.x+f*(b.x-a.x), a.y+f*(b.y-a.y)
		r.rect(x-h, y-h, x+h, y+h, c)
	}
}

func (r *raster) line(_ int, pts []pt, c color.RGBA) {
	r.stroke(pts, c, 2)
	for _, p := range pts {
		r.rect(p.x-3, p.y-3, p.x+3, p.y+3, c)
	}
}

func (r *raster) bars(_ int, rects [][4]float64, c color.RGBA) {
	for _, b := range rects {
		r.rect(b[0], b[1], b[2], b[3], c)
	}
}

func (r *raster) text(x, y float64, s string, a anchor, c color.RGBA) {
	face := basicfont.Face7x13
	d := font.Drawer{Dst: r.img, Src: image.NewUniform(c), Face: face}
	width := float64(d.MeasureString(s).Ceil())
	switch a {
	case anchorMiddle:
		x -= width / 2
	case anchorEnd:
		x -= width
	}
	d.Dot = fixed.P(int(math.Round(x)), int(math.Round(y)))
	d.DrawString(s)
}
