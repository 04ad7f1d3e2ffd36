package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcbench/hpcbench/internal/units"
)

// parseScript parses args with -f scripts read from testdata.
func parseScript(t *testing.T, args ...string) (*Config, error) {
	t.Helper()
	return ParseFS(os.DirFS("testdata"), args, testRegistry(t))
}

func TestScriptBasic(t *testing.T) {
	t.Parallel()
	cfg, err := parseScript(t, "-k", "-f", "basic.ior", "-t", "128k")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ScriptFile != "basic.ior" || len(cfg.Tests) != 2 {
		t.Fatalf("ScriptFile %q, %d tests; want basic.ior, 2", cfg.ScriptFile, len(cfg.Tests))
	}
	// Test 0: the command line, then the script's first block.
	want := baseline()
	want.Backend.Name = "POSIX"
	want.KeepFile = true // from the command line
	want.BlockSize, want.TransferSize, want.Repetitions = units.MiB, 256*units.KiB, 2
	want.ReadFile = false // writeFile=1 alone: no default read
	if got := comparable(cfg.Tests[0]); !reflect.DeepEqual(got, comparable(want)) {
		t.Errorf("test 0:\n got %+v\nwant %+v", got, comparable(want))
	}
	// Test 1 inherits test 0 and changes two settings.
	want.ID, want.BlockSize, want.FilePerProc = 1, 2*units.MiB, true
	if got := comparable(cfg.Tests[1]); !reflect.DeepEqual(got, comparable(want)) {
		t.Errorf("test 1:\n got %+v\nwant %+v", got, comparable(want))
	}
}

func TestScriptRunRun(t *testing.T) {
	t.Parallel()
	cfg, err := parseScript(t, "-f", "run-run.ior")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for i, o := range cfg.Tests {
		got = append(got, o.SegmentCount)
		if o.ID != i {
			t.Errorf("test %d has ID %d", i, o.ID)
		}
	}
	// RUN twice repeats the test; the final RUN adds nothing.
	if want := []int64{2, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("segment counts %v, want %v", got, want)
	}
}

func TestScriptBackendOptionsPerTest(t *testing.T) {
	t.Parallel()
	cfg, err := parseScript(t, "-f", "backends.ior")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tests) != 3 {
		t.Fatalf("%d tests, want 3", len(cfg.Tests))
	}
	t0, t1, t2 := cfg.Tests[0], cfg.Tests[1], cfg.Tests[2]
	if t0.Backend.Name != "DUMMY" || t0.BackendOptions.(*dummyOptions).DelayXfer != 5 {
		t.Errorf("test 0: %s %+v, want DUMMY with delay 5", t0.Backend.Name, t0.BackendOptions)
	}
	if t1.Backend.Name != "POSIX" || !t1.BackendOptions.(*posixOptions).ODirect {
		t.Errorf("test 1: %s %+v, want POSIX with odirect", t1.Backend.Name, t1.BackendOptions)
	}
	if t2.Backend.Name != "POSIX" || t2.BackendOptions.(*posixOptions).ODirect {
		t.Errorf("test 2: %s %+v, want POSIX without odirect (useO_DIRECT=0)", t2.Backend.Name, t2.BackendOptions)
	}
	if t1.BackendOptions == t2.BackendOptions {
		t.Error("tests 1 and 2 share one backend options value")
	}
}

// TestScriptCommandLines: script lines in command-line style set the
// options as on the command line, alone, grouped, mixed with directives,
// and with -O.
func TestScriptCommandLines(t *testing.T) {
	t.Parallel()
	cfg, err := parseScript(t, "-f", "command-lines.ior")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tests) != 2 {
		t.Fatalf("%d tests, want 2", len(cfg.Tests))
	}
	want := baseline()
	want.API, want.Backend.Name = "posix", "POSIX" // api=posix, kept as spelled
	want.BlockSize, want.TransferSize = 4*units.MiB, units.MiB
	want.RandomOffset, want.KeepFile, want.ReadFile = 1, true, false
	t0, t1 := cfg.Tests[0], cfg.Tests[1]
	if got := comparable(t0); !reflect.DeepEqual(got, comparable(want)) {
		t.Errorf("test 0:\n got %+v\nwant %+v", got, comparable(want))
	}
	want.ID, want.API, want.Backend.Name, want.SegmentCount = 1, "DUMMY", "DUMMY", 3
	if got := comparable(t1); !reflect.DeepEqual(got, comparable(want)) {
		t.Errorf("test 1:\n got %+v\nwant %+v", got, comparable(want))
	}
	if d := t1.BackendOptions.(*dummyOptions).DelayXfer; d != 7 {
		t.Errorf("test 1: --dummy.delay-xfer %d, want 7", d)
	}
}

func TestScriptCommandLineDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := parseScript(t, "-F", "-w", "-f", "empty.ior")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tests) != 1 || !cfg.Tests[0].FilePerProc || cfg.Tests[0].ReadFile {
		t.Errorf("empty script: %d tests, %+v; want one with the command line's -F -w", len(cfg.Tests), cfg.Tests)
	}
}

func TestScriptErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-f", "no-start.ior"}, []string{`-f no-start.ior: no "IOR START" line`}},
		{[]string{"-f", "no-stop.ior"}, []string{`-f no-stop.ior: no "IOR STOP" line after "IOR START"`}},
		{[]string{"-f", "nested-f.ior"}, []string{`-f nested-f.ior: line 2: "-f other.ior": -f cannot be given in a script or -O`}},
		{[]string{"-f", "nested-h.ior"}, []string{`-f nested-h.ior: line 2: "-w -h": -h cannot be given in a script or -O`}},
		{[]string{"-f", "stray-word.ior"}, []string{`-f stray-word.ior: line 2: unexpected word "extra" in "-a POSIX extra"`}},
		{[]string{"-f", "bad-letter.ior"}, []string{`-f bad-letter.ior: line 3: -q: IOR's quitOnError is not supported`}},
		{[]string{"-f", "unknown.ior"}, []string{`-f unknown.ior: line 5: unknown directive "frobnicate"`}},
		{[]string{"-f", "invalid-test.ior"}, []string{"-f invalid-test.ior: test 1: -b 3145728 is not a multiple of -t 2097152"}},
		{[]string{"-f", "missing.ior"}, []string{"-f missing.ior: open script:"}},
		{[]string{"-f", "status-file.ior", "--warningAsErrors"}, []string{"--warningAsErrors: the StoneWallingStatusFile only preserves"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			cfg, err := parseScript(t, tt.args...)
			if cfg != nil {
				t.Error("config returned with an error")
			}
			checkError(t, strings.Join(tt.args, " "), err, tt.want...)
		})
	}
}

func TestScriptWarnings(t *testing.T) {
	t.Parallel()
	cfg, err := parseScript(t, "-f", "status-file.ior")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"the StoneWallingStatusFile only preserves the last experiment, make sure that each run uses a separate status file!"}
	if !reflect.DeepEqual(cfg.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", cfg.Warnings, want)
	}
}

func TestScriptFromOS(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]string{"-f", "testdata/run-run.ior"}, testRegistry(t))
	if err != nil || len(cfg.Tests) != 3 {
		t.Fatalf("Parse with an OS path: %v", err)
	}
}

func TestReadScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		ends       []int
		err        string
	}{
		{"no RUN", "IOR START\na=1\nb=2\nIOR STOP\n", []int{2}, ""},
		{"only RUN", "IOR START\nRUN\nIOR STOP\n", []int{0}, ""},
		{"markers spaced and cased", "  ior   Start \r\nkey=1\r\n\tRun\r\nkey=2\r\n iOr sToP", []int{1, 2}, ""},
		{"comment after spaces", "IOR START\n   # x=1\n#\nIOR STOP\n", []int{0}, ""},
		{"no newline at end", "IOR START\nIOR STOP", []int{0}, ""},
		{"too short", "IOR START\nab\nIOR STOP\n", nil, `line 2: directive "ab": shorter than 3 characters`},
		{"long line", "IOR START\n" + strings.Repeat("x", maxScriptLine+1) + "\nIOR STOP\n", nil, "line 2: longer than"},
		{"too many tests", "IOR START\n" + strings.Repeat("RUN\n", maxScriptTests+2) + "IOR STOP\n", nil, "more than 1000 tests"},
		{"too many directives", "IOR START\n" + strings.Repeat("a=1,", maxScriptDirectives) + "a=1\nIOR STOP\n", nil, "more than 10000 directives"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := readScript(strings.NewReader(tt.text))
			if tt.err != "" {
				checkError(t, tt.name, err, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.ends, tt.ends) {
				t.Errorf("ends = %v, want %v", s.ends, tt.ends)
			}
		})
	}
}

func TestScriptMapFS(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"s.ior": {Data: []byte("IOR START\nblockSize=4m\nRUN\nblockSize=8m\nIOR STOP\n")}}
	cfg, err := ParseFS(fsys, []string{"-f", "s.ior"}, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tests) != 2 || cfg.Tests[0].BlockSize != 4*units.MiB || cfg.Tests[1].BlockSize != 8*units.MiB {
		t.Errorf("tests %+v", cfg.Tests)
	}
	_, err = ParseFS(fsys, []string{"-f", "/abs/s.ior"}, testRegistry(t))
	checkError(t, "invalid fs.FS path", err, "-f /abs/s.ior: open script:")
}
