package config

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/units"
)

func TestValidateCombinations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string // substrings of the error; nil means valid
	}{
		// HAPPY PATH: the combinations that are allowed
		{[]string{"-z", "-C", "-F"}, nil},
		{[]string{"-z", "-Z", "-F"}, nil},
		{[]string{"-z", "-R", "-w", "--random-offset-seed=7"}, nil},
		{[]string{"-r", "-R", "-G", "5"}, nil},
		{[]string{"-y", "-F"}, nil},
		{[]string{"-k", "-r", "-O", "stoneWallingStatusFile=f"}, nil},
		{[]string{"-z", "--randomPrefill=64k"}, nil},
		{[]string{"-z", "-z", "-b", "1m", "-t", "1m"}, nil}, // -z -z picks offsets anywhere
		{[]string{"-b", "8", "-t", "8"}, nil},
		{[]string{"-b", "2147479552", "-t", "2147479552"}, nil}, // MaxTransferSize
		{[]string{"-N", "1"}, nil},
		{[]string{"--interval", "250ms"}, nil},
		{[]string{"--until-steady"}, nil},
		{[]string{"--until-steady=2s,5%", "--interval=100ms", "-D", "60", "-O", "stoneWallingWearOut=1"}, nil},
		{[]string{"-O", "interval=1s", "--until-steady=5s,10%"}, nil},
		// SAD PATH: §1.4, one line each, naming the flags
		{[]string{"-b", "3m", "-t", "2m"}, []string{"-b 3145728 is not a multiple of -t 2097152"}},
		{[]string{"-b", "1m", "-t", "3m"}, []string{"-b 1048576 is not a multiple of -t 3145728", "smaller"}},
		{[]string{"-t", "0"}, []string{"-t must be > 0"}},
		{[]string{"-b", "4g", "-t", "4g"}, []string{"-t 4g: more than one read or write moves on Linux, so IOR would split every transfer: -t takes 8 to 2147479552 bytes (2 GiB - 4 KiB)"}},
		{[]string{"-b", "64g", "-t", "64g"}, []string{"-t 64g: more than one read or write moves on Linux"}},
		{[]string{"-b", "0"}, []string{"-b must be > 0"}},
		{[]string{"-b", "12", "-t", "12"}, []string{"-b and -t must be multiples of 8 bytes", "-b 12", "-t 12"}},
		{[]string{"-b", "1m", "-t", "12"}, []string{"-b and -t must be multiples of 8 bytes"}},
		{[]string{"-z", "-b", "1m", "-t", "1m"}, []string{"-z needs -b larger than -t"}},
		{[]string{"-C", "-Z"}, []string{"-C and -Z cannot be combined"}},
		{[]string{"-C", "-Z", "-F"}, []string{"-C and -Z cannot be combined"}},
		{[]string{"-z", "-C"}, []string{"-z with -C needs -F (file per process)"}},
		{[]string{"-z", "-Z"}, []string{"-z with -Z needs -F"}},
		{[]string{"-z", "-R", "-w"}, []string{"-z with -R needs --random-offset-seed"}},
		{[]string{"-r", "-R"}, []string{"-r -R without -w needs -G"}},
		{[]string{"-R"}, []string{"-r -R without -w needs -G"}},
		{[]string{"-y"}, []string{"-y needs -F"}},
		{[]string{"-O", "stoneWallingWearOut=1"}, []string{"-O stoneWallingWearOut needs -D"}},
		{[]string{"-O", "stoneWallingStatusFile=f"}, []string{"-O stoneWallingStatusFile needs -k"}},
		{[]string{"-k", "-w", "-O", "stoneWallingStatusFile=f"}, []string{"-O stoneWallingStatusFile with -w needs -O stoneWallingWearOut=1"}},
		{[]string{"--randomPrefill=64k"}, []string{"--randomPrefill needs -z"}},
		{[]string{"-z", "--randomPrefill=3000"}, []string{"--randomPrefill 3000 must divide -b 1048576"}},
		{[]string{"-i", "0"}, []string{"-i must be >= 1 (got 0)"}},
		{[]string{"-i", "-1"}, []string{"-i must be >= 1 (got -1)"}},
		{[]string{"-N", "0"}, []string{"-N must be >= 1, or -1 for all tasks (got 0)"}},
		{[]string{"-N", "-2"}, []string{"-N must be >= 1, or -1"}},
		{[]string{"-Q", "0"}, []string{"-Q must be >= 1 (got 0)"}},
		{[]string{"-s", "0"}, []string{"-s must be >= 1 (got 0)"}},
		{[]string{"-s", "-3"}, []string{"-s must be >= 1 (got -3)"}},
		{[]string{"-d", "-1"}, []string{"-d must be >= 0 (got -1)"}},
		{[]string{"-D", "-1"}, []string{"-D must be >= 0"}},
		{[]string{"-T", "-1"}, []string{"-T must be >= 0"}},
		{[]string{"-j", "-1"}, []string{"-j must be >= 0"}},
		{[]string{"-O", "interIODelay=-1"}, []string{"-O interIODelay must be >= 0"}},
		{[]string{"-O", "minTimeDuration=-1"}, []string{"-O minTimeDuration must be >= 0"}},
		{[]string{"-O", "stoneWallingWearOutIterations=-1"}, []string{"-O stoneWallingWearOutIterations must be >= 0"}},
		{[]string{"-o", ""}, []string{"-o must name a file"}},
		{[]string{"--interval", "0s"}, []string{"--interval: 0s: want a duration in [1ms, 1h]"}},
		{[]string{"--interval", "2h"}, []string{"--interval", "want a duration in [1ms, 1h]"}},
		{[]string{"--interval", "fast"}, []string{"--interval: \"fast\" is not a duration such as 1s or 250ms"}},
		{[]string{"--until-steady=5s"}, []string{"--until-steady", "want WINDOW,TOLERANCE"}},
		{[]string{"--until-steady=5s,0%"}, []string{"--until-steady", "tolerance"}},
		{[]string{"--until-steady=1s,5%"}, []string{"--until-steady window 1s must span at least 2 intervals of --interval 1s"}},
		{[]string{"--until-steady=2h,5%", "--interval=1ms"}, []string{"--until-steady window 2h0m0s spans", "at most 4096"}},
		// -O splits at commas: --until-steady's value goes on the command line
		{[]string{"-O", "until-steady=5s,10%"}, []string{`directive "10%": want key=value`}},
		{[]string{"--until-steady", "-O", "minTimeDuration=5"}, []string{"--until-steady with -O minTimeDuration", "choose one"}},
		{[]string{"--until-steady", "-O", "stoneWallingWearOutIterations=5"}, []string{"--until-steady with -O stoneWallingWearOutIterations"}},
		{[]string{"-b", "8p", "-s", "2048"}, []string{"-b 9007199254740992 × -s 2048: larger than"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.args, testRegistry(t))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Parse(%q): %v", tt.args, err)
				}
				return
			}
			checkError(t, "Parse("+strings.Join(tt.args, " ")+")", err, tt.want...)
		})
	}
}

