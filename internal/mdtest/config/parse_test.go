package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/pattern"
	"github.com/hpcbench/hpcbench/internal/units"
)

// baseline is what "-n 10" gives with testRegistry.
func baseline() Options {
	o := DefaultOptions()
	o.API = "POSIX"
	o.Items = 10
	o.Create, o.Stat, o.Read, o.Remove, o.Rename = true, true, true, true, true
	return o
}

// comparable drops the fields DeepEqual cannot compare (funcs).
func comparable(o Options) Options {
	o.Backend = aiori.Entry{Name: o.Backend.Name, Metadata: o.Backend.Metadata}
	o.BackendOptions = nil
	return o
}

// onlyPhases sets the phase switches to exactly the ones given.
func onlyPhases(o *Options, create, stat, read, remove, rename bool) {
	o.Create, o.Stat, o.Read, o.Remove, o.Rename = create, stat, read, remove, rename
}

func TestParseFlagForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string // "-n 10" is put in front unless raw
		raw  bool
		want func(o *Options)
	}{
		// HAPPY PATH: defaults; every phase when none is asked for
		{"", false, func(o *Options) {}},
		{"--", false, func(o *Options) {}},
		{"-C", false, func(o *Options) { onlyPhases(o, true, false, false, false, false) }},
		{"-T", false, func(o *Options) { onlyPhases(o, false, true, false, false, false) }},
		{"-E", false, func(o *Options) { onlyPhases(o, false, false, true, false, false) }},
		{"-r", false, func(o *Options) { onlyPhases(o, false, false, false, true, false) }},
		{"-U", false, func(o *Options) { onlyPhases(o, false, false, false, false, true) }}, // rename alone
		{"-C -T -r", false, func(o *Options) { onlyPhases(o, true, true, false, true, false) }},
		{"-CTr", false, func(o *Options) { onlyPhases(o, true, true, false, true, false) }},
		{"-CTEr", false, func(o *Options) { onlyPhases(o, true, true, true, true, false) }},
		{"-CU", false, func(o *Options) { onlyPhases(o, true, false, false, false, true) }},
		{"-C=0 -T=0", false, func(o *Options) {}}, // nothing asked: all again, as mdtest
		{"--create-only --stat-only", false, func(o *Options) { onlyPhases(o, true, true, false, false, false) }},
		{"--rename-dirs=1", false, func(o *Options) { onlyPhases(o, false, false, false, false, true) }},
		// items, every spelling
		{"-n 100", true, func(o *Options) { o.Items = 100 }},
		{"-n100", true, func(o *Options) { o.Items = 100 }},
		{"-n=100", true, func(o *Options) { o.Items = 100 }},
		{"--items=100", true, func(o *Options) { o.Items = 100 }},
		{"--items 100", true, func(o *Options) { o.Items = 100 }},
		{"-n 1k", true, func(o *Options) { o.Items = 1024 }}, // mdtest's integers take suffixes
		{"-n 2M", true, func(o *Options) { o.Items = 2 << 20 }},
		{"-n 5 -n 7", true, func(o *Options) { o.Items = 7 }},
		{"-I 10", true, func(o *Options) { o.Items, o.ItemsPerDir = 0, 10 }},
		{"-I10 -z2 -b3", true, func(o *Options) { o.Items, o.ItemsPerDir, o.Depth, o.Branch = 0, 10, 2, 3 }},
		{"-n 30 -I 10", true, func(o *Options) { o.Items, o.ItemsPerDir = 30, 10 }},
		{"--items-per-dir=4 --depth=1 --branch-factor=2", true, func(o *Options) {
			o.Items, o.ItemsPerDir, o.Depth, o.Branch = 0, 4, 1, 2
		}},
		{"-FCn 100", true, func(o *Options) { o.FilesOnly, o.Items = true, 100; onlyPhases(o, true, false, false, false, false) }},
		// option.c's groups: a value letter after the first takes the next
		// argument, the letters after it go on as options, and several
		// value letters take the same one; "=V" goes to every letter
		{"-Fn 100 -C", true, func(o *Options) { o.FilesOnly, o.Items = true, 100; onlyPhases(o, true, false, false, false, false) }},
		{"-uFnC 100", true, func(o *Options) {
			o.UniqueDir, o.FilesOnly, o.Items = true, true, 100
			onlyPhases(o, true, false, false, false, false)
		}},
		{"-n 8 -uF=1", true, func(o *Options) { o.Items, o.UniqueDir, o.FilesOnly = 8, true, true }},
		{"-n 8 -uF=1 -uF=0", true, func(o *Options) { o.Items = 8 }},
		{"-n 8 -vV=3", true, func(o *Options) { o.Items, o.Verbose = 8, 3 }},
		{"-V=4 -W 2", true, func(o *Options) { o.Items, o.Verbose, o.StonewallSeconds = 0, 4, 2 }},
		{"-a POSIX", true, func(o *Options) { o.Items = 0 }},
		// tree
		{"-z 2 -b 2 -L", false, func(o *Options) { o.Depth, o.Branch, o.LeafOnly = 2, 2, true }},
		{"-z=3", false, func(o *Options) { o.Depth = 3 }},
		// directories
		{"-d /scratch/md", false, func(o *Options) { o.Dirs = []string{"/scratch/md"} }},
		{"-B 0", false, func(o *Options) {}}, // mdtest 4's -B takes a value; 0 keeps the barriers
		{"-aDUMMY", false, func(o *Options) { o.API = "DUMMY" }},
		{"-n10-F", true, func(o *Options) { o.Items, o.FilesOnly = 10, true }},                                                      // option.c's -s10-z form
		{"-n 10 -F-C", true, func(o *Options) { o.Items, o.FilesOnly = 10, true; onlyPhases(o, true, false, false, false, false) }}, // option.c sets -D, -U, -Y to 0, as they were
		{"-d=/scratch/md", false, func(o *Options) { o.Dirs = []string{"/scratch/md"} }},
		{"-d/q/0", false, func(o *Options) { o.Dirs = []string{"/q/0"} }}, // no option letters in the value
		{"-d -F", false, func(o *Options) { o.Dirs = []string{"-F"} }},    // the next argument, whatever it is
		{"-d a@b@c -u", false, func(o *Options) { o.Dirs, o.UniqueDir = []string{"a", "b", "c"}, true }},
		{"--dir=a@b --unique-dir-per-task", false, func(o *Options) { o.Dirs, o.UniqueDir = []string{"a", "b"}, true }},
		{"-u -t", false, func(o *Options) { o.UniqueDir, o.TimeUniqueDir = true, true }},
		// files and directories
		{"-F", false, func(o *Options) { o.FilesOnly = true }},
		{"-D", false, func(o *Options) { o.DirsOnly = true }},
		{"-F -D", false, func(o *Options) { o.FilesOnly, o.DirsOnly = true, true }},
		{"-FD", false, func(o *Options) { o.FilesOnly, o.DirsOnly = true, true }},
		{"-F -F=0", false, func(o *Options) {}},
		{"-S", false, func(o *Options) { o.SharedFile = true }},
		// sizes
		{"-w 4096 -e 4096", false, func(o *Options) { o.WriteBytes, o.ReadBytes = 4096, 4096 }},
		{"-w 4k -e=2k", false, func(o *Options) { o.WriteBytes, o.ReadBytes = 4096, 2048 }},
		{"-w 1m", false, func(o *Options) { o.WriteBytes = units.MiB }},
		{"-w 1MiB", false, func(o *Options) { o.WriteBytes = units.MiB }},
		{"--write-bytes=3901 --read-bytes 3901", false, func(o *Options) { o.WriteBytes, o.ReadBytes = 3901, 3901 }},
		// counts and switches
		{"-i 3", false, func(o *Options) { o.Iterations = 3 }},
		{"-i3", false, func(o *Options) { o.Iterations = 3 }},
		{"-N 1", false, func(o *Options) { o.Stride = 1 }},
		{"-vv", false, func(o *Options) { o.Verbose = 2 }},
		{"-v -v -v", false, func(o *Options) { o.Verbose = 3 }},
		{"-v=4", false, func(o *Options) { o.Verbose = 4 }},
		{"-V 3", false, func(o *Options) { o.Verbose = 3 }},
		{"-V=2 -v", false, func(o *Options) { o.Verbose = 3 }},
		{"-vvFC", false, func(o *Options) { o.Verbose, o.FilesOnly = 2, true; onlyPhases(o, true, false, false, false, false) }},
		{"-c -k -y -Y -P -Z", false, func(o *Options) {
			o.Collective, o.Mknod, o.Fsync, o.SyncPhases, o.PrintTime, o.TimeOnly = true, true, true, true, true, true
		}},
		{"-ckyYPZ", false, func(o *Options) {
			o.Collective, o.Mknod, o.Fsync, o.SyncPhases, o.PrintTime, o.TimeOnly = true, true, true, true, true, true
		}},
		{"-p 5", false, func(o *Options) { o.PreDelay = 5 }},
		// random order and seeds
		{"-R", false, func(o *Options) { o.RandomStat = true }},
		{"-R=42", false, func(o *Options) { o.RandomStat, o.RandomSeed = true, 42 }},
		{"--random=7", false, func(o *Options) { o.RandomStat, o.RandomSeed = true, 7 }},
		{"--random-seed=9 -R", false, func(o *Options) { o.RandomStat, o.RandomSeed = true, 9 }}, // -R keeps the seed
		{"--random-seed 9", false, func(o *Options) { o.RandomSeed = 9 }},
		{"-RF", false, func(o *Options) { o.RandomStat, o.FilesOnly = true, true }},
		// stonewalling
		{"-W 300 -x sw.status", false, func(o *Options) { o.StonewallSeconds, o.StonewallStatusFile = 300, "sw.status" }},
		// data
		{"-w 8 -e 8 -X --verify-write", false, func(o *Options) {
			o.WriteBytes, o.ReadBytes, o.VerifyRead, o.VerifyWrite = 8, 8, true, true
		}},
		{"-w 8 -e 8 --verify-read", false, func(o *Options) { o.WriteBytes, o.ReadBytes, o.VerifyRead = 8, 8, true }},
		{"-G 1234", false, func(o *Options) { o.DataSeed = 1234 }},
		{"-G -1", false, func(o *Options) {}},
		{"--dataPacketType=o", false, func(o *Options) { o.DataPacketType = pattern.Offset }},
		{"--dataPacketType random", false, func(o *Options) { o.DataPacketType = pattern.Random }},
		{"--dataPacketType=I", false, func(o *Options) { o.DataPacketType = pattern.Incompressible }},
		// printing
		{"--showRankStatistics --print-all-procs", false, func(o *Options) { o.ShowRankStatistics, o.PrintAllProcs = true, true }},
		// rank counts
		{"-f 1 -l 4 -s 2", false, func(o *Options) { o.FirstTasks, o.LastTasks, o.TasksStride = 1, 4, 2 }},
		// commands and CSV files
		{"--run-cmd-before-phase=echo --run-cmd-after-phase sync", false, func(o *Options) {
			o.RunCmdBeforePhase, o.RunCmdAfterPhase = "echo", "sync"
		}},
		{"--saveRankPerformanceDetails=r.csv --savePerOpDataCSV ops", false, func(o *Options) {
			o.SaveRankPerformanceDetails, o.SavePerOpDataCSV = "r.csv", "ops"
		}},
		{"--warningAsErrors", false, func(o *Options) { o.WarningAsErrors = true }},
		// hpcbench's output options
		{"--format=json", false, func(o *Options) { o.Format = FormatJSON }},
		{"--format CSV", false, func(o *Options) { o.Format = FormatCSV }},
		{"--format json --output run.json", false, func(o *Options) { o.Format, o.Output = FormatJSON, "run.json" }},
		{"--output run.json", false, func(o *Options) { o.Format, o.Output = FormatJSON, "run.json" }},
		{"--output RUN.CSV", false, func(o *Options) { o.Format, o.Output = FormatCSV, "RUN.CSV" }},
		{"--output run", false, func(o *Options) { o.Format, o.Output = FormatJSON, "run" }},
		{"--format human --output run.txt", false, func(o *Options) { o.Format, o.Output = FormatHuman, "run.txt" }},
		// backends
		{"-a dummy", false, func(o *Options) { o.API = "DUMMY" }},
		{"-a fake-old", false, func(o *Options) { o.API = "FAKE" }},
		{"--api=POSIX", false, func(o *Options) {}},
		// real command lines (shared/reference/ior/mdtest-human*.txt, IO500)
		{"-a POSIX -n 2000 -i 2 -d md", true, func(o *Options) { o.Items, o.Iterations, o.Dirs = 2000, 2, []string{"md"} }},
		{"-a POSIX -n 2000 -F -w 4096 -e 4096 -i 2 -P --showRankStatistics --saveRankPerformanceDetails=md-ranks.csv -d md", true,
			func(o *Options) {
				o.Items, o.FilesOnly, o.WriteBytes, o.ReadBytes, o.Iterations = 2000, true, 4096, 4096, 2
				o.PrintTime, o.ShowRankStatistics, o.SaveRankPerformanceDetails, o.Dirs = true, true, "md-ranks.csv", []string{"md"}
			}},
		{"-n 2000 -F -C -T -r -i 2", true, func(o *Options) {
			o.Items, o.FilesOnly, o.Iterations = 2000, true, 2
			onlyPhases(o, true, true, false, true, false)
		}},
		{"-n 1000000 -u -L -F -P -G 1234 -N 1 -d /scratch/mdt_easy -x /scratch/mdt_easy-stonewall -C -Y -W 300 -a POSIX", true,
			func(o *Options) {
				o.Items, o.UniqueDir, o.LeafOnly, o.FilesOnly, o.PrintTime, o.DataSeed, o.Stride = 1000000, true, true, true, true, 1234, 1
				o.Dirs, o.StonewallStatusFile, o.SyncPhases, o.StonewallSeconds = []string{"/scratch/mdt_easy"}, "/scratch/mdt_easy-stonewall", true, 300
				onlyPhases(o, true, false, false, false, false)
			}},
		{"-n 1000000 -t -w 3901 -e 3901 -P -N 1 -F -d /scratch/mdt_hard -x /scratch/mdt_hard-stonewall -C -Y -W 300 -a POSIX", true,
			func(o *Options) {
				o.Items, o.TimeUniqueDir, o.WriteBytes, o.ReadBytes, o.PrintTime, o.Stride, o.FilesOnly = 1000000, true, 3901, 3901, true, 1, true
				o.Dirs, o.StonewallStatusFile, o.SyncPhases, o.StonewallSeconds = []string{"/scratch/mdt_hard"}, "/scratch/mdt_hard-stonewall", true, 300
				onlyPhases(o, true, false, false, false, false)
			}},
		{"-n 1000000 -t -w 3901 -e 3901 -P -N 1 -F -d /scratch/mdt_hard -x /scratch/mdt_hard-stonewall -E -X -a POSIX", true,
			func(o *Options) {
				o.Items, o.TimeUniqueDir, o.WriteBytes, o.ReadBytes, o.PrintTime, o.Stride, o.FilesOnly = 1000000, true, 3901, 3901, true, 1, true
				o.Dirs, o.StonewallStatusFile, o.VerifyRead = []string{"/scratch/mdt_hard"}, "/scratch/mdt_hard-stonewall", true
				onlyPhases(o, false, false, true, false, false)
			}},
	}
	for _, tt := range tests {
		args := strings.Fields(tt.args)
		if !tt.raw {
			args = append([]string{"-n", "10"}, args...)
		}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			got, err := Parse(args, testRegistry(t))
			if err != nil {
				t.Fatalf("Parse(%q): %v", args, err)
			}
			want := baseline()
			tt.want(&want)
			want.Backend = aiori.Entry{Name: want.API, Metadata: true}
			if got.BackendOptions == nil {
				t.Fatal("BackendOptions is nil")
			}
			if g, w := comparable(*got), comparable(want); !reflect.DeepEqual(g, w) {
				t.Errorf("Parse(%q):\n got %+v\nwant %+v", args, g, w)
			}
		})
	}
}

func TestParseBackendOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args  string
		check func(t *testing.T, o *Options)
	}{
		{"--posix.odirect", func(t *testing.T, o *Options) {
			if !o.BackendOptions.(*posixOptions).ODirect {
				t.Error("ODirect not set")
			}
		}},
		// another backend's options are accepted whichever -a is used
		{"-a DUMMY --posix.odirect --mmap.madv_dont_need --dummy.delay-create 5", func(t *testing.T, o *Options) {
			if got := o.BackendOptions.(*dummyOptions).DelayCreate; got != 5 || o.Backend.Name != "DUMMY" {
				t.Errorf("backend %s DelayCreate = %d, want DUMMY 5", o.Backend.Name, got)
			}
		}},
		{"--fake.x=0", func(t *testing.T, o *Options) { // not the chosen backend: not validated
			if o.Backend.Name != "POSIX" {
				t.Errorf("backend %s, want POSIX", o.Backend.Name)
			}
		}},
		{"-a FAKE --fake.x=3", func(t *testing.T, o *Options) {
			if got := o.BackendOptions.(*fakeOptions).X; got != 3 || o.Backend.Name != "FAKE" {
				t.Errorf("backend %s X=%d, want FAKE X=3", o.Backend.Name, got)
			}
		}},
	}
	for _, tt := range tests {
		args := append([]string{"-n", "10"}, strings.Fields(tt.args)...)
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			o, err := Parse(args, testRegistry(t))
			if err != nil {
				t.Fatalf("Parse(%q): %v", args, err)
			}
			tt.check(t, o)
		})
	}
}

