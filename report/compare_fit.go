package report

import "strings"

// Fitting the human view of a comparison to a terminal's width: columns
// are left out, then cells shortened, never a row wrapped; sentences and
// lists break between words or items.

// minCell is the fewest columns a shortened cell keeps, its "…" included.
const minCell = 10

// columnFit says how a table of cells fits a width: which columns it
// shows and the most columns each shown cell may take (0: no limit).
type columnFit struct {
	keep  []bool
	limit []int
}

// fitStep is one step of fitting a table to a width: leave out the
// columns drop, or shorten the columns a fit may shorten to at most
// shrinkTo.
type fitStep struct {
	drop     []int
	shrinkTo int
}

// fitColumns fits a table whose columns are at most widths wide, two
// spaces apart, to width (0: no limit). It takes the steps in turn, as
// long as the table is too wide: leaving out columns, or shortening the
// columns of shrink, the widest first, down to a step's shrinkTo. Columns
// shortened more than the width needs in the end get the room back. A
// table that still does not fit is shown as it then is.
func fitColumns(widths []int, width int, steps []fitStep, shrink []int) columnFit {
	f := columnFit{keep: make([]bool, len(widths)), limit: make([]int, len(widths))}
	for i := range f.keep {
		f.keep[i] = true
	}
	cur := append([]int(nil), widths...)
	total := func() int {
		n, cols := 0, 0
		for i, w := range cur {
			if f.keep[i] {
				n += w
				cols++
			}
		}
		return n + 2*max(0, cols-1)
	}
	if width <= 0 {
		return f
	}
	for _, st := range steps {
		if total() <= width {
			break
		}
		for _, i := range st.drop {
			f.keep[i] = false
		}
		for st.shrinkTo > 0 && total() > width {
			widest := -1
			for _, i := range shrink {
				if f.keep[i] && cur[i] > st.shrinkTo && (widest < 0 || cur[i] > cur[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			cur[widest] = max(st.shrinkTo, cur[widest]-(total()-width))
		}
	}
	for _, i := range shrink {
		if spare := width - total(); spare > 0 && cur[i] < widths[i] {
			cur[i] = min(widths[i], cur[i]+spare)
		}
		if cur[i] < widths[i] {
			f.limit[i] = cur[i]
		}
	}
	return f
}

// shorten returns s cut to at most n columns, "…" marking the cut; n 0 is
// no limit.
func shorten(s string, n int) string {
	r := []rune(s)
	if n <= 0 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// wrapItems writes items, sep between them, as lines of at most width
// columns (0: no limit): the first line starts with first, the others
// with indent, and a line breaks only between items, after the sep's
// punctuation. sep is punctuation then one space (", ") or a space.
func wrapItems(first, indent string, items []string, sep string, width int) string {
	var b strings.Builder
	punct := strings.TrimSuffix(sep, " ")
	line, fresh := first, true
	for i, it := range items {
		if i < len(items)-1 {
			it += punct
		}
		switch {
		case fresh:
			line += it
		case width > 0 && displayWidth(line)+1+displayWidth(it) > width:
			b.WriteString(line + "\n")
			line = indent + it
		default:
			line += " " + it
		}
		fresh = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// wrapWords writes the sentence s as lines of at most width columns, the
// lines after the first indented by indent.
func wrapWords(s, indent string, width int) string {
	return wrapItems("", indent, strings.Split(s, " "), " ", width)
}
