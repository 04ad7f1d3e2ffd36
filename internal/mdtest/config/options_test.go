package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// mustParse parses a space-separated command line or fails the test.
func mustParse(t *testing.T, args string) *Options {
	t.Helper()
	o, err := Parse(strings.Fields(args), testRegistry(t))
	if err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return o
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	const readZero = "Read bytes is 0, thus, a read test will actually just open/close"
	tests := []struct {
		args string
		want []string
	}{
		{"-n 10", []string{readZero}}, // the read phase runs by default (shared/reference/ior/mdtest-human.txt)
		{"-n 10 -E", []string{readZero}},
		{"-n 10 -C -T -r", nil},
		{"-n 10 -w 8 -e 8", nil},
		{"-n 10 -C -z 1 -b 2", []string{"-n 10 is not a multiple of the 3 directories that hold items (-z 1 -b 2): each rank uses 9 items, 3 per directory"}},
		{"-n 10 -C -z 2 -b 2 -L", []string{"-n 10 is not a multiple of the 4 directories that hold items (-z 2 -b 2 -L): each rank uses 8 items, 2 per directory"}},
		{"-n 12 -C -z 1 -b 3", nil},
		{"-I 3 -C -z 1 -b 2", nil},
		{"-n 10 -C --verify-write", []string{"--verify-write has no effect without -w: there is no data to verify"}},
		{"-n 10 -C -f 2", []string{"-f 2 has no effect without -l: only the full job size runs"}},
		{"-n 10 -C -f 2 -l 4", nil},
		{"-n 10 -F -w 8 -e 8 -E -X", []string{"-X without -C or -G: the data's seed is this run's start time, so files an earlier run wrote will not verify; give both runs the same -G"}},
		{"-n 10 -F -w 8 -e 8 -E -X -G 7", nil},
		{"-n 10 -F -w 8 -e 8 -X", nil}, // the same run writes them
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			if got := mustParse(t, tt.args).Warnings(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Warnings(%s) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     string
		jobSize  int
		warnings []string
		err      string
		counts   []int
	}{
		{"-n 10 -C", 4, nil, "", []int{4}},
		{"-n 10 -C -f 2", 4, []string{"-f 2 has no effect without -l: only the full job size runs"}, "", []int{4}},
		{"-n 10 -C -f 1 -l 4", 4, nil, "", []int{1, 2, 3, 4}},
		{"-n 10 -C -f 2 -l 8 -s 3", 8, nil, "", []int{2, 5, 8}},
		{"-n 10 -C -f 1 -l 4 -s 2", 4, nil, "", []int{1, 3}},
		{"-n 10 -C -l 3", 2, nil, "-l 3 is more than the job's 2 ranks", nil},
		{"-n 10 -C -d a@b@c -u", 2, []string{"-d has 3 directories but the test has 2 ranks: c is not used, as in mdtest"}, "", []int{2}},
		{"-n 10 -C -d a@b@c -u", 1, []string{"-d has 3 directories but the test has 1 ranks: b and 1 more are not used, as in mdtest"}, "", []int{1}},
		{"-n 10 -C -d a@b@c -u", 3, nil, "", []int{3}},
		{"-n 10 -C -N 1", 4, nil, "", []int{4}},
		{"-n 10 -C -N 1", 1, []string{"-N 1 is not smaller than the job's 1 ranks: ranks work on the items of rank (rank+1) mod 1, their own"}, "", []int{1}},
		{"-n 10 -C -N 5", 4, []string{"-N 5 is not smaller than the job's 4 ranks: ranks work on the items of rank (rank+5) mod 4"}, "", []int{4}},
		{"-n 10 -C", 0, nil, "job size 0: want at least 1 rank", nil},
		{"-n 10 --warningAsErrors", 2, []string{"Read bytes is 0, thus, a read test will actually just open/close"},
			"--warningAsErrors: Read bytes is 0", nil},
		{"-n 10 -C --warningAsErrors", 2, nil, "", []int{2}},
		{"-n 4611686018427387904 -C", 4, nil, "-n 4611686018427387904 over 4 ranks: more than 9223372036854775807 items", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			o := mustParse(t, tt.args)
			warnings, err := o.Resolve(tt.jobSize)
			if tt.err != "" {
				checkError(t, "Resolve", err, tt.err)
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%d): %v", tt.jobSize, err)
			}
			if !reflect.DeepEqual(warnings, tt.warnings) {
				t.Errorf("warnings %q, want %q", warnings, tt.warnings)
			}
			if got := o.TaskCounts(); !reflect.DeepEqual(got, tt.counts) {
				t.Errorf("TaskCounts() = %v, want %v", got, tt.counts)
			}
			// Resolve is idempotent.
			again, err := o.Resolve(tt.jobSize)
			if err != nil || len(again) > len(warnings) {
				t.Errorf("second Resolve: %q, %v", again, err)
			}
		})
	}
}

