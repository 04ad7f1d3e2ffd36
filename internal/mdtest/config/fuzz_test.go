package config

import (
	"strings"
	"testing"
)

// FuzzParse checks that no command line makes Parse panic, that errors are
// one line, and that what it accepts validates, has a consistent Layout
// and phases in order, and resolves without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"-a\x00POSIX\x00-n\x002000\x00-i\x002\x00-d\x00md",
		"-n\x002000\x00-F\x00-w\x004096\x00-e\x004096\x00-i\x002\x00-P\x00--showRankStatistics",
		"-n\x0010\x00-I\x005\x00-z\x002\x00-b\x003\x00-L",
		"-I10\x00-z2\x00-b2\x00-u\x00-d\x00a@b@c",
		"-n100\x00-FCTEr\x00-vv\x00-V=3\x00-R=7\x00--random-seed\x009",
		"-n\x001000000\x00-u\x00-L\x00-F\x00-P\x00-G\x001234\x00-N\x001\x00-x\x00sw\x00-C\x00-Y\x00-W\x00300",
		"-n\x0010\x00--format\x00json\x00--output\x00r.csv\x00--warningAsErrors",
		"-n\x0010\x00-a\x00MMAP",
		"-n\x0010\x00-a\x00FAKE\x00--fake.x=0",
		"-n\x0010\x00-I\x003",
		"-n\x0010\x00-B",
		"-n\x0010\x00-R5",
		"-n\x001.5k",
		"-n\x00-F",
		"-h",
		"---\x00-\x00--\x00x",
		"-d\x00a@@b",
		"-n\x0010\x00-U\x00-F",
		"-n\x0010\x00-z\x0070\x00-b\x002",
		"-I\x008p\x00-z\x0010\x00-b\x0010",
		"-a\x00POSIX\x00-W\x002\x00-V=4",
		"-FCTrn\x0030\x00-z=1\x00-b=2",
		"-uF=1\x00-n=30\x00-aDUMMY\x00-D\x00-aDUMMY",
		"-n1k\x00-Fn100\x00-d/scratch/md",
		"-n\x001\x00-f\x001\x00-l\x002\x00-s\x001\x00-c\x00--print-all-procs\x00--savePerOpDataCSV=p",
		"-n\x0010\x00-B\x000",
		"-n\x0010\x00--interval\x00250ms\x00--until-steady=2s,5%",
		"-n\x0010\x00--until-steady\x00-W\x005",
		"-n\x0010\x00--until-steady=1s\x00--interval\x000s",
	} {
		f.Add(s)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, args string) {
		var argv []string
		if args != "" {
			argv = strings.Split(args, "\x00")
		}
		o, err := Parse(argv, reg)
		if err != nil {
			if o != nil {
				t.Fatal("options returned with an error")
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("accepted options do not validate: %v", err)
		}
		l := o.Layout()
		noItems := o.Items == 0 && o.ItemsPerDir == 0 // mdtest's default: no items
		if l.TreeDirs < 1 || l.Leaves < 1 || l.ItemDirs < 1 || l.ItemsPerDir < 1 && !noItems || l.DirLoops < 1 ||
			l.ItemsPerRank != l.DirLoops*l.ItemDirs*l.ItemsPerDir || o.ItemsPerDir == 0 && l.ItemsPerRank > o.Items {
			t.Fatalf("inconsistent layout %+v for %q", l, argv)
		}
		ps := o.Phases()
		if len(ps) == 0 {
			t.Fatalf("no phases for %q", argv)
		}
		order := map[Phase]int{TreeCreate: -1, TreeRemove: int(NumPhases)}
		rank := func(p Phase) int {
			if r, ok := order[p]; ok {
				return r
			}
			return int(p)
		}
		for i := 1; i < len(ps); i++ {
			if rank(ps[i-1]) >= rank(ps[i]) {
				t.Fatalf("phases out of order: %v", ps)
			}
		}
		for _, n := range []int{1, 3, 64} {
			c := *o
			if warnings, err := c.Resolve(n); err != nil {
				if strings.ContainsAny(err.Error(), "\n\r") {
					t.Fatalf("Resolve error is not one line: %q", err)
				}
			} else if counts := c.TaskCounts(); len(counts) == 0 || counts[len(counts)-1] > n {
				t.Fatalf("TaskCounts %v for %d ranks (warnings %q)", counts, n, warnings)
			}
		}
	})
}