// checkError fails unless err is a one-line error containing every want.
func checkError(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded, want error containing %q", what, want)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("%s: error is not one line: %q", what, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: error %q does not contain %q", what, msg, w)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		// SAD PATH: values
		{[]string{"-n", "1.5k"}, []string{`-n: "1.5k" is not a whole number`}},
		{[]string{"-n", "10x"}, []string{`-n: "10x" is `}},
		{[]string{"-n", "ten"}, []string{`-n: "ten" is `}},
		{[]string{"-n", "99999999999999999999"}, []string{`-n: "99999999999999999999" is out of range`}},
		{[]string{"-n", "9999999p"}, []string{`-n: "9999999p" is out of range`}},
		{[]string{"-n", "10", "-z", "1.5"}, []string{`-z: "1.5" is `}},
		{[]string{"-n", "10", "-i", "99999999999"}, []string{`-i: "99999999999" is out of range`}},
		{[]string{"-n", "10", "-w", "1.5k"}, []string{`-w: "1.5k" is not a size`, "fractions"}},
		{[]string{"-n", "10", "-w", "1x"}, []string{`-w: "1x" is `, `unknown suffix "x"`}},
		{[]string{"-n", "10", "-e", "4kb"}, []string{`-e: "4kb" is `, "ambiguous"}},
		{[]string{"-n", "10", "-e", "-1"}, []string{`-e: "-1" is `}},
		{[]string{"-n", "10", "-F=yes"}, []string{`-F: "yes" is `, "want 0, 1, true or false"}},
		{[]string{"-n", "10", "-v=-1"}, []string{`-v: "-1" is out of range`}},
		{[]string{"-n", "10", "-R=x"}, []string{`-R: seed: "x" is `}},
		{[]string{"-n", "10", "-R=-3"}, []string{`-R: "-3" is out of range`}},
		{[]string{"-n", "10", "-a", "FOO"}, []string{`-a: unknown API "FOO": want one of POSIX, DUMMY, FAKE`}},
		{[]string{"-n", "10", "--dataPacketType=x"}, []string{`--dataPacketType: unknown data packet type "x"`}},
		{[]string{"-n", "10", "--format=xml"}, []string{`--format: unknown format "xml": want human, json or csv`}},
		// SAD PATH: two formats chosen
		{[]string{"-n", "10", "--format", "csv", "--output", "run.json"}, []string{"--format csv and --output run.json: the file's name says json; choose one"}},
		{[]string{"-n", "10", "--format", "json", "--format", "csv"}, []string{"--format json and --format csv: choose one"}},
		{[]string{"-n", "10", "-d", ""}, []string{`-d: empty directory`}},
		{[]string{"-n", "10", "-d", "a@@b", "-u"}, []string{`-d: "a@@b": directory 2 of 3 is empty`}},
		{[]string{"-n", "10", "-d", "a@", "-u"}, []string{`-d: "a@": directory 2 of 2 is empty`}},
		{[]string{"-n", "10", "--dummy.delay-create=x"}, []string{`--dummy.delay-create:`}},
		// missing values
		{[]string{"-n"}, []string{"-n: needs a value"}},
		{[]string{"-n", "10", "-d"}, []string{"-d: needs a value"}},
		{[]string{"-n", "10", "--random-seed"}, []string{"--random-seed: needs a value"}},
		// mdtest takes the next token as the value, whatever it is
		{[]string{"-n", "-F"}, []string{`-n: "-F" is `}},
		// words and unknown options
		{[]string{"-n", "10", "foo"}, []string{`unexpected argument "foo"`}},
		{[]string{"-n", "10", "-R", "5"}, []string{`unexpected argument "5"`}},
		{[]string{"-n", "10", "--", "-F"}, []string{`unexpected argument "-F"`}},
		{[]string{"-n", "10", "-"}, []string{`unexpected argument "-"`}},
		{[]string{"-n", "10", "-R5"}, []string{`unknown option "-5"`, "-R=5 or --random-seed=5"}},
		{[]string{"-n", "10", "-q"}, []string{`unknown option "-q"`}},
		{[]string{"-n", "10", "-\n"}, []string{`unknown option "-\n"`}},
		{[]string{"-n", "10", "--foo"}, []string{`unknown option "--foo"`}},
		{[]string{"-n", "10", "--posix.nope"}, []string{`unknown option "--posix.nope"`}},
		{[]string{"-n", "10", "--dfs.pool=p"}, []string{`unknown option "--dfs.pool": no backend "dfs" in this build (have POSIX, MMAP, DUMMY, FAKE)`}},
		{[]string{"-n", "10", "---x"}, []string{`bad option syntax "---x"`}},
		// what option.c misreads
		{[]string{"-n1k"}, []string{`"-n1k": mdtest reads the letters of a value written against its option as options too, giving them the value (here -k): write -n 1k or -n=1k`}},
		{[]string{"-n", "10", "-w4k"}, []string{`"-w4k"`, "(here -k)", "-w 4k or -w=4k"}},
		{[]string{"-n", "10", "-d/scratch/md"}, []string{`"-d/scratch/md"`, "(here -s, -a, -d)"}},
		{[]string{"-n", "10", "-D", "-aDUMMY"}, []string{`"-aDUMMY"`, "(here -D)"}}, // option.c would turn -D off
		{[]string{"-n", "10", "-aPOSIX"}, []string{`"-aPOSIX"`, "(here -I)", "-a POSIX or -a=POSIX"}},
		{[]string{"-FCn100"}, []string{`"-FCn100": mdtest gives -n the next word, not "100", when it is not the first letter of a group: write -FC -n100`}},
		{[]string{"-n", "10", "-n="}, []string{`-n: "" is `}},
		{[]string{"-n", "10", "-Fi"}, []string{"-i: needs a value"}},
		{[]string{"-n", "8", "-Fzb", "2"}, []string{`"-Fzb": mdtest gives the next word to every value option of a group (here -z, -b)`}},
		{[]string{"-n0-F"}, []string{`"-n0-F"`, "(here -F)"}}, // option.c sets -F to atoi("0-F"), 0
		// refused mdtest options
		{[]string{"-n", "10", "-B", "1"}, []string{"-B 1 (no barriers) is not supported", "always aborts"}},
		{[]string{"-n", "10", "-B"}, []string{"-B: needs a value"}}, // mdtest 4's -B takes one
		{[]string{"-n", "10", "-FB=2"}, []string{"-B 2 (no barriers) is not supported"}},
		{[]string{"-n", "10", "-g"}, []string{"-g (Lustre global directory layout) is not supported"}},
		{[]string{"-n", "10", "--GPUid=1"}, []string{"--GPUid: mdtest's GPU selection option is not supported"}},
		{[]string{"-n", "10", "--allocateBufferOnGPU"}, []string{"--allocateBufferOnGPU: mdtest's GPU buffers option"}},
		// the backend must support mdtest
		{[]string{"-n", "10", "-a", "MMAP"}, []string{"-a MMAP: backend does not support mdtest"}},
		{[]string{"-n", "10", "-a", "mmap"}, []string{"-a MMAP: backend does not support mdtest"}},
		// the chosen backend's own validation, named
		{[]string{"-n", "10", "-a", "FAKE", "--fake.x=0"}, []string{"-a FAKE: --fake.x must be in [1, 9] (got 0)"}},
		{[]string{"-n", "10", "-a", "DUMMY", "--dummy.delay-create=-1"}, []string{"-a DUMMY: --dummy.delay-create must be >= 0"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			o, err := Parse(tt.args, testRegistry(t))
			if o != nil {
				t.Errorf("Parse(%q) returned options with its error", tt.args)
			}
			checkError(t, "Parse("+strings.Join(tt.args, " ")+")", err, tt.want...)
		})
	}
}

