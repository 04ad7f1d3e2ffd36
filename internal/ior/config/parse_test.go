package config

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/pattern"
	"github.com/hpcbench/hpcbench/internal/units"
)

// baseline is what an empty command line gives with testRegistry.
func baseline() Options {
	o := DefaultOptions()
	o.API = "POSIX"
	o.WriteFile, o.ReadFile = true, true
	return o
}

// comparable drops the fields DeepEqual cannot compare (funcs).
func comparable(o Options) Options {
	o.Backend = aiori.Entry{Name: o.Backend.Name}
	o.BackendOptions = nil
	return o
}

// parseOne parses args and returns the single test.
func parseOne(t *testing.T, args ...string) Options {
	t.Helper()
	cfg, err := Parse(args, testRegistry(t))
	if err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	if len(cfg.Tests) != 1 {
		t.Fatalf("Parse(%q): %d tests, want 1", args, len(cfg.Tests))
	}
	return cfg.Tests[0]
}

func TestParseFlagForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want func(o *Options)
	}{
		// HAPPY PATH: defaults and the -w/-r rule
		{nil, func(o *Options) {}},
		{[]string{"--"}, func(o *Options) {}},
		{[]string{"-w"}, func(o *Options) { o.ReadFile = false }},
		{[]string{"-r"}, func(o *Options) { o.WriteFile = false }},
		{[]string{"-W"}, func(o *Options) { o.WriteFile, o.ReadFile, o.CheckWrite = false, false, true }},
		{[]string{"-wr"}, func(o *Options) {}},
		{[]string{"-wrW"}, func(o *Options) { o.CheckWrite = true }},
		{[]string{"-w", "-r", "-W", "-R"}, func(o *Options) { o.CheckWrite, o.CheckRead = true, true }},
		{[]string{"-w=0", "-r=0"}, func(o *Options) {}}, // nothing asked: both again, as IOR
		// counted switches
		{[]string{"-vvv"}, func(o *Options) { o.Verbose = 3 }},
		{[]string{"-v", "-v"}, func(o *Options) { o.Verbose = 2 }},
		{[]string{"-v=4"}, func(o *Options) { o.Verbose = 4 }},
		{[]string{"-z", "-z"}, func(o *Options) { o.RandomOffset = 2 }},
		{[]string{"-zz"}, func(o *Options) { o.RandomOffset = 2 }},
		{[]string{"-Z", "-Z"}, func(o *Options) { o.ReorderTasksRandom = 2 }},
		{[]string{"-O", "randomOffset=2"}, func(o *Options) { o.RandomOffset = 2 }},
		{[]string{"-O", "verbose=3", "-v"}, func(o *Options) { o.Verbose = 4 }},
		// sizes, every spelling
		{[]string{"-b", "4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-b4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-b=4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-b", "4M"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-b", "4MiB"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"--blockSize=4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"--blockSize", "4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-O", "blockSize=4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-O", "BLOCKSIZE = 4m"}, func(o *Options) { o.BlockSize = 4 * units.MiB }},
		{[]string{"-b", "2p"}, func(o *Options) { o.BlockSize = 2 * PiB }},
		{[]string{"-b", "1g", "-t", "2m"}, func(o *Options) { o.BlockSize, o.TransferSize = units.GiB, 2*units.MiB }},
		{[]string{"-wrb8k", "-t1k"}, func(o *Options) { o.BlockSize, o.TransferSize = 8*units.KiB, units.KiB }},
		{[]string{"-s", "16"}, func(o *Options) { o.SegmentCount = 16 }},
		{[]string{"-s", "1k"}, func(o *Options) { o.SegmentCount = 1024 }},
		{[]string{"-z", "--randomPrefill=64k"}, func(o *Options) { o.RandomOffset, o.RandomPrefill = 1, 64*units.KiB }},
		// switches set and cleared
		{[]string{"-F"}, func(o *Options) { o.FilePerProc = true }},
		{[]string{"-F", "-F=0"}, func(o *Options) { o.FilePerProc = false }},
		{[]string{"-F=1"}, func(o *Options) { o.FilePerProc = true }},
		{[]string{"-F=2"}, func(o *Options) { o.FilePerProc = true }},
		{[]string{"-O", "filePerProc=1"}, func(o *Options) { o.FilePerProc = true }},
		{[]string{"-wF=0"}, func(o *Options) {}}, // as IOR: the value goes to -w and -F, so neither phase is asked
		{[]string{"-C"}, func(o *Options) { o.ReorderTasks = true }},
		{[]string{"-O", "reorderTasksConstant=1"}, func(o *Options) { o.ReorderTasks = true }},
		{[]string{"-O", "reorderTasks=1"}, func(o *Options) { o.ReorderTasks = true }},
		{[]string{"-c", "-e", "-Y", "-g", "-k", "-K", "-E", "-m", "-u", "-x"}, func(o *Options) {
			o.Collective, o.Fsync, o.FsyncPerWrite, o.IntraTestBarriers = true, true, true, true
			o.KeepFile, o.KeepFileWithError, o.UseExistingTestFile, o.MultiFile = true, true, true, true
			o.UniqueDir, o.SingleXferAttempt = true, true
		}},
		{[]string{"-ceYgkKEmux"}, func(o *Options) {
			o.Collective, o.Fsync, o.FsyncPerWrite, o.IntraTestBarriers = true, true, true, true
			o.KeepFile, o.KeepFileWithError, o.UseExistingTestFile, o.MultiFile = true, true, true, true
			o.UniqueDir, o.SingleXferAttempt = true, true
		}},
		{[]string{"--collective"}, func(o *Options) { o.Collective = true }},
		{[]string{"--dryRun", "--warningAsErrors"}, func(o *Options) { o.DryRun, o.WarningAsErrors = true, true }},
		{[]string{"--dryRun=false"}, func(o *Options) {}},
		{[]string{"-y", "-F"}, func(o *Options) { o.DualMount, o.FilePerProc = true, true }},
		// integers
		{[]string{"-i", "3"}, func(o *Options) { o.Repetitions = 3 }},
		{[]string{"-i3"}, func(o *Options) { o.Repetitions = 3 }},
		{[]string{"-i", "1k"}, func(o *Options) { o.Repetitions = 1024 }}, // IOR's integers take suffixes too
		{[]string{"-C", "-Q", "2"}, func(o *Options) { o.ReorderTasks, o.TaskPerNodeOffset = true, 2 }},
		{[]string{"-Z", "-X", "-5"}, func(o *Options) { o.ReorderTasksRandom, o.ReorderTasksRandomSeed = 1, -5 }},
		{[]string{"--random-offset-seed=42"}, func(o *Options) { o.RandomOffsetSeed = 42 }},
		{[]string{"--random-offset-seed", "-1"}, func(o *Options) {}},
		{[]string{"-D", "10", "-O", "stoneWallingWearOut=1"}, func(o *Options) {
			o.DeadlineForStonewalling, o.StoneWallingWearOut = 10, true
		}},
		{[]string{"-O", "stoneWallingWearOutIterations=100"}, func(o *Options) { o.StoneWallingWearOutIterations = 100 }},
		// the distribution flags
		{[]string{"--interval", "250ms"}, func(o *Options) { o.Interval, o.IntervalSet = 250*time.Millisecond, true }},
		{[]string{"-O", "interval=2s"}, func(o *Options) { o.Interval, o.IntervalSet = 2*time.Second, true }},
		{[]string{"--until-steady"}, func(o *Options) { o.UntilSteady = distribution.Steady{Window: 10 * time.Second, Tolerance: 0.075} }},
		{[]string{"--until-steady=3s,5%", "--interval=500ms"}, func(o *Options) {
			o.UntilSteady, o.Interval, o.IntervalSet = distribution.Steady{Window: 3 * time.Second, Tolerance: 0.05}, 500*time.Millisecond, true
		}},
		{[]string{"-k", "-D5", "-O", "stoneWallingStatusFile=sw,stoneWallingWearOut=1"}, func(o *Options) {
			o.KeepFile, o.DeadlineForStonewalling = true, 5
			o.StoneWallingStatusFile, o.StoneWallingWearOut = "sw", true
		}},
		{[]string{"-T", "5", "-d", "2", "-O", "minTimeDuration=3,interIODelay=10"}, func(o *Options) {
			o.MaxTimeDuration, o.InterTestDelay, o.MinTimeDuration, o.InterIODelay = 5, 2*time.Second, 3, 10
		}},
		{[]string{"-N", "4", "-A", "7", "-j", "3"}, func(o *Options) { o.NumTasks, o.RefNum, o.OutlierThreshold = 4, 7, 3 }},
		{[]string{"-O", "numTasks=4,refNum=7,outlierThreshold=3,repetitions=2"}, func(o *Options) {
			o.NumTasks, o.RefNum, o.OutlierThreshold, o.Repetitions = 4, 7, 3, 2
		}},
		// signature: -G 0 counts as given
		{[]string{"-G", "0"}, func(o *Options) { o.TimeStampSignatureSet = true }},
		{[]string{"-G", "-7"}, func(o *Options) { o.TimeStampSignature, o.TimeStampSignatureSet = -7, true }},
		{[]string{"-r", "-R", "-G", "5"}, func(o *Options) {
			o.WriteFile, o.CheckRead, o.TimeStampSignature, o.TimeStampSignatureSet = false, true, 5, true
		}},
		{[]string{"-O", "setTimeStampSignature=9"}, func(o *Options) { o.TimeStampSignature, o.TimeStampSignatureSet = 9, true }},
		// data packet types
		{[]string{"-l", "o"}, func(o *Options) { o.DataPacketType = pattern.Offset }},
		{[]string{"-l", "offset"}, func(o *Options) { o.DataPacketType = pattern.Offset }},
		{[]string{"-l", "RANDOM"}, func(o *Options) { o.DataPacketType = pattern.Random }},
		{[]string{"--dataPacketType=i"}, func(o *Options) { o.DataPacketType = pattern.Incompressible }},
		{[]string{"-O", "dataPacketType=t"}, func(o *Options) { o.DataPacketType = pattern.Timestamp }},
		// strings
		{[]string{"-o", "/scratch/ior.dat"}, func(o *Options) { o.TestFile = "/scratch/ior.dat" }},
		{[]string{"-O", "testFile=a=b"}, func(o *Options) { o.TestFile = "a=b" }},
		// memory to hold: -M as a percentage or a size (IOR 4 reads 2g as 2%), -O memoryPerTask; the last wins
		{[]string{"-M", "75%"}, func(o *Options) { o.MemoryPerNode = NodeMemory{Percent: 75} }},
		{[]string{"-M", "2g"}, func(o *Options) { o.MemoryPerNode = NodeMemory{Bytes: 2 * units.GiB} }},
		{[]string{"-O", "memoryPerTask=16m"}, func(o *Options) { o.MemoryPerTask = 16 * units.MiB }},
		{[]string{"-M", "1g", "-O", "memoryPerTask=16m"}, func(o *Options) { o.MemoryPerTask = 16 * units.MiB }},
		{[]string{"-O", "memoryPerTask=16m", "-M", "0%"}, func(o *Options) {}},
		{[]string{"-O", "summaryFile=out.json,summaryFormat=json"}, func(o *Options) {
			o.SummaryFile, o.SummaryFormat = "out.json", SummaryJSON
		}},
		{[]string{"--summaryFormat=csv"}, func(o *Options) { o.SummaryFormat = SummaryCSV }},
		{[]string{"-O", "archiveFile=run.json"}, func(o *Options) { o.ArchiveFile = "run.json" }},
		{[]string{"--archive", "run.json"}, func(o *Options) { o.ArchiveFile = "run.json" }},
		{[]string{"-O", "archivefile=a.json", "--archiveFile=b.json"}, func(o *Options) { o.ArchiveFile = "b.json" }},
		{[]string{"-O", "saveRankPerformanceDetailsCSV=r.csv", "-O", "savePerOpDataCSV=ops,summaryAlways=1"}, func(o *Options) {
			o.SaveRankPerformanceDetailsCSV, o.SavePerOpDataCSV, o.SummaryAlways = "r.csv", "ops", true
		}},
		{[]string{"-O", "checkRead=1, keepFile=1 # the rest is a comment,bogus=1", "-G", "5"}, func(o *Options) {
			o.WriteFile, o.ReadFile, o.CheckRead, o.KeepFile = false, false, true, true
			o.TimeStampSignature, o.TimeStampSignatureSet = 5, true
		}},
		{[]string{"-O", "readFile=1,writeFile=1,checkWrite=1,checkRead=1"}, func(o *Options) { o.CheckWrite, o.CheckRead = true, true }},
		{[]string{"-O", "keepFileWithError=1,multiFile=1,warningAsErrors=1,singleXferAttempt=1"}, func(o *Options) {
			o.KeepFileWithError, o.MultiFile, o.WarningAsErrors, o.SingleXferAttempt = true, true, true, true
		}},
		{[]string{"-O", "intraTestBarriers=1,collective=1,uniqueDir=1,useExistingTestFile=1"}, func(o *Options) {
			o.IntraTestBarriers, o.Collective, o.UniqueDir, o.UseExistingTestFile = true, true, true, true
		}},
		{[]string{"-O", "fsyncPerWrite=1,fsync=1,dualMount=1,filePerProc=1"}, func(o *Options) {
			o.FsyncPerWrite, o.Fsync, o.DualMount, o.FilePerProc = true, true, true, true
		}},
		{[]string{"-O", "segmentCount=2,blockSize=2m,transferSize=1m,interTestDelay=1,maxTimeDuration=1"}, func(o *Options) {
			o.SegmentCount, o.BlockSize, o.TransferSize, o.InterTestDelay, o.MaxTimeDuration = 2, 2*units.MiB, units.MiB, time.Second, 1
		}},
		{[]string{"-O", "deadlineForStonewalling=3,taskPerNodeOffset=2,reorderTasksRandom=1,reorderTasksRandomSeed=4"}, func(o *Options) {
			o.DeadlineForStonewalling, o.TaskPerNodeOffset, o.ReorderTasksRandom, o.ReorderTasksRandomSeed = 3, 2, 1, 4
		}},
		// backends
		{[]string{"-a", "dummy"}, func(o *Options) { o.API = "dummy" }}, // kept as spelled, as IOR prints it
		{[]string{"-a", "fake-old"}, func(o *Options) { o.API = "fake-old" }},
		{[]string{"-O", "api=DUMMY"}, func(o *Options) { o.API = "DUMMY" }},
		// -d takes a fraction as a real delay (IOR reads 0.1 as 0)
		{strings.Fields("-w -d 0.1"), func(o *Options) { o.ReadFile, o.InterTestDelay = false, 100*time.Millisecond }},
		{strings.Fields("-O interTestDelay=1.5"), func(o *Options) { o.InterTestDelay = 1500 * time.Millisecond }},
		// option.c's groups (cliflag.ExpandGroups)
		{strings.Fields("-r -z-k -e -i1"), func(o *Options) { // testing/complex-tests.sh
			o.WriteFile, o.RandomOffset, o.KeepFile, o.Fsync = false, 1, true, true
		}},
		{strings.Fields("-w -s10-z -b 16k -t 4k"), func(o *Options) { // as IOR 4.1: -s 10 -z
			o.ReadFile, o.SegmentCount, o.RandomOffset, o.BlockSize, o.TransferSize = false, 10, 1, 16*units.KiB, 4*units.KiB
		}},
		{strings.Fields("-wbk 4m"), func(o *Options) { o.ReadFile, o.BlockSize, o.KeepFile = false, 4*units.MiB, true }},
		{strings.Fields("-X -13 -Z"), func(o *Options) { o.ReorderTasksRandomSeed, o.ReorderTasksRandom = -13, 1 }},
		// -O pieces in command-line style, which IOR hands to its option parser
		{strings.Fields("-O --posix.odirect=1,blockSize=2m"), func(o *Options) { o.BlockSize = 2 * units.MiB }},
		{strings.Fields("-O -a=DUMMY"), func(o *Options) { o.API = "DUMMY" }},
		{[]string{"-O", "-a DUMMY, -F"}, func(o *Options) { o.API, o.FilePerProc = "DUMMY", true }},
		// a real command line (shared/reference/ior/ior-human.txt)
		{strings.Fields("-a POSIX -b 256m -t 1m -w -r -W -R -i 3 -o ior_shared"), func(o *Options) {
			o.BlockSize, o.TransferSize, o.Repetitions, o.TestFile = 256*units.MiB, units.MiB, 3, "ior_shared"
			o.CheckWrite, o.CheckRead = true, true
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			got := parseOne(t, tt.args...)
			want := baseline()
			tt.want(&want)
			if e, ok := testRegistry(t).Lookup(want.API); ok {
				want.Backend.Name = e.Name
			}
			if got.BackendOptions == nil {
				t.Fatal("BackendOptions is nil")
			}
			if g, w := comparable(got), comparable(want); !reflect.DeepEqual(g, w) {
				t.Errorf("Parse(%q):\n got %+v\nwant %+v", tt.args, g, w)
			}
		})
	}
}

func TestParseBackendOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args  []string
		check func(t *testing.T, o Options)
	}{
		{[]string{"--posix.odirect"}, func(t *testing.T, o Options) {
			if !o.BackendOptions.(*posixOptions).ODirect {
				t.Error("ODirect not set")
			}
		}},
		{[]string{"-O", "posix.odirect=1"}, func(t *testing.T, o Options) {
			if !o.BackendOptions.(*posixOptions).ODirect {
				t.Error("ODirect not set")
			}
		}},
		{[]string{"-O", "useO_DIRECT=1"}, func(t *testing.T, o Options) {
			if !o.BackendOptions.(*posixOptions).ODirect {
				t.Error("legacy useO_DIRECT did not set posix.odirect")
			}
		}},
		{[]string{"-O", "POSIX.RangeLocks=true"}, func(t *testing.T, o Options) {
			if !o.BackendOptions.(*posixOptions).RangeLocks {
				t.Error("RangeLocks not set")
			}
		}},
		// another backend's options are accepted whichever -a is used
		{[]string{"-a", "DUMMY", "--posix.odirect", "--dummy.delay-xfer", "5"}, func(t *testing.T, o Options) {
			if got := o.BackendOptions.(*dummyOptions).DelayXfer; got != 5 {
				t.Errorf("DelayXfer = %d, want 5", got)
			}
		}},
		{[]string{"--fake.x=0"}, func(t *testing.T, o Options) {
			if o.Backend.Name != "POSIX" {
				t.Errorf("backend %s, want POSIX", o.Backend.Name)
			}
		}},
		{[]string{"-a", "FAKE", "--fake.x=3"}, func(t *testing.T, o Options) {
			if got := o.BackendOptions.(*fakeOptions).X; got != 3 || o.Backend.Name != "FAKE" {
				t.Errorf("backend %s X=%d, want FAKE X=3", o.Backend.Name, got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			tt.check(t, parseOne(t, tt.args...))
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
		{[]string{"-b", "1.5m"}, []string{`-b: "1.5m" is not a size`, "fractions"}},
		{[]string{"-b", "1x"}, []string{`-b: "1x" is not a size`, `unknown suffix "x"`}},
		{[]string{"-t", "4kb"}, []string{`-t: "4kb" is `, "ambiguous"}},
		{[]string{"-b", "-1"}, []string{`-b: "-1" is `}},
		{[]string{"-b", "9999999p"}, []string{`-b: "9999999p" is out of range`}},
		{[]string{"-b", "1.5p"}, []string{`-b: "1.5p" is not a size`}},
		{[]string{"--randomPrefill=1q"}, []string{`--randomPrefill: "1q" is `}},
		{[]string{"-i", "1.5"}, []string{`-i: "1.5" is not a whole number`}},
		{[]string{"-i", "x"}, []string{`-i: "x" is `}},
		{[]string{"-i", "99999999999999999999"}, []string{`-i: "99999999999999999999" is out of range`}},
		{[]string{"-s", "1.5"}, []string{`-s: "1.5" is `}},
		{[]string{"-F=yes"}, []string{`-F: "yes" is `, "want 0, 1, true or false"}},
		{[]string{"-d", "-0.5"}, []string{"-d must be >= 0 (got -0.5)"}},
		{[]string{"-z", "--randomPrefill", "4k", "-D", "1"}, []string{"--randomPrefill with -D is not supported: IOR then prefills segment by segment"}},
		{[]string{"-M", "101%"}, []string{`-M: "101%" is not a memory share`, "from 0% to 100%"}},
		{[]string{"-M", "lots"}, []string{`-M: "lots" is `, "or a percentage such as 75%"}},
		{[]string{"-d", "1e3"}, []string{`-d: "1e3" is not a number of seconds`}},
		// SAD PATH: groups and command-line pieces of -O
		{[]string{"-wb"}, []string{"-b: needs a value"}},
		{[]string{"-wbt", "4m", "1m"}, []string{`-b: "t" is `}},
		{[]string{"-wq"}, []string{"-q: IOR's quitOnError is not supported"}},
		{[]string{"-O", "-f=x.ior"}, []string{`"-f=x.ior": -f cannot be given in a script or -O`}},
		{[]string{"-O", "-a POSIX x"}, []string{`unexpected word "x" in "-a POSIX x"`}},
		{[]string{"-O", "--nope=1"}, []string{`unknown option "--nope"`}},
		{[]string{"-O", strings.Repeat("-O=", 9) + "-F"}, []string{"-O inside -O more than 8 deep"}},
		{[]string{"-v=-1"}, []string{`-v: "-1" is out of range`}},
		{[]string{"-a", "FOO"}, []string{`-a: unknown API "FOO": want one of POSIX, DUMMY, FAKE`}},
		{[]string{"-l", "x"}, []string{`-l: unknown data packet type "x"`, "timestamp, offset, incompressible or random"}},
		{[]string{"-l", "inc"}, []string{`-l: unknown data packet type "inc"`}},
		{[]string{"--summaryFormat=XML"}, []string{`--summaryFormat: unknown summary format "XML": want default, JSON or CSV`}},
		{[]string{"--dummy.delay-xfer=x"}, []string{`--dummy.delay-xfer:`}},
		// missing values
		{[]string{"-b"}, []string{"-b: needs a value"}},
		{[]string{"-w", "-f"}, []string{"-f: needs a value"}},
		{[]string{"--randomPrefill"}, []string{"--randomPrefill: needs a value"}},
		// IOR takes the next token as the value, whatever it is
		{[]string{"-b", "-o", "f"}, []string{`-b: "-o" is `}},
		// words and unknown options
		{[]string{"foo"}, []string{`unexpected argument "foo"`}},
		{[]string{"-w", "foo"}, []string{`unexpected argument "foo"`}},
		{[]string{"--", "-w"}, []string{`unexpected argument "-w"`}},
		{[]string{"-"}, []string{`unexpected argument "-"`}},
		{[]string{"-a", "hdf5"}, []string{"-a: IOR's HDF5 backend is not in hpcbench, which has POSIX, DUMMY, FAKE"}},
		{[]string{"-q"}, []string{"-q: IOR's quitOnError is not supported: it was IOR 3's and IOR 4 refuses it too"}},
		{[]string{"-O", "GPUid=1"}, []string{`directive "GPUid": IOR's GPUid is not supported: hpcbench has no GPU`}},
		{[]string{"-O", "numNodes=-1"}, []string{"-O numNodes must be >= 0"}},
		{[]string{"-wH"}, []string{"-H: IOR's showHints is not supported"}},
		{[]string{"-%"}, []string{`unknown option "-%"`}},
		{[]string{"-\n"}, []string{`unknown option "-\n"`}},
		{[]string{"--foo"}, []string{`unknown option "--foo"`}},
		{[]string{"--foo=1"}, []string{`unknown option "--foo"`}},
		{[]string{"--posix.nope"}, []string{`unknown option "--posix.nope"`}},
		{[]string{"--mpiio.showHints"}, []string{`unknown option "--mpiio.showHints": no backend "mpiio" in this build (have POSIX, DUMMY, FAKE)`}},
		{[]string{"---x"}, []string{`bad option syntax "---x"`}},
		// directives
		{[]string{"-O", "foo=1"}, []string{`-O: unknown directive "foo"`}},
		{[]string{"-O", "blockSize=1m,foo=1"}, []string{`-O: unknown directive "foo"`}},
		{[]string{"-O", "summaryFormat=XML"}, []string{`-O: summaryFormat: unknown summary format "XML": want default, JSON or CSV`}},
		{[]string{"-O", "ab"}, []string{`-O: directive "ab": shorter than 3 characters`}},
		{[]string{"-O", "a=1,"}, []string{`-O: directive "": shorter than 3 characters`}},
		{[]string{"-O", "blockSize"}, []string{`-O: directive "blockSize": want key=value`}},
		{[]string{"-O", "=5m"}, []string{`-O: directive "=5m": missing key`}},
		{[]string{"-O", "blockSize="}, []string{`-O: directive "blockSize=": missing value`}},
		{[]string{"-O", "testFile=a b"}, []string{`-O: directive "testFile=a b": spaces inside`}},
		{[]string{"-O", "GPUid=1"}, []string{`-O: directive "GPUid": IOR's GPUid is not supported`}},
		{[]string{"-O", "blockSize=1.5m"}, []string{`-O: blockSize: "1.5m" is not a size`}},
		{[]string{"-O", "api=FOO"}, []string{`-O: api: unknown API "FOO"`}},
		{[]string{"-O", "useO_DIRECT=maybe"}, []string{`-O: useO_DIRECT:`}},
		{[]string{"-O", "help=1"}, []string{`-O: unknown directive "help"`}},
		{[]string{"-O", "scriptFile=x"}, []string{`-O: unknown directive "scriptFile"`}},
		{[]string{"-O", "directive=x=1"}, []string{`-O: unknown directive "directive"`}},
		// the chosen backend's own validation, named
		{[]string{"-a", "FAKE", "--fake.x=0"}, []string{"-a FAKE: --fake.x must be in [1, 9] (got 0)"}},
		{[]string{"-a", "DUMMY", "-O", "dummy.delay-xfer=-1"}, []string{"-a DUMMY: --dummy.delay-xfer must be >= 0"}},
		// script
		{[]string{"-f", "testdata/does-not-exist.ior"}, []string{"-f testdata/does-not-exist.ior: open script:"}},
		{[]string{"-f", "no\nsuch"}, []string{"-f no?such: open script: open no?such:"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse(tt.args, testRegistry(t))
			if cfg != nil {
				t.Errorf("Parse(%q) returned a config with its error", tt.args)
			}
			checkError(t, "Parse("+strings.Join(tt.args, " ")+")", err, tt.want...)
		})
	}
}

func TestParseErrorChain(t *testing.T) {
	t.Parallel()
	_, err := Parse([]string{"-b", "1.5m"}, testRegistry(t))
	if !errors.Is(err, units.ErrSyntax) {
		t.Errorf("error %v does not wrap units.ErrSyntax", err)
	}
	_, err = Parse([]string{"-b", "99999999999t"}, testRegistry(t))
	if !errors.Is(err, units.ErrRange) {
		t.Errorf("error %v does not wrap units.ErrRange", err)
	}
	_, err = Parse([]string{"-f", "testdata/does-not-exist.ior"}, testRegistry(t))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
}

func TestParseHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-wh"}, {"-b", "4m", "-h", "-O", "foo=1"}} {
		cfg, err := Parse(args, testRegistry(t))
		if !errors.Is(err, ErrHelp) || !errors.Is(err, pflag.ErrHelp) || cfg != nil {
			t.Errorf("Parse(%q) = %v, %v; want nil, ErrHelp", args, cfg, err)
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	u := Usage(testRegistry(t))
	for _, want := range []string{
		"-b, --blockSize size", "-O, --directive key=value[,key=value]", "--random-offset-seed",
		"--randomPrefill", "--dryRun", "--warningAsErrors", "-a, --api api", "POSIX|DUMMY|FAKE",
		"Module POSIX:", "--posix.odirect", "Module DUMMY:", "--dummy.delay-xfer", `(default "testFile")`,
	} {
		if !strings.Contains(u, want) {
			t.Errorf("Usage does not contain %q:\n%s", want, u)
		}
	}
	if strings.Contains(u, "IOR options:\n  --posix") {
		t.Error("backend options listed among IOR's")
	}
	if got := Usage(nil); !strings.Contains(got, ErrNoBackends.Error()) {
		t.Errorf("Usage(nil) = %q", got)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	args := []string{"-a", "POSIX", "-b", "4m"}
	cfg, err := Parse(args, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	args[0] = "changed"
	if got, want := cfg.Args, []string{"-a", "POSIX", "-b", "4m"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Args = %q, want %q (a copy)", got, want)
	}
	if cfg.ScriptFile != "" || len(cfg.Warnings) != 0 || cfg.Tests[0].ID != 0 {
		t.Errorf("ScriptFile %q, Warnings %q, ID %d", cfg.ScriptFile, cfg.Warnings, cfg.Tests[0].ID)
	}
}

func TestParseRegistryProblems(t *testing.T) {
	t.Parallel()
	if _, err := Parse(nil, nil); !errors.Is(err, ErrNoBackends) {
		t.Errorf("nil registry: %v, want ErrNoBackends", err)
	}
	if _, err := Parse(nil, &aiori.Registry{}); !errors.Is(err, ErrNoBackends) {
		t.Errorf("empty registry: %v, want ErrNoBackends", err)
	}
	// A backend option must not take an IOR option's name; the other
	// registration errors are ioflag.AddBackends' (see its tests).
	bad, err := aiori.NewRegistry(
		aiori.Entry{Name: "POSIX", NewOptions: func() aiori.Options { return &posixOptions{} }, New: newFake},
		aiori.Entry{Name: "BAD", NewOptions: func() aiori.Options { return &badOptions{} }, New: newFake},
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(nil, bad)
	checkError(t, "colliding backend", err, "backend BAD: option --fsync is defined twice")
}
