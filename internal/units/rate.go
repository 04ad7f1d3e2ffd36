package units

import "math"

// MiBPerSec returns the bandwidth of moving bytes in seconds, in MiB/s (2^20
// bytes per second, IOR's bw(MiB/s)). It returns NaN, the report package's
// "not measured", when seconds is not positive.
func MiBPerSec(bytes int64, seconds float64) float64 {
	if !(seconds > 0) {
		return math.NaN()
	}
	return float64(bytes) / float64(MiB) / seconds
}
