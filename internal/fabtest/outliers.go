package fabtest

import (
	"fmt"
	"math"
	"slices"

	"github.com/hpcbench/hpcbench/report"
)

// LinkFigures is one pair's figures in an all-pairs run.
type LinkFigures struct {
	A, B string  // the endpoints' names
	Lat  float64 // one-way latency, seconds (ping-pong usec/xfer)
	BW   float64 // bandwidth, 10^6 bytes per second
}

// The rule for an outlier: further from the population's median than
// madFactor robust standard deviations (1.4826 MAD each) of the figures'
// logarithms, and by more than the ratio. Bandwidths and latencies spread
// by factors, not by amounts (a loaded host halves some links and doubles
// others), so the test is on logarithms: on the figures themselves a wide
// spread puts the low threshold below zero and no slow link is ever found.
// The ratio keeps a tight population from naming links that differ by a
// few percent; for latency it is 2: microsecond latencies on a shared
// host spread by half again from run to run (1.45x the median on one of
// three links between namespace hosts on a loaded 2-core machine, where
// the MAD of three links is no guard), and a link worth a user's look
// (a bad cable, a wrong route) is several times slower.
const (
	madFactor   = 3
	madScale    = 1.4826
	slowBWRatio = 0.8 // bandwidth below 0.8x the median
	slowLatRate = 2   // latency above 2x the median
)

// spread is a population's median and the MAD of its logarithms.
type spread struct{ median, logMedian, logMAD float64 }

func spreadOf(v []float64) spread {
	logs := make([]float64, len(v))
	for i, x := range v {
		logs[i] = math.Log(x) // NaN or -Inf for figures that are not positive: see lowOutlier
	}
	s, l := report.Summarize(v), report.Summarize(logs)
	return spread{s.P50, l.P50, l.MAD}
}

// lowOutlier reports whether v is below the population s by the rule.
func lowOutlier(v float64, s spread) bool {
	return v < s.median*slowBWRatio && math.Log(v) < s.logMedian-madFactor*madScale*s.logMAD
}

// highOutlier reports whether v is above the population s by the rule.
func highOutlier(v float64, s spread) bool {
	return v > s.median*slowLatRate && math.Log(v) > s.logMedian+madFactor*madScale*s.logMAD
}

// Outliers names, one line each, the links whose bandwidth is low or
// latency high against all links' (median and MAD), and, among three or
// more endpoints, the endpoints whose median over their own links is so
// against the other endpoints': a slow host slows all its links, a bad
// cable one. Links come first, slowest first; then endpoints.
func Outliers(links []LinkFigures) []string {
	var out []string
	bws, lats := make([]float64, len(links)), make([]float64, len(links))
	for i, l := range links {
		bws[i], lats[i] = l.BW, l.Lat
	}
	bw, lat := spreadOf(bws), spreadOf(lats)
	order := make([]int, len(links))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmpFloat(links[i].BW, links[j].BW) })
	for _, i := range order {
		l := links[i]
		if lowOutlier(l.BW, bw) {
			out = append(out, fmt.Sprintf("slow link: %s <-> %s: %s, %.2fx the median %s", l.A, l.B, rate(l.BW), l.BW/bw.median, rate(bw.median)))
		}
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmpFloat(links[j].Lat, links[i].Lat) })
	for _, i := range order {
		l := links[i]
		if highOutlier(l.Lat, lat) {
			out = append(out, fmt.Sprintf("slow link latency: %s <-> %s: %.2f us, %.2fx the median %.2f us", l.A, l.B, l.Lat*1e6, l.Lat/lat.median, lat.median*1e6))
		}
	}
	// Each endpoint's median over its links.
	var names []string
	byName := map[string][]int{}
	for i, l := range links {
		for _, n := range []string{l.A, l.B} {
			if _, ok := byName[n]; !ok {
				names = append(names, n)
			}
			byName[n] = append(byName[n], i)
		}
	}
	if len(names) < 3 {
		return out
	}
	epBW, epLat := make([]float64, len(names)), make([]float64, len(names))
	for k, n := range names {
		var b, t []float64
		for _, i := range byName[n] {
			b, t = append(b, links[i].BW), append(t, links[i].Lat)
		}
		epBW[k], epLat[k] = report.Summarize(b).P50, report.Summarize(t).P50
	}
	ebw, elat := spreadOf(epBW), spreadOf(epLat)
	for k, n := range names {
		switch {
		case lowOutlier(epBW[k], ebw):
			out = append(out, fmt.Sprintf("slow host: %s: a median of %s over its %d links, %.2fx the hosts' median %s", n, rate(epBW[k]), len(byName[n]), epBW[k]/ebw.median, rate(ebw.median)))
		case highOutlier(epLat[k], elat):
			out = append(out, fmt.Sprintf("slow host latency: %s: a median of %.2f us over its %d links, %.2fx the hosts' median %.2f us", n, epLat[k]*1e6, len(byName[n]), epLat[k]/elat.median, elat.median*1e6))
		}
	}
	return out
}

// rate formats a bandwidth in 10^6 B/s as GB/s or MB/s.
func rate(mbps float64) string {
	if mbps >= 1000 {
		return fmt.Sprintf("%.2f GB/s", mbps/1000)
	}
	return fmt.Sprintf("%.1f MB/s", mbps)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b || (math.IsNaN(a) && !math.IsNaN(b)):
		return -1
	case a > b || (math.IsNaN(b) && !math.IsNaN(a)):
		return 1
	}
	return 0
}
