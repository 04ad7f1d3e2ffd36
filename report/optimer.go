package report

import (
	"math"
	"strconv"
)

// OpTimeHeader is the first line of IOR's and mdtest's per-operation CSV
// files (-O savePerOpDataCSV, --savePerOpDataCSV).
const OpTimeHeader = "time,runtime,tp\n"

// AppendOpTime appends one row of those files to b as their OpTimer
// prints it ("%.8e,%.8e,%e\n"): the operation's start in seconds since
// the file's zero, its runtime, and size bytes over the runtime (C's "inf"
// for a runtime too short for the clock).
func AppendOpTime(b []byte, at, dur, size float64) []byte {
	b = strconv.AppendFloat(b, at, 'e', 8, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, dur, 'e', 8, 64)
	b = append(b, ',')
	if tp := size / dur; math.IsInf(tp, 1) {
		b = append(b, "inf"...)
	} else {
		b = strconv.AppendFloat(b, tp, 'e', 6, 64)
	}
	return append(b, '\n')
}