// TestParseValidationErrors checks that every validation of mdtest's
// md_validate_tests (and hpcbench's own) is one line naming the flags.
func TestParseValidationErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string
		want []string
	}{
		// counts
		{"-n -5", []string{"-n must be >= 0 (got -5)"}},
		{"-I -1", []string{"-I must be >= 0 (got -1)"}},
		{"-n 10 -z -1", []string{"-z must be >= 0 (got -1)"}},
		{"-n 10 -b 0", []string{"-b must be >= 1 (got 0)"}},
		{"-n 10 -z 2 -b -3", []string{"-b must be >= 1 (got -3)"}},
		{"-n 10 -i 0", []string{"-i must be >= 1 (got 0)"}},
		{"-n 10 -N -1", []string{"-N must be >= 0 (got -1)"}},
		{"-n 10 --random-seed=-4", []string{"--random-seed must be >= 0 (0: the time) (got -4)"}},
		{"-n 10 -W -1", []string{"-W must be >= 0 (0: off) (got -1)"}},
		{"-n 10 -f 0", []string{"-f must be >= 1 (got 0)"}},
		{"-n 10 -l -1", []string{"-l must be >= 1, or 0 for the job size (got -1)"}},
		{"-n 10 -s 0", []string{"-s must be >= 1 (got 0)"}},
		{"-n 10 -p -2", []string{"-p must be >= 0 (got -2)"}},
		{"-n 10 -V -1", []string{"-v/-V must be >= 0 (got -1)"}},
		// -n and -I (mdtest: "items must be a multiple of items per directory",
		// "only specify the number of items or the number of items per directory")
		{"-n 10 -I 3", []string{"-n 10 is not a multiple of -I 3"}},
		{"-n 10 -I 5 -u", []string{"-n 10 and -I 5 cannot both be given with -u"}},
		{"-n 2 -z 1 -b 2", []string{"-n 2 is less than the 3 directories that hold items (-z 1 -b 2): give -n >= 3, or -I"}},
		{"-n 3 -z 2 -b 2 -L", []string{"-n 3 is less than the 4 directories that hold items (-z 2 -b 2 -L)"}},
		{"-n 10 -z 64 -b 2", []string{"-z 64 -b 2: the tree would have more than 9223372036854775807 directories"}},
		{"-I 8p -z 10 -b 10", []string{"-I 9007199254740992 with -z 10 -b 10 (11111111111 directories): more than"}},
		// mdtest numbers items across the tree, and a rank makes -n/-I trees
		{"-n 9223372036854775807 -z 1 -b 2 -L", []string{"-n 9223372036854775807 with -z 1 -b 2 -L: 4611686018427387903 items in each of 3 directories: item numbers beyond 9223372036854775807"}},
		{"-n 4611686018427387904 -z 2 -b 1 -L", []string{"-n 4611686018427387904 with -z 2 -b 1 -L: 4611686018427387904 items in each of 3 directories: item numbers beyond"}},
		{"-n 4611686018427387904 -I 1 -z 2 -b 1 -L", []string{"-n 4611686018427387904 -I 1 with -z 2 -b 1 -L: 4611686018427387904 test directories of 3 directories each: more than 9223372036854775807 directories per rank"}},
		// phases
		{"-n 10 -C=0 -T=0", nil}, // all again: valid
		// md_validate_tests' combinations
		{"-n 10 -W 5 -z 1 -b 2", []string{"-W 5 needs -b <= 1 (got -b 2): the stonewall timer works only with a branch factor of 1"}},
		{"-n 10 -c -S", []string{"-c cannot be combined with -S"}},
		{"-n 10 -c -W 5", []string{"-c cannot be combined with -W 5: rank 0 creates every rank's items"}},
		{"-n 10 -c -u -d a@b", []string{"-c cannot be combined with several -d directories (got 2)"}},
		{"-n 10 -u -S", []string{"-u cannot be combined with -S"}},
		{"-n 10 -u -N 1 -d a@b", []string{"-N 1 cannot be combined with several -d directories (got 2)"}},
		{"-n 10 -d a@b", []string{"-d with 2 directories needs -u"}},
		{"-n 10 -S -D", []string{"-S cannot be combined with -D"}},
		{"-n 10 -k -w 4096", []string{"-k cannot be combined with -w 4096"}},
		{"-n 10 -X -e 8 -w 8 -C", []string{"-X (verify read) needs the read phase"}},
		{"-n 10 -X", []string{"-X (verify read) needs -e > 0"}},
		{"-n 10 -X -E -e 0", []string{"-X (verify read) needs -e > 0"}},
		{"-n 10 -e 8", []string{"-e 8 must be <= -w 0 when the create and read phases both run"}},
		{"-n 10 -e 8 -w 4 -C -E", []string{"-e 8 must be <= -w 4"}},
		{"-n 10 -e 8 -w 4 -D", []string{"-e 8 must be <= -w 4"}}, // as mdtest, even without file phases
		{"-n 10 -f 4 -l 2", []string{"-f 4 must be <= -l 2"}},
		{"-n 10 -U -F", []string{"-U alone renames directories", "nothing would run"}},
		{"-n 10 -U -S", []string{"-U alone renames directories"}},
		{"-n 1 -U", []string{"-U alone renames directories"}},
	}
	for _, tt := range tests {
		args := strings.Fields(tt.args)
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			o, err := Parse(args, testRegistry(t))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Parse(%q): %v", args, err)
				}
				return
			}
			if o != nil {
				t.Errorf("Parse(%q) returned options with its error", args)
			}
			checkError(t, "Parse("+tt.args+")", err, tt.want...)
		})
	}
}

