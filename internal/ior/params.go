package ior

import "github.com/hpcbench/hpcbench/report"

// settingParams turns the rows of an IOR settings table (name, JSON type,
// value; report.IORStringSetting) into the Result's echoed Params: the
// first test's "Parameters", as IOR's JSON echoes them.
func settingParams(rows []report.Row) []report.Param {
	ps := make([]report.Param, 0, len(rows))
	for _, r := range rows {
		if len(r.Labels) == 3 {
			ps = append(ps, report.Param{Name: r.Labels[0], Value: r.Labels[2], Incidental: incidental(r.Labels[0])})
		}
	}
	return ps
}

// incidental reports whether the setting named name says where the run
// was recorded, not what it measured (report.Param.Incidental): the test
// file's name and the platform (the host). Compare matches runs without
// them.
func incidental(name string) bool {
	return name == "testFileName" || name == "platform"
}
