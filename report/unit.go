package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/units"
)

// unitFamily groups units that convert into each other by a constant factor.
type unitFamily int

const (
	familyNone unitFamily = iota
	familyTime
	familyBytes
)

// unitFactor returns the size of unit in its family's base unit (seconds or
// bytes) and the family; familyNone for a unit that does not convert.
func unitFactor(unit string) (float64, unitFamily) {
	switch unit {
	case "s":
		return 1, familyTime
	case "ms":
		return 1e-3, familyTime
	case "us":
		return 1e-6, familyTime
	case "ns":
		return 1e-9, familyTime
	case "B":
		return 1, familyBytes
	case "KiB":
		return float64(units.KiB), familyBytes
	case "MiB":
		return float64(units.MiB), familyBytes
	case "GiB":
		return float64(units.GiB), familyBytes
	case "TiB":
		return float64(units.TiB), familyBytes
	case "kB":
		return 1e3, familyBytes
	case "MB":
		return 1e6, familyBytes
	case "GB":
		return 1e9, familyBytes
	case "TB":
		return 1e12, familyBytes
	}
	return 0, familyNone
}

// displayScale returns the factor that converts a value in unit to display,
// and whether the two convert at all. Equal units always convert (factor 1);
// otherwise both must be times, sizes, or sizes per second.
func displayScale(unit, display string) (float64, bool) {
	if display == "" || display == unit {
		return 1, true
	}
	from, to := unit, display
	fromRate, toRate := strings.HasSuffix(from, "/s"), strings.HasSuffix(to, "/s")
	if fromRate != toRate {
		return 0, false
	}
	if fromRate {
		from, to = strings.TrimSuffix(from, "/s"), strings.TrimSuffix(to, "/s")
	}
	ff, fromFam := unitFactor(from)
	tf, toFam := unitFactor(to)
	if fromFam == familyNone || fromFam != toFam || (fromRate && fromFam != familyBytes) {
		return 0, false
	}
	return ff / tf, true
}

// displayUnit returns the unit c's values are shown in by the text writer.
func (c Column) displayUnit() string {
	if c.Display != "" {
		return c.Display
	}
	return c.Unit
}

// precision returns the number of decimals the text writer uses for a
// column shown in unit whose display values are vals. The rule, fixed per
// column so that digits line up and golden files stay stable:
//
//	s 6, ms 3, us 2, ns 0          (seconds as IOR, microseconds as IMB)
//	KiB MiB GiB TiB kB MB GB TB 2  and the same per second
//	other rates (ops/s, ...) 3     (as mdtest)
//	%  2
//	B, a count ("") or any other unit: 0 when every value is whole, else 3
func precision(unit string, vals []float64) int {
	switch unit {
	case "s":
		return 6
	case "ms":
		return 3
	case "us":
		return 2
	case "ns":
		return 0
	case "%":
		return 2
	}
	base := strings.TrimSuffix(unit, "/s")
	if _, fam := unitFactor(base); fam == familyBytes && base != "B" {
		return 2
	}
	if strings.HasSuffix(unit, "/s") {
		if base == "B" {
			return 2
		}
		return 3
	}
	for _, v := range vals {
		if !math.IsNaN(v) && v != math.Trunc(v) {
			return 3
		}
	}
	return 0
}

// formatDisplay formats v with prec decimals, "-" for NaN, and without the
// sign of a value that rounds to zero.
func formatDisplay(v float64, prec int) string {
	if math.IsNaN(v) {
		return "-"
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:]
	}
	return s
}

// heading returns a column's heading in a rendering whose values are in
// unit: the name, then the unit in parentheses as IOR writes "bw(MiB/s)",
// said once. A name that states its own unit keeps it when it is unit
// ("Mean(s)", "MB/sec" for MB/s) and gets unit instead when it is not
// (IOR's "Mean(s)" in ms is "Mean(ms)"; fabtests' "usec/xfer" in seconds
// is "sec/xfer").
func heading(name, unit string) string {
	if unit == "" {
		return name
	}
	if i := strings.LastIndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		name = name[:i] // its own unit, replaced by unit
	}
	if n := strings.ReplaceAll(name, "/sec", "/s"); n == unit || strings.HasSuffix(n, " "+unit) {
		return name // "MB/sec", "min MB/sec": the unit itself
	}
	for word, u := range map[string]string{"usec/": "us", "sec/": "s"} {
		if rest, ok := strings.CutPrefix(name, word); ok {
			if u == unit {
				return name
			}
			if unit == "s" {
				return "sec/" + rest
			}
			return unit + "/" + rest
		}
	}
	return name + "(" + unit + ")"
}
