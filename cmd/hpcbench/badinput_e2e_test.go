package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// badInput is a command line that must be refused before any work.
type badInput struct {
	name  string
	ranks int      // 0: run alone; N: under hpcbench launch -n N
	args  []string // the hpcbench command line
	want  []string // substrings of the one line that refuses it
}

// badInputs is every bad input of issue 11 with what refuses it. A row
// runs in an empty directory; the command's relative paths (-d md, -o
// testFile, made, ok) name what it would create there.
func badInputs() []badInput {
	return []badInput{
		// Memory: checked against the host (MemAvailable) for the ranks
		// on it. -t's bound holds on any host, so the -t rows want what
		// both messages say; the others need more than any host has.
		{"ior -t 64g", 0, []string{"ior", "-t", "64g", "-b", "64g", "-o", "testFile"},
			[]string{"ior: -t 64g: ", "2147479552 bytes", "(2 GiB - 4 KiB)"}},
		{"ior -t 8g, 3 ranks", 3, []string{"ior", "-t", "8g", "-b", "8g", "-o", "testFile"},
			[]string{"ior: -t 8g: ", "2147479552"}},
		{"ior -t 4g", 0, []string{"ior", "-t", "4g", "-b", "4g", "-o", "testFile"},
			[]string{"ior: -t 4g: ", "2147479552"}},
		{"mdtest -w 64g, 4 ranks", 4, []string{"mdtest", "-n", "1", "-w", "64g", "-d", "md"},
			[]string{"mdtest: -w 64g: needs 128 GiB of buffer per rank, 512 GiB for the 4 ranks on this host, which has ", "available (MemAvailable"}},
		{"mdtest -w 1t", 0, []string{"mdtest", "-n", "1", "-w", "1t", "-d", "md"},
			[]string{"mdtest: -w 1t: needs 2 TiB of buffer per rank, this host has "}},
		// mdtest keeps nothing per item but --savePerOpDataCSV's records:
		// -n 1e11 alone runs (its memory is that of -n 1), with them it
		// cannot.
		{"mdtest -n 1e11 --savePerOpDataCSV", 0, []string{"mdtest", "-n", "100000000000", "-d", "md", "--savePerOpDataCSV", "ops"},
			[]string{"mdtest: --savePerOpDataCSV with -n 100000000000: 16 bytes per operation: needs 1.5 TiB of buffer per rank, this host has "}},
		{"coll Alltoall 1 GiB, 8 ranks", 8, []string{"coll", "-msglog", "30", "Alltoall"},
			[]string{"coll: -msglog 0:30: needs 16 GiB of buffer per rank, 128 GiB for the 8 ranks on this host"}},

		// Output paths, checked before the run, named by their flag.
		{"ior summaryFile /proc", 0, []string{"ior", "-O", "summaryFile=/proc/x", "-o", "testFile"},
			[]string{"ior: -O summaryFile /proc/x: "}},
		{"ior summaryFile a directory", 2, []string{"ior", "--summaryFile", ".", "-o", "testFile"},
			[]string{"ior: -O summaryFile .: is a directory, want a file"}},
		{"ior rank CSV /proc", 0, []string{"ior", "-O", "saveRankPerformanceDetailsCSV=/proc/x", "-o", "testFile"},
			[]string{"ior: -O saveRankPerformanceDetailsCSV /proc/x: "}},
		{"ior per-op CSV in a missing directory", 0, []string{"ior", "-O", "savePerOpDataCSV=nodir/ops", "-o", "testFile"},
			[]string{"ior: -O savePerOpDataCSV nodir/ops-0-00000.csv: directory nodir does not exist"}},
		{"ior archive /proc", 0, []string{"ior", "-O", "archiveFile=/proc/x", "-o", "testFile"},
			[]string{"ior: -O archiveFile /proc/x: "}},
		{"mdtest --output /proc", 0, []string{"mdtest", "-n", "2", "-d", "md", "--output", "/proc/x"},
			[]string{"mdtest: --output /proc/x: "}},
		{"mdtest --output a directory", 2, []string{"mdtest", "-n", "2", "-d", "md", "--output", "/tmp"},
			[]string{"mdtest: --output /tmp: is a directory, want a file"}},
		{"mdtest rank details /proc", 0, []string{"mdtest", "-n", "2", "-d", "md", "--saveRankPerformanceDetails", "/proc/x"},
			[]string{"mdtest: --saveRankPerformanceDetails /proc/x: "}},
		{"mdtest archive a directory", 0, []string{"mdtest", "-n", "2", "-d", "md", "--archive", "/tmp"},
			[]string{"mdtest: --archive /tmp: is a directory"}},
		{"coll --output /proc", 2, []string{"coll", "-msglog", "0:2", "Barrier", "--output", "/proc/x"},
			[]string{"coll: --output /proc/x: "}},
		{"coll --output a directory", 0, []string{"coll", "-msglog", "0:2", "Barrier", "--output", "/tmp"},
			[]string{"coll: --output /tmp: is a directory, want a file"}},
		{"wireup --output /proc", 2, []string{"wireup", "--output", "/proc/x"},
			[]string{"wireup: --output /proc/x: "}},
		{"wireup --archive a directory", 0, []string{"wireup", "--archive", "/tmp"},
			[]string{"wireup: --archive /tmp: is a directory"}},
		{"plot -o /proc", 0, []string{"plot", "-o", "/proc/x.png", "a.json"},
			[]string{"plot: -o /proc/x.png: "}},

		// Two outputs naming one file, or the test file itself.
		{"ior -k -o f --archive f", 0, []string{"ior", "-w", "-k", "-o", "same.dat", "--archive", "same.dat"},
			[]string{"ior: -O archiveFile same.dat and -o same.dat name one file"}},
		{"ior summaryFile and --archive", 0, []string{"ior", "-a", "DUMMY", "-w", "-O", "summaryFile=out.json", "--archive", "out.json"},
			[]string{"-O summaryFile out.json name one file"}},
		{"mdtest --output and --archive", 0, []string{"mdtest", "-n", "2", "-d", "md", "--output", "o.json", "--archive", "./o.json"},
			[]string{"mdtest: --archive ./o.json and --output o.json name one file"}},
		{"coll --output and --archive, 2 ranks", 2, []string{"coll", "Barrier", "--output", "c.json", "--archive", "c.json"},
			[]string{"coll: --archive c.json and --output c.json name one file"}},
		{"fabric allpairs --output and --archive", 0, []string{"fabric", "allpairs", "--output", "a.json", "--archive", "a.json"},
			[]string{"--archive a.json and --output a.json name one file"}},

		// A format chosen twice, however spelt.
		{"ior -O summaryFormat twice", 0, []string{"ior", "-a", "DUMMY", "-w", "-O", "summaryFormat=JSON,summaryFormat=CSV"},
			[]string{"--summaryFormat JSON and --summaryFormat CSV: choose one"}},
		{"ior -O summaryFormat and --summaryFormat", 0, []string{"ior", "-a", "DUMMY", "-w", "-O", "summaryFormat=JSON", "--summaryFormat", "CSV"},
			[]string{"choose one"}},

		// An empty or missing path.
		{"ior --archive ''", 0, []string{"ior", "--archive", "", "-w", "-o", "f"}, []string{`ior: --archive: "": want a file name`}},
		{"mdtest --output=", 0, []string{"mdtest", "-n", "2", "-d", "md", "--output="}, []string{`--output: "": want a file name`}},
		{"coll --archive ''", 0, []string{"coll", "Barrier", "--archive", ""}, []string{`"": want a file name`}},
		{"wireup --output ''", 0, []string{"wireup", "--output", ""}, []string{`"": want a file name`}},
		{"launch --pmi-trace missing parent", 0, []string{"launch", "-n", "1", "--pmi-trace", "no/such/dir", "--", "true"},
			[]string{"launch: --pmi-trace no/such/dir: directory no/such does not exist"}},
		{"dfs pool create --targets 0", 0, []string{"dfs", "pool", "create", "p", "--targets", "0"}, []string{"--targets 0: want 1 to"}},
		{"fabric pingpong -S ''", 0, []string{"fabric", "pingpong", "-p", "tcp", "-S", ""}, []string{`-S "": want sizes`}},

		// O_DIRECT's alignment, before the header and the file.
		{"ior --posix.odirect -t 1000", 0, []string{"ior", "--posix.odirect", "-t", "1000", "-b", "1000", "-w", "-o", "f"},
			[]string{"ior: -a POSIX: --posix.odirect: -t 1000 and -b 1000: O_DIRECT needs multiples of 4096 bytes"}},
		{"ior -O posix.odirect=1 -b 6k, 2 ranks", 2, []string{"ior", "-O", "posix.odirect=1", "-t", "2k", "-b", "6k", "-w", "-o", "f"},
			[]string{"O_DIRECT needs multiples of 4096 bytes"}},

		// A usage error found before the job: printed by rank 0 only.
		{"ior -t 7, 3 ranks", 3, []string{"ior", "-t", "7", "-o", "testFile"},
			[]string{"ior: -b and -t must be multiples of 8 bytes"}},
		{"mdtest bad -n, 3 ranks", 3, []string{"mdtest", "-n", "ten", "-d", "md"},
			[]string{"mdtest: -n: "}},
		// Item counts that overflow: over the ranks, per rank, in mdtest's
		// numbering of a tree's items.
		{"mdtest -n over 2 ranks overflows", 2, []string{"mdtest", "-n", "5000000000000000000", "-d", "md"},
			[]string{"mdtest: -n 5000000000000000000 over 2 ranks: more than 9223372036854775807 items"}},
		{"mdtest -I per rank overflows", 0, []string{"mdtest", "-I", "4611686018427387904", "-z", "1", "-b", "2", "-d", "md"},
			[]string{"mdtest: -I 4611686018427387904 with -z 1 -b 2 (3 directories): more than 9223372036854775807 items per rank"}},
		{"mdtest -L item numbers overflow", 0, []string{"mdtest", "-n", "9223372036854775807", "-z", "1", "-b", "2", "-L", "-d", "md"},
			[]string{"mdtest: -n 9223372036854775807 with -z 1 -b 2 -L: 4611686018427387903 items in each of 3 directories: item numbers beyond 9223372036854775807"}},

		// 1-rank runs and roots beyond the job.
		{"coll -root 5, 1 rank", 0, []string{"coll", "-root", "5", "Bcast", "-msglog", "0:2"},
			[]string{"coll: -root 5: want a rank of the job, in [0, 0]"}},
		{"coll -root 5, 2 ranks", 2, []string{"coll", "-root", "5", "Bcast", "-msglog", "0:2"},
			[]string{"coll: -root 5: want a rank of the job, in [0, 1]"}},

		// Conflicting format options.
		{"coll --format json --csv", 2, []string{"coll", "--format", "json", "--csv"},
			[]string{"coll: --format json and --csv: choose one"}},
		{"coll --json --csv", 0, []string{"coll", "--json", "--csv"},
			[]string{"coll: --json and --csv: choose one"}},
		{"coll -format csv -json", 0, []string{"coll", "-format", "csv", "-json"},
			[]string{"coll: --format csv and --json: choose one"}},
		{"wireup --format csv --json", 0, []string{"wireup", "--format", "csv", "--json"},
			[]string{"wireup: --format csv and --json: choose one"}},
		{"mdtest --format twice", 0, []string{"mdtest", "-n", "2", "-d", "md", "--format", "json", "--format", "csv"},
			[]string{"mdtest: --format json and --format csv: choose one"}},
		{"mdtest --format json --output r.csv", 0, []string{"mdtest", "-n", "2", "-d", "md", "--format", "json", "--output", "r.csv"},
			[]string{"mdtest: --format json and --output r.csv: the file's name says csv; choose one"}},
		{"compare --format twice", 0, []string{"compare", "--format", "csv", "--format", "json", "a.json", "b.json"},
			[]string{"compare: --format csv and --format json: choose one"}},
		{"report --format twice", 0, []string{"report", "--format", "ior", "--format", "json", "a.json"},
			[]string{"report: --format ior and --format json: choose one"}},

		// mdtest makes only the last directory of -d, as mdtest does.
		{"mdtest -d deep", 0, []string{"mdtest", "-n", "2", "-d", "nonexistent/deep"},
			[]string{"mdtest: -d nonexistent/deep: directory nonexistent does not exist, and mdtest creates only the last directory of -d"}},
		{"mdtest -d deep on rank 1", 2, []string{"mdtest", "-n", "2", "-u", "-d", "ok@nonexistent/deep"},
			[]string{"mdtest: -d nonexistent/deep: directory nonexistent does not exist"}},
	}
}

