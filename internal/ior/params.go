package ior

import "github.com/hpcbench/hpcbench/report"

// settingParams turns the rows of an IOR settings table (name, JSON type,
// value; report.IORStringSetting) into the Result's echoed Params: the
// first test's "Parameters", as IOR's JSON echoes them.
func settingParams(rows []report.Row) []report.Param {
	ps := make([]report.Param, 0, len(rows))
	for _, r := range rows {
		if len(r.Labels) == 3 {
			ps = append(ps, report.Param{Name: r.Labels[0], Value: r.Labels[2]})
		}
	}
	return ps
}