func TestTaskCountsUnresolved(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	if got := o.TaskCounts(); got != nil {
		t.Errorf("TaskCounts before Resolve = %v, want nil", got)
	}
	o.TasksStride = 0
	o.LastTasks = 3
	if got := o.TaskCounts(); got != nil {
		t.Errorf("TaskCounts with -s 0 = %v, want nil", got)
	}
}

func TestStdoutFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args         string
		stdout, file string
	}{
		{"-n 1", FormatHuman, ""},
		{"-n 1 --format json", FormatJSON, ""},
		{"-n 1 --format csv", FormatCSV, ""},
		{"-n 1 --output r.json", FormatHuman, FormatJSON},
		{"-n 1 --output r.csv", FormatHuman, FormatCSV},
		{"-n 1 --format json --output r.out", FormatHuman, FormatJSON},
		{"-n 1 --format human --output r.txt", FormatHuman, FormatHuman},
	}
	for _, tt := range tests {
		o := mustParse(t, tt.args)
		file := ""
		if o.Output != "" {
			file = o.Format
		}
		if got := o.StdoutFormat(); got != tt.stdout || file != tt.file {
			t.Errorf("%s: stdout %s, file %q; want %s, %q", tt.args, got, file, tt.stdout, tt.file)
		}
	}
}

func TestRandomOrder(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]bool{
		"-n 1":                 false,
		"-n 1 -R":              true,
		"-n 1 -R=5":            true,
		"-n 1 --random-seed=5": true, // mdtest tests the seed, not -R
		"-n 1 --random-seed=0": false,
	} {
		if got := mustParse(t, args).RandomOrder(); got != want {
			t.Errorf("%s: RandomOrder() = %v, want %v", args, got, want)
		}
	}
}

// TestValidateOptions checks Validate on options built in code, for the
// cases no command line reaches.
func TestValidateOptions(t *testing.T) {
	t.Parallel()
	good := *mustParse(t, "-n 10")
	if err := good.Validate(); err != nil {
		t.Fatalf("parsed options do not validate: %v", err)
	}
	tests := []struct {
		name   string
		change func(o *Options)
		want   string
	}{
		{"defaults without backend", func(o *Options) { *o = DefaultOptions(); o.Items = 1 }, "-a : no backend selected"},
		{"no phase", func(o *Options) { onlyPhases(o, false, false, false, false, false) }, "-C, -T, -E, -r, -U: no phase to run"},
		{"no directory", func(o *Options) { o.Dirs = nil }, "-d must name a directory"},
		{"empty directory", func(o *Options) { o.Dirs = []string{"a", ""} }, `-d "a@": empty directory name`},
		{"bad format", func(o *Options) { o.Format = "xml" }, `--format "xml": want human, json or csv`},
		{"bad packet type", func(o *Options) { o.DataPacketType = 9 }, "--dataPacketType: unknown data packet type 9"},
		{"negative -w", func(o *Options) { o.WriteBytes = -1 }, "-w must be >= 0 (got -1)"},
		{"negative -e", func(o *Options) { o.ReadBytes = -1 }, "-e must be >= 0 (got -1)"},
	}
	for _, tt := range tests {
		o := good
		o.Dirs = append([]string(nil), good.Dirs...)
		tt.change(&o)
		checkError(t, tt.name, o.Validate(), tt.want)
	}
}

func TestParseDirs(t *testing.T) {
	t.Parallel()
	for s, want := range map[string][]string{
		"./out": {"./out"}, "a@b": {"a", "b"}, "/x/y@/z": {"/x/y", "/z"},
	} {
		got, err := ParseDirs(s)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseDirs(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	for _, s := range []string{"", "@", "a@", "@a", "a@@b"} {
		if _, err := ParseDirs(s); err == nil {
			t.Errorf("ParseDirs(%q) succeeded", s)
		}
	}
}

// TestOptionsJSON checks that the options echo into a JSON run record.
func TestOptionsJSON(t *testing.T) {
	t.Parallel()
	o := mustParse(t, "-n 10 -d a --dataPacketType=r")
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"API":"POSIX"`, `"Items":10`, `"Dirs":["a"]`, `"DataPacketType":"random"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s does not contain %s", b, want)
		}
	}
	if strings.Contains(string(b), `"Backend"`) {
		t.Errorf("JSON %s holds the backend entry", b)
	}
}
