package config

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

func TestParseDirectives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []Directive
		err  string
	}{
		// HAPPY PATH
		{"a=1", []Directive{{Key: "a", Value: "1"}}, ""},
		{"blockSize=4m,transferSize=1m", []Directive{{Key: "blockSize", Value: "4m"}, {Key: "transferSize", Value: "1m"}}, ""},
		{" blockSize = 4m ", []Directive{{Key: "blockSize", Value: "4m"}}, ""},
		{"testFile=a=b", []Directive{{Key: "testFile", Value: "a=b"}}, ""},
		{"checkRead=1 # comment, with=commas", []Directive{{Key: "checkRead", Value: "1"}}, ""},
		{"posix.odirect=1", []Directive{{Key: "posix.odirect", Value: "1"}}, ""},
		{"summaryFile=/tmp/out.json", []Directive{{Key: "summaryFile", Value: "/tmp/out.json"}}, ""},
		// SAD PATH
		{"", nil, `directive "": shorter than 3 characters`},
		{"ab", nil, `directive "ab": shorter than 3`},
		{"#x=1", nil, `directive "": shorter than 3`},
		{"a=1,", nil, `directive "": shorter than 3`},
		{"a=1,,b=2", nil, `directive "": shorter than 3`},
		{"abc", nil, `directive "abc": want key=value`},
		{"=abc", nil, `directive "=abc": missing key`},
		{"abc=", nil, `directive "abc=": missing value`},
		{"abc=   ", nil, `directive "abc=   ": missing value`},
		{"a b=1", nil, `directive "a b=1": spaces inside`},
		{"a=1 2", nil, `directive "a=1 2": spaces inside`},
		{"a=1\n2", nil, `spaces inside`},
		{"a=\n1", []Directive{{Key: "a", Value: "1"}}, ""}, // spaces around the value go
		// command-line pieces, as IOR hands them to its option parser
		{"--posix.odirect=1", []Directive{{Args: []string{"--posix.odirect=1"}}}, ""},
		{"  -a POSIX  ", []Directive{{Args: []string{"-a", "POSIX"}}}, ""},
		{"-a=POSIX,blockSize=4m", []Directive{{Args: []string{"-a=POSIX"}}, {Key: "blockSize", Value: "4m"}}, ""},
		{"-F", []Directive{{Args: []string{"-F"}}}, ""}, // IOR: shorter than 3 characters
		{"-b 4m -t 1m # both", []Directive{{Args: []string{"-b", "4m", "-t", "1m"}}}, ""},
	}
	for _, tt := range tests {
		got, err := ParseDirectives(tt.in)
		if tt.err != "" {
			checkError(t, "ParseDirectives("+tt.in+")", err, tt.err)
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseDirectives(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if got := (Directive{Key: "a", Value: "b"}).String(); got != "a=b" {
		t.Errorf("String() = %q", got)
	}
	if got := (Directive{Args: []string{"-a", "POSIX"}}).String(); got != "-a POSIX" {
		t.Errorf("String() = %q", got)
	}
}

// TestDirectiveKeys checks that every -O key the brief and IOR's
// DecodeDirective list is accepted.
func TestDirectiveKeys(t *testing.T) {
	t.Parallel()
	keys := map[string]string{
		"numNodes": "2", "numTasksOnNode0": "1", "platform": "lab(Linux)", "debug": "note",
		"memoryPerTask": "1m",
		"api":           "POSIX", "summaryFile": "f", "summaryFormat": "default", "saveRankPerformanceDetailsCSV": "f",
		"savePerOpDataCSV": "f", "refNum": "1", "testFile": "f", "deadlineForStonewalling": "1",
		"stoneWallingWearOut": "0", "stoneWallingWearOutIterations": "1", "stoneWallingStatusFile": "f",
		"maxTimeDuration": "1", "minTimeDuration": "1", "outlierThreshold": "1", "numTasks": "1",
		"repetitions": "1", "interTestDelay": "1", "interIODelay": "1", "readFile": "1", "writeFile": "1",
		"filePerProc": "1", "taskPerNodeOffset": "1", "reorderTasksConstant": "0", "reorderTasksRandom": "0",
		"reorderTasksRandomSeed": "1", "reorderTasks": "0", "checkWrite": "1", "checkRead": "0", "keepFile": "1",
		"keepFileWithError": "1", "multiFile": "1", "warningAsErrors": "1", "segmentCount": "1",
		"blockSize": "1m", "transferSize": "1k", "singleXferAttempt": "1", "intraTestBarriers": "1",
		"verbose": "1", "collective": "1", "setTimeStampSignature": "1", "dataPacketType": "o",
		"uniqueDir": "1", "useExistingTestFile": "1", "fsyncPerWrite": "1", "fsync": "1", "randomOffset": "0",
		"summaryAlways": "1", "dualMount": "0", "memoryPerNode": "1g", "useO_DIRECT": "1",
		"posix.odirect": "1", "dummy.delay-xfer": "1", "randomPrefill": "0", "random-offset-seed": "1",
		"dryRun": "1",
	}
	reg := testRegistry(t)
	for k, v := range keys {
		for _, key := range []string{k, strings.ToLower(k), strings.ToUpper(k)} {
			// -k -r: stoneWallingStatusFile is valid only for a kept file's read
			if _, err := Parse([]string{"-k", "-r", "-O", key + "=" + v}, reg); err != nil {
				t.Errorf("-O %s=%s: %v", key, v, err)
			}
		}
	}
}

// FuzzParseDirectives checks that the directive parser never panics,
// errors are one line, and what it accepts is well formed and round-trips.
func FuzzParseDirectives(f *testing.F) {
	for _, s := range []string{
		"a=1", "blockSize=4m,transferSize=1m", " k = v # c", "testFile=a=b", "", "ab", "a=1,", "=x", "x=",
		"#", "a=1#b=2", "a b=1", "k=\xff", "k=v,,", ",,,", "posix.odirect=1", "\xe2\x80=\x86",
		"--posix.odirect=1", " -a POSIX ,b=1", "-,-", "- x", "-\u2028x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ds, err := ParseDirectives(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if len(ds) == 0 {
			t.Fatalf("ParseDirectives(%q) accepted nothing without an error", s)
		}
		parts := make([]string, len(ds))
		for i, d := range ds {
			if d.Args != nil {
				if d.Key != "" || d.Value != "" || !strings.HasPrefix(d.Args[0], "-") {
					t.Fatalf("ParseDirectives(%q): bad command-line piece %q", s, d.Args)
				}
				for _, a := range d.Args {
					if a == "" || strings.ContainsAny(a, "#,") || strings.IndexFunc(a, unicode.IsSpace) >= 0 {
						t.Fatalf("ParseDirectives(%q): bad word %q", s, a)
					}
				}
				parts[i] = d.String()
				continue
			}
			// Key and value are checked apart: joined, the halves of an
			// invalid UTF-8 sequence can make a space ("\xe2\x80=\x86").
			if d.Key == "" || d.Value == "" || strings.ContainsRune(d.Key, '=') ||
				strings.ContainsAny(d.Key+d.Value, "#,") ||
				strings.IndexFunc(d.Key, unicode.IsSpace) >= 0 || strings.IndexFunc(d.Value, unicode.IsSpace) >= 0 {
				t.Fatalf("ParseDirectives(%q): bad directive %q", s, d)
			}
			parts[i] = d.String()
		}
		again, err := ParseDirectives(strings.Join(parts, ","))
		if err != nil || !reflect.DeepEqual(again, ds) {
			t.Fatalf("round trip of %q: %v, %v; want %v", s, again, err, ds)
		}
	})
}