// TestParseAccepted checks combinations mdtest accepts that look odd.
func TestParseAccepted(t *testing.T) {
	t.Parallel()
	for _, args := range []string{
		"-n 10 -e 8 -w 4 -E",   // read without create: the files are an earlier run's
		"-n 10 -e 4 -w 8 -D",   // -e and -w without file phases: no effect
		"-n 10 -S -F",          // shared file, files only
		"-n 10 -S -F -D",       // -F -D is both; -S drops the directories
		"-n 10 -I 5 -z 1 -b 2", // -n with -I and a tree: two test directories
		"-I 5 -u -d a@b@c",     // several directories with -u
		"-n 10 -W 5 -z 3",      // stonewall with b = 1
		"-n 10 -N 7",           // -N larger than any job: a warning from Resolve
		"-n 10 -k -C",          // mknod
		"-n 10 --verify-write", // a warning: nothing written
		"-n 10 -f 3",           // a warning: -f without -l
		"-n 1 -z 2 -b 1 -L",    // one leaf with b = 1
		"-n 10 -t",             // -t without -u is a no-op
		"-n 10 -R --random-seed=0",
	} {
		t.Run(args, func(t *testing.T) {
			t.Parallel()
			if _, err := Parse(strings.Fields(args), testRegistry(t)); err != nil {
				t.Errorf("Parse(%q): %v", args, err)
			}
		})
	}
}