func TestValidateProgrammatic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		modify func(o *Options)
		want   string
	}{
		{"no phase", func(o *Options) { o.WriteFile, o.ReadFile = false, false }, "-w, -r, -W, -R: the test must write, read or check"},
		{"summary format", func(o *Options) { o.SummaryFormat = "XML" }, `-O summaryFormat "XML": want default, JSON or CSV`},
		{"packet type", func(o *Options) { o.DataPacketType = 9 }, "-l: unknown data packet type 9"},
		{"verbose", func(o *Options) { o.Verbose = -1 }, "-v must be >= 0"},
		{"random offset", func(o *Options) { o.RandomOffset = -1 }, "-z must be >= 0"},
		{"reorder random", func(o *Options) { o.ReorderTasksRandom = -1 }, "-Z must be >= 0"},
		{"prefill", func(o *Options) { o.RandomPrefill = -8 }, "--randomPrefill must be >= 0"},
		{"no backend", func(o *Options) { o.BackendOptions = nil }, "-a POSIX: no backend selected"},
		{"negative size", func(o *Options) { o.BlockSize = -8 }, "-b must be > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := parseOne(t)
			if err := o.Validate(); err != nil {
				t.Fatalf("baseline does not validate: %v", err)
			}
			tt.modify(&o)
			checkError(t, tt.name, o.Validate(), tt.want)
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	o := parseOne(t)
	warnings, err := o.Resolve(4)
	if err != nil || len(warnings) != 0 || o.NumTasks != 4 {
		t.Errorf("-N -1 in a job of 4: NumTasks %d, warnings %q, err %v", o.NumTasks, warnings, err)
	}

	o = parseOne(t, "-N", "4")
	warnings, err = o.Resolve(2)
	want := []string{"More tasks requested (4) than available (2),", "         running with 2 tasks."}
	if err != nil || !reflect.DeepEqual(warnings, want) || o.NumTasks != 2 {
		t.Errorf("-N 4 in a job of 2: NumTasks %d, warnings %q, err %v; want 2, %q", o.NumTasks, warnings, err, want)
	}

	o = parseOne(t, "-N", "2")
	if warnings, err = o.Resolve(8); err != nil || len(warnings) != 0 || o.NumTasks != 2 {
		t.Errorf("-N 2 in a job of 8: NumTasks %d, warnings %q, err %v", o.NumTasks, warnings, err)
	}

	o = parseOne(t, "-N", "4", "--warningAsErrors")
	_, err = o.Resolve(2)
	checkError(t, "-N 4 --warningAsErrors", err, "-N 4: more tasks than the job's 2 (--warningAsErrors)")

	o = parseOne(t)
	_, err = o.Resolve(0)
	checkError(t, "job size 0", err, "job size 0: want at least 1 task")

	o = parseOne(t, "-b", "1t", "-s", "1m", "-t", "1m")
	_, err = o.Resolve(16)
	checkError(t, "aggregate overflow", err, "-b 1099511627776 × -s 1048576 × 16 tasks: larger than")
}

func TestSizes(t *testing.T) {
	t.Parallel()
	o := parseOne(t, "-b", "4m", "-s", "3")
	if got, want := o.AggregateSize(2), 24*units.MiB; got != want {
		t.Errorf("AggregateSize(2) = %d, want %d", got, want)
	}
	if got, want := o.ExpectedFileSize(2), 24*units.MiB; got != want {
		t.Errorf("shared ExpectedFileSize(2) = %d, want %d", got, want)
	}
	o.FilePerProc = true
	if got, want := o.ExpectedFileSize(2), 12*units.MiB; got != want {
		t.Errorf("file-per-process ExpectedFileSize(2) = %d, want %d", got, want)
	}
	o.BlockSize, o.SegmentCount = math.MaxInt64/2, 4
	if got := o.AggregateSize(2); got != math.MaxInt64 {
		t.Errorf("overflowing AggregateSize = %d, want saturation at MaxInt64", got)
	}
	if got := o.AggregateSize(0); got != 0 {
		t.Errorf("AggregateSize(0) = %d, want 0", got)
	}
}

func TestDisableFsync(t *testing.T) {
	t.Parallel()
	o := parseOne(t)
	if w := o.DisableFsync(); w != "" {
		t.Errorf("without -e: warning %q", w)
	}
	o = parseOne(t, "-e")
	if w := o.DisableFsync(); w != "fsync() not supported in selected backend. Using value of 0." || o.Fsync {
		t.Errorf("with -e: warning %q, Fsync %v", w, o.Fsync)
	}
}

func TestOptionStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args                           []string
		access, typ, inFile, interFile string
	}{
		{nil, "single-shared-file", "independent", "sequential", "no tasks offsets"},
		{[]string{"-F", "-c"}, "file-per-process", "collective", "sequential", "no tasks offsets"},
		{[]string{"-F", "-z"}, "file-per-process", "independent", "random", "no tasks offsets"},
		{[]string{"-C"}, "single-shared-file", "independent", "sequential", "constant task offset"},
		{[]string{"-Z", "-Z"}, "single-shared-file", "independent", "sequential", "random task offset"},
	}
	for _, tt := range tests {
		o := parseOne(t, tt.args...)
		got := []string{o.Access(), o.AccessType(), o.OrderingInFile(), o.OrderingInterFile()}
		want := []string{tt.access, tt.typ, tt.inFile, tt.interFile}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", tt.args, got, want)
		}
	}
}
