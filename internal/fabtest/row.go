package fabtest

import "math"

// Row is one size's outcome, as the initiator measured it and the
// responder counted it; both ends of a run hold the same rows.
type Row struct {
	// Size is the transfer size in bytes.
	Size int `json:"size"`
	// Sent is the timed messages the initiator sent (fabtests' #sent; for
	// the ping-pong, its iterations).
	Sent int64 `json:"sent"`
	// Acked is the timed messages the responder received (fabtests'
	// #ack); it equals Sent unless messages were lost.
	Acked int64 `json:"acked"`
	// Xfers is the transfers the time is divided by: two per ping-pong
	// iteration (one each way), one per bandwidth-test message.
	Xfers int64 `json:"xfers"`
	// Bytes is every byte the timed transfers moved, both ways.
	Bytes int64 `json:"bytes"`
	// Seconds is the timed run's wall-clock time.
	Seconds float64 `json:"seconds"`
	// P50, P99 and Max are percentiles of the time of one transfer, in
	// seconds, from every timed iteration (a ping-pong's round trip
	// halved, a bandwidth window divided by its messages).
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
	// Intervals is duration mode's bandwidth of every reporting interval
	// (the last one over its own length, when it is at least half an
	// interval), 10^6 bytes per second; empty otherwise.
	Intervals []float64 `json:"intervals,omitempty"`
	// Defects is how many received messages did not hold what was sent
	// (with Check; the two ends' counts summed).
	Defects int64 `json:"defects,omitempty"`
}

// MBps is the bandwidth in 10^6 bytes per second, as fabtests' MB/sec.
func (r *Row) MBps() float64 { return ratio(float64(r.Bytes), r.Seconds*1e6) }

// USecPerXfer is the mean time of one transfer in microseconds (for the
// ping-pong, the one-way latency).
func (r *Row) USecPerXfer() float64 { return ratio(r.Seconds*1e6, float64(r.Xfers)) }

// MXfersPerSec is transfers per microsecond, as fabtests' Mxfers/sec.
func (r *Row) MXfersPerSec() float64 { return ratio(float64(r.Xfers), r.Seconds*1e6) }

// MinMBps is the least bandwidth of a reporting interval (Intervals) in
// duration mode, NaN otherwise.
func (r *Row) MinMBps() float64 {
	if len(r.Intervals) == 0 {
		return math.NaN()
	}
	m := r.Intervals[0]
	for _, v := range r.Intervals[1:] {
		m = min(m, v)
	}
	return m
}

// ratio is a/b, NaN when b is not positive.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return a / b
}