// TestBadInputRefused: every bad input is refused before any work: exit
// 2 within seconds, one line on stderr from the command (and the
// launcher's own line when launched), naming the flag, never a Go crash;
// nothing on stdout; nothing created in the working directory.
func TestBadInputRefused(t *testing.T) {
	for _, c := range badInputs() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.args
			if c.ranks > 0 {
				args = append([]string{"launch", "-n", strconv.Itoa(c.ranks), "--", "hpcbench"}, args...)
			}
			r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, args...)
			var own, other []string
			for _, l := range strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n") {
				if strings.HasPrefix(l, "hpcbench: "+c.args[0]+": ") || strings.HasPrefix(l, "hpcbench: "+c.args[0]+" ") { // "fabric pingpong: "
					own = append(own, l)
				} else if !(c.ranks > 0 && strings.HasPrefix(l, "hpcbench: launch: ")) {
					other = append(other, l)
				}
			}
			if r.Code != 2 || r.Stdout != "" || len(own) != 1 || len(other) != 0 {
				t.Fatalf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout, one line from %s",
					args, r.Code, r.Stdout, r.Stderr, c.args[0])
			}
			for _, w := range c.want {
				if !strings.Contains(own[0], w) {
					t.Errorf("%q: %q does not say %q", args, own[0], w)
				}
			}
			if strings.Contains(own[0], ".tmp") || strings.Contains(own[0], ".check") {
				t.Errorf("%q: %q names a temporary file", args, own[0])
			}
			if r.Elapsed > 20*time.Second {
				t.Errorf("%q: refused after %v, want within 20 s", args, r.Elapsed)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				names := []string{}
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Errorf("%q left %v in its directory", args, names)
			}
		})
	}
}