// FuzzParse checks that no command line or script makes Parse panic, that
// errors are one line, and that what it accepts validates.
func FuzzParse(f *testing.F) {
	seeds := []struct{ args, script string }{
		{"-a\x00POSIX\x00-b\x00256m\x00-t\x001m\x00-wrWR\x00-G\x005\x00-i\x003", ""},
		{"-vvv\x00-z\x00-z\x00-F=0\x00-b4m\x00-b=8m", ""},
		{"-O\x00blockSize=4m,checkRead=1 # c\x00-O\x00posix.odirect=1", ""},
		{"--random-offset-seed=-1\x00--randomPrefill\x0064k\x00-z\x00--dryRun", ""},
		{"-f\x00s.ior\x00-k", "IOR START\napi=DUMMY\nRUN\nRUN\nblockSize=2m\nIOR STOP\n"},
		{"-f\x00s.ior", "IOR START\n-b 4m\nIOR STOP\n"},
		{"-f\x00s.ior", "IOR START\n--dummy.delay-create=1000,-a=DUMMY\n -a POSIX -wb 4m\nRUN # c\n-O -z-k\nIOR STOP\n"},
		{"-z-k\x00-wbk\x004m\x00-X\x00-13\x00-O\x00--posix.odirect=1\x00-d\x000.1", ""},
		{"-f\x00s.ior", "IOR START\nuseO_DIRECT=1\nRUN\n"},
		{"-b\x001.5m", ""},
		{"-h", ""},
		{"---\x00-\x00--\x00x", ""},
		{"-a\x00FAKE\x00--fake.x=0", ""},
		{"-q\x00-H", ""},
		{"--interval\x0050ms\x00--until-steady=200ms,50%\x00-D\x005", ""},
		{"--until-steady\x00-O\x00interval=2s", ""},
	}
	for _, s := range seeds {
		f.Add(s.args, s.script)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, args, script string) {
		var argv []string
		if args != "" {
			argv = strings.Split(args, "\x00")
		}
		fsys := fstest.MapFS{"s.ior": {Data: []byte(script)}}
		cfg, err := ParseFS(fsys, argv, reg)
		if err != nil {
			if cfg != nil {
				t.Fatal("config returned with an error")
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if len(cfg.Tests) == 0 {
			t.Fatal("no tests and no error")
		}
		for i, o := range cfg.Tests {
			if err := o.Validate(); err != nil {
				t.Fatalf("test %d was returned but does not validate: %v", i, err)
			}
			if o.ID != i {
				t.Fatalf("test %d has ID %d", i, o.ID)
			}
		}
	})
}