func TestParseErrorChain(t *testing.T) {
	t.Parallel()
	_, err := Parse([]string{"-n", "1.5k"}, testRegistry(t))
	if !errors.Is(err, units.ErrSyntax) {
		t.Errorf("error %v does not wrap units.ErrSyntax", err)
	}
	_, err = Parse([]string{"-n", "10", "-w", "99999999999t"}, testRegistry(t))
	if !errors.Is(err, units.ErrRange) {
		t.Errorf("error %v does not wrap units.ErrRange", err)
	}
}

func TestParseHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-Fh"}, {"-n", "10", "-h", "--foo"}, {"-h", "--foo"}} {
		o, err := Parse(args, testRegistry(t))
		if !errors.Is(err, ErrHelp) || !errors.Is(err, pflag.ErrHelp) || o != nil {
			t.Errorf("Parse(%q) = %v, %v; want nil, ErrHelp", args, o, err)
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	u := Usage(testRegistry(t))
	for _, want := range []string{
		"-n, --items int", "-I, --items-per-dir int", "-w, --write-bytes size", "-d, --dir dir[@dir...]",
		`(default ./out)`, "-a, --api api", "POSIX|DUMMY|FAKE", "-R, --random seed[=time]", "--random-seed int",
		"--format format", "(default human)", "--output file", "-U, --rename-dirs", "-G, --random-buffer-offset int",
		"(default -1)", "Module POSIX:", "--posix.odirect", "Module DUMMY:", "--dummy.delay-create",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("Usage does not contain %q:\n%s", want, u)
		}
	}
	if strings.Contains(u, "MMAP|") || strings.Contains(u, "|MMAP") || strings.Contains(u, "Module MMAP") || strings.Contains(u, "--mmap.") {
		t.Error("Usage offers MMAP for -a, or its options, which mdtest refuses")
	}
	if before, _, _ := strings.Cut(u, "Module "); strings.Contains(before, "--posix.odirect") {
		t.Error("backend options listed among mdtest's")
	}
	if got := Usage(nil); !strings.Contains(got, ErrNoBackends.Error()) {
		t.Errorf("Usage(nil) = %q", got)
	}
}

