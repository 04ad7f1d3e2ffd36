package progress

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// sizeUnits are the binary prefixes the bar shows sizes in, as the rest of
// hpcbench does (1 KiB = 1024 B).
var sizeUnits = [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// formatBytes writes n bytes in the largest unit that keeps the figure at
// 1 or more, with one decimal above bytes: "512 B", "1.5 KiB", "64.0 MiB".
func formatBytes(n float64) string {
	i := 0
	for i < len(sizeUnits)-1 && math.Abs(n) >= 1024 {
		n /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(n, 'f', 0, 64) + " B"
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + sizeUnits[i]
}

// formatCount writes a count of operations: in full below a million, with
// k/M/G after (decimal, as rates of operations are).
func formatCount(n float64) string {
	switch a := math.Abs(n); {
	case a < 1e6:
		return strconv.FormatFloat(n, 'f', 0, 64)
	case a < 1e9:
		return strconv.FormatFloat(n/1e6, 'f', 2, 64) + "M"
	default:
		return strconv.FormatFloat(n/1e9, 'f', 2, 64) + "G"
	}
}

// formatDuration writes d in whole seconds as "7s", "4m05s" or "2h03m07s".
func formatDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
	}
}
