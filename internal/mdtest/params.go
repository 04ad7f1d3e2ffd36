package mdtest

import (
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
	"github.com/hpcbench/hpcbench/report"
)

// params echoes the options that shape a run, under mdtest's option
// letters, for the Result's Params.
func params(o *config.Options) []report.Param {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	ps := []report.Param{
		{Name: "api (-a)", Value: o.Backend.Name},
		{Name: "dirs (-d)", Value: strings.Join(o.Dirs, "@"), Incidental: true}, // where, not what
		{Name: "items (-n)", Value: i(o.Items)},
		{Name: "items per dir (-I)", Value: i(o.ItemsPerDir)},
		{Name: "depth (-z)", Value: i(int64(o.Depth))},
		{Name: "branch (-b)", Value: i(int64(o.Branch))},
		{Name: "leaf only (-L)", Value: b(o.LeafOnly)},
		{Name: "iterations (-i)", Value: i(int64(o.Iterations))},
		{Name: "files only (-F)", Value: b(o.FilesOnly)},
		{Name: "dirs only (-D)", Value: b(o.DirsOnly)},
		{Name: "unique dir (-u)", Value: b(o.UniqueDir)},
		{Name: "shared file (-S)", Value: b(o.SharedFile)},
		{Name: "collective (-c)", Value: b(o.Collective)},
		{Name: "write bytes (-w)", Value: i(o.WriteBytes)},
		{Name: "read bytes (-e)", Value: i(o.ReadBytes)},
		{Name: "stride (-N)", Value: i(int64(o.Stride))},
		{Name: "random stat (-R)", Value: b(o.RandomStat)},
		{Name: "stonewall seconds (-W)", Value: i(int64(o.StonewallSeconds))},
		{Name: "sync (-y)", Value: b(o.Fsync)},
		{Name: "sync phases (-Y)", Value: b(o.SyncPhases)},
		{Name: "verify read (-X)", Value: b(o.VerifyRead)},
		{Name: "verify write", Value: b(o.VerifyWrite)},
	}
	// Only when given, so that the Params of runs without them stay as
	// they were.
	if o.Interval != distribution.DefaultInterval || o.Steady.On() {
		ps = append(ps, report.Param{Name: "interval (--interval)", Value: o.Interval.String(), Incidental: !o.Steady.On()})
	}
	if o.Steady.On() {
		ps = append(ps, report.Param{Name: "until steady (--until-steady)", Value: o.Steady.String()})
	}
	return ps
}