func TestParseRegistryProblems(t *testing.T) {
	t.Parallel()
	if _, err := Parse([]string{"-n", "1"}, nil); !errors.Is(err, ErrNoBackends) {
		t.Errorf("nil registry: %v, want ErrNoBackends", err)
	}
	if _, err := Parse([]string{"-n", "1"}, &aiori.Registry{}); !errors.Is(err, ErrNoBackends) {
		t.Errorf("empty registry: %v, want ErrNoBackends", err)
	}
	// A backend option must not take an mdtest option's name; the other
	// registration errors are ioflag.AddBackends' (see its tests).
	posix := aiori.Entry{Name: "POSIX", Metadata: true, NewOptions: func() aiori.Options { return &posixOptions{} }, New: newFake}
	bad := aiori.Entry{Name: "BAD", NewOptions: func() aiori.Options { return &badOptions{} }, New: newFake}
	_, err := Parse([]string{"-n", "1"}, registryOf(t, posix, bad))
	checkError(t, "colliding", err, "backend BAD: option --items is defined twice")
}

// TestParseDefaultBackend checks that the default is the first backend
// that supports mdtest, and the error when none does.
func TestParseDefaultBackend(t *testing.T) {
	t.Parallel()
	mmap := aiori.Entry{Name: "MMAP", NewOptions: func() aiori.Options { return &mmapOptions{} }, New: newFake}
	dummy := aiori.Entry{Name: "DUMMY", Metadata: true, NewOptions: func() aiori.Options { return &dummyOptions{} }, New: newFake}
	o, err := Parse([]string{"-n", "1"}, registryOf(t, mmap, dummy))
	if err != nil || o.API != "DUMMY" || o.Backend.Name != "DUMMY" {
		t.Errorf("MMAP, DUMMY: %v, %v; want DUMMY", o, err)
	}
	_, err = Parse([]string{"-n", "1"}, registryOf(t, mmap))
	checkError(t, "no mdtest backend", err, "-a MMAP: backend does not support mdtest")
	_, err = Parse([]string{"-n", "1", "-a", "x"}, registryOf(t, mmap))
	checkError(t, "no mdtest backend", err, `-a: unknown API "x": want one of (none in this build)`)
}

// TestParseIndependent checks that parses share no state: the Dirs of one
// result are not another's.
func TestParseIndependent(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	a, err := Parse([]string{"-n", "1"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	a.Dirs[0] = "changed"
	b, err := Parse([]string{"-n", "1"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	if b.Dirs[0] != DefaultDir || DefaultOptions().Dirs[0] != DefaultDir {
		t.Errorf("Dirs shared between parses: %q", b.Dirs)
	}
}
