package wireup

import (
	"strconv"
	"testing"
	"time"
)

// TestTotalShortDecimal: the per-rank total is the sum of the phases'
// whole nanoseconds, so the CSV prints it as its short decimal.
func TestTotalShortDecimal(t *testing.T) {
	// One rank's phases as a run measured them (time.Duration.Seconds).
	ns := []time.Duration{5195559, 6494468, 6535384, 117666, 5937069} // summed as floats: 0.024280145999999996
	var times Times
	for i, d := range ns {
		times[i] = d.Seconds()
	}
	r := Result(&Outcome{Size: 1, Ranks: []Times{times}}, Options{CardSize: 64, Pattern: PatternAll, Timeout: time.Minute}, Meta{})
	rows := r.Tables[0].Rows
	last := rows[len(rows)-1]
	if last.Labels[0] != "total" {
		t.Fatalf("last row %q, want total", last.Labels[0])
	}
	if got := strconv.FormatFloat(last.Metrics[0], 'f', -1, 64); got != "0.024280146" {
		t.Errorf("total %s, want 0.010182094", got)
	}
}
