package main

import (
	"os"
	"path/filepath"
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

// badInputs is every bad input of issues 11 and 34 with what refuses it. A row
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

		// Progress intervals: a log's pace, 1s to 1h.
		{"ior --progress-interval 100ms", 0, []string{"ior", "--progress-interval", "100ms", "-w", "-o", "f"},
			[]string{`ior: --progress-interval: "100ms": want a duration in [1s, 1h]`}},
		{"mdtest --progress-interval abc", 0, []string{"mdtest", "--progress-interval", "abc", "-n", "2", "-d", "md"},
			[]string{`mdtest: --progress-interval: "abc": want a duration in [1s, 1h]`}},
		{"coll --progress=maybe", 0, []string{"coll", "--progress=maybe", "Bcast"},
			[]string{`coll: --progress: "maybe": want true or false`}},
		{"fabric pingpong --progress-interval 2h", 0, []string{"fabric", "pingpong", "--progress-interval", "2h"},
			[]string{`fabric: --progress-interval: "2h": want a duration in [1s, 1h]`}},
		{"ior --progress-interval missing", 2, []string{"ior", "-w", "--progress-interval"},
			[]string{"ior: --progress-interval: needs a value (a duration from 1s to 1h)"}},
		{"launch --progress-interval 0s", 0, []string{"launch", "--progress-interval", "0s", "-n", "1", "--", "true"},
			[]string{"launch: --progress-interval 0s: want a duration in [1s, 1h]"}},

		// mdtest makes only the last directory of -d, as mdtest does.
		{"mdtest -d deep", 0, []string{"mdtest", "-n", "2", "-d", "nonexistent/deep"},
			[]string{"mdtest: -d nonexistent/deep: directory nonexistent does not exist, and mdtest creates only the last directory of -d"}},
		{"mdtest -d deep on rank 1", 2, []string{"mdtest", "-n", "2", "-u", "-d", "ok@nonexistent/deep"},
			[]string{"mdtest: -d nonexistent/deep: directory nonexistent does not exist"}},

		// A user's first hour over every subcommand: values out of range
		// or not numbers at all, unknown names, missing operands, options
		// of another provider or backend, each with the line that says so.
		{"launch --pmi-trace /proc/x", 0, []string{"launch", "--pmi-trace", "/proc/x", "-n", "1", "--", "true"},
			[]string{"launch: --pmi-trace /proc/x: cannot be made: no such file or directory"}},
		{"hpcbench --bogus", 0, []string{"--bogus"}, []string{`unknown option "--bogus": a command comes first`}},
		{"launch -n x", 0, []string{"launch", "-n", "x", "--", "true"}, []string{`launch: -n: "x" is not a whole number: want 1 to 65536`}},
		{"fabric pingpong -W 1.5", 0, []string{"fabric", "pingpong", "-W", "1.5"}, []string{`fabric pingpong: -W: "1.5" is not a whole number: want 1 to 1048576`}},
		{"fabric pingpong --max-size 2g", 0, []string{"fabric", "pingpong", "-S", "all", "--max-size", "2g"}, []string{"fabric pingpong: --max-size 2g: must be 1 to 1g"}},
		{"wireup --card-size 10g", 0, []string{"wireup", "--card-size", "10g"}, []string{"wireup: --card-size 10g: want 1 to 1m"}},
		{"wireup --card-size x", 0, []string{"wireup", "--card-size", "x"}, []string{`wireup: --card-size: "x" is not a size`}},
		{"coll -npmin x", 0, []string{"coll", "-npmin", "x"}, []string{`coll: --npmin: "x" is not a whole number: want 1 or more`}},
		{"dfs pool create --targets x", 0, []string{"dfs", "pool", "create", "p", "--targets", "x"}, []string{`dfs pool create: --targets: "x" is not a whole number: want 1 to 1024`}},
		{"fabric allpairs -I y", 0, []string{"fabric", "allpairs", "-I", "y"}, []string{`fabric allpairs: -I: "y" is not a whole number: want 1 or more`}},
		{"mdtest --mmap option", 0, []string{"mdtest", "-a", "MMAP", "-n", "2", "-d", "md"}, []string{"mdtest: -a MMAP: backend does not support mdtest"}},
		{"ior -b 0", 0, []string{"ior", "-b", "0"},
			[]string{"ior: -b must be > 0 (got 0)"}},
		{"ior -t 0", 0, []string{"ior", "-t", "0"},
			[]string{"ior: -t must be > 0 (got 0)"}},
		{"ior -b 1m -t 3m", 0, []string{"ior", "-b", "1m", "-t", "3m"},
			[]string{"ior: -b 1048576 is not a multiple of -t 3145728 (it is smaller)"}},
		{"ior -s 0", 0, []string{"ior", "-s", "0"},
			[]string{"ior: -s must be >= 1 (got 0)"}},
		{"ior -s -1", 0, []string{"ior", "-s", "-1"},
			[]string{"ior: -s must be >= 1 (got -1)"}},
		{"ior -i 0", 0, []string{"ior", "-i", "0"},
			[]string{"ior: -i must be >= 1 (got 0)"}},
		{"ior -i -2", 0, []string{"ior", "-i", "-2"},
			[]string{"ior: -i must be >= 1 (got -2)"}},
		{"ior -N 0", 0, []string{"ior", "-N", "0"},
			[]string{"ior: -N must be >= 1, or -1 for all tasks (got 0)"}},
		{"ior -a NOPE", 0, []string{"ior", "-a", "NOPE"},
			[]string{"ior: -a: unknown API \"NOPE\": want one of POSIX, MMAP, DUMMY, DFS"}},
		{"ior -w -r -W -R -Z -z", 0, []string{"ior", "-w", "-r", "-W", "-R", "-Z", "-z"},
			[]string{"ior: -z with -Z needs -F (file per process)"}},
		{"ior -Q 0 -C", 0, []string{"ior", "-Q", "0", "-C"},
			[]string{"ior: -Q must be >= 1 (got 0)"}},
		{"ior -b 1.5m", 0, []string{"ior", "-b", "1.5m"},
			[]string{"ior: -b: \"1.5m\" is not a size: fractions are not accepted: give a whole number of bytes or a smaller suffix"}},
		{"ior -t 4q", 0, []string{"ior", "-t", "4q"},
			[]string{"ior: -t: \"4q\" is not a size: unknown suffix \"q\": want k, m, g, t (powers of 1024), KiB, MiB, GiB, TiB or B"}},
		{"ior -O nosuchkey=1", 0, []string{"ior", "-O", "nosuchkey=1"},
			[]string{"ior: -O: unknown directive \"nosuchkey\""}},
		{"ior -O blockSize", 0, []string{"ior", "-O", "blockSize"},
			[]string{"ior: -O: directive \"blockSize\": want key=value"}},
		{"ior -f /nonexistent/script", 0, []string{"ior", "-f", "/nonexistent/script"},
			[]string{"ior: -f /nonexistent/script: open script: open /nonexistent/script: no such file or directory"}},
		{"ior -D -1", 0, []string{"ior", "-D", "-1"},
			[]string{"ior: -D must be >= 0 (got -1)"}},
		{"ior -T -5", 0, []string{"ior", "-T", "-5"},
			[]string{"ior: -T must be >= 0 (got -5)"}},
		{"ior -d -1", 0, []string{"ior", "-d", "-1"},
			[]string{"ior: -d must be >= 0 (got -1)"}},
		{"ior -l nosuch", 0, []string{"ior", "-l", "nosuch"},
			[]string{"ior: -l: unknown data packet type \"nosuch\": want timestamp, offset, incompressible or random (or t, o, i, r)"}},
		{"ior --interval 0", 0, []string{"ior", "--interval", "0"},
			[]string{"ior: --interval: 0s: want a duration in [1ms, 1h]"}},
		{"ior --interval 2h", 0, []string{"ior", "--interval", "2h"},
			[]string{"ior: --interval: 2h0m0s: want a duration in [1ms, 1h]"}},
		{"ior --until-steady abc", 0, []string{"ior", "--until-steady", "abc"},
			[]string{"ior: unexpected argument \"abc\": IOR options start with - (such as -b 4m or -O key=value)"}},
		{"ior -G abc", 0, []string{"ior", "-G", "abc"},
			[]string{"ior: -G: \"abc\" is not a whole number: want digits, optionally with a k, m, g, t or p suffix"}},
		{"ior --phase-timeout 10ms", 0, []string{"ior", "--phase-timeout", "10ms"},
			[]string{"ior: --phase-timeout: 10ms: want 0 (off) or a duration in [100ms, 1000h]"}},
		{"ior -k -o ''", 0, []string{"ior", "-k", "-o", ""},
			[]string{"ior: -o must name a file"}},
		{"ior extra-arg", 0, []string{"ior", "extra-arg"},
			[]string{"ior: unexpected argument \"extra-arg\": IOR options start with - (such as -b 4m or -O key=value)"}},
		{"ior -O summaryFormat=XML", 0, []string{"ior", "-O", "summaryFormat=XML"},
			[]string{"ior: -O: summaryFormat: unknown summary format \"XML\": want default, JSON or CSV"}},
		{"ior --dfs.pool", 0, []string{"ior", "--dfs.pool"},
			[]string{"ior: --dfs.pool: needs a value"}},
		{"ior -a DFS", 0, []string{"ior", "-a", "DFS"},
			[]string{"ior: -a DFS: --dfs.pool: required: the pool's directory (make one with hpcbench dfs pool create DIR)"}},
		{"ior -a DFS --dfs.pool p", 0, []string{"ior", "-a", "DFS", "--dfs.pool", "p"},
			[]string{"ior: -a DFS: --dfs.cont: required: a container label"}},
		{"ior -a DFS --dfs.pool p --dfs.cont c --dfs.oclass S3", 0, []string{"ior", "-a", "DFS", "--dfs.pool", "p", "--dfs.cont", "c", "--dfs.oclass", "S3"},
			[]string{"ior: -a DFS: --dfs.oclass S3: Invalid DAOS object class: want S1, S2, S4, ..., S1024 or SX"}},
		{"mdtest -n -5", 0, []string{"mdtest", "-n", "-5"},
			[]string{"mdtest: -n must be >= 0 (got -5)"}},
		{"mdtest -z -1", 0, []string{"mdtest", "-z", "-1"},
			[]string{"mdtest: -z must be >= 0 (got -1)"}},
		{"mdtest -b 0 -z 2", 0, []string{"mdtest", "-b", "0", "-z", "2"},
			[]string{"mdtest: -b must be >= 1 (got 0)"}},
		{"mdtest -i 0", 0, []string{"mdtest", "-i", "0"},
			[]string{"mdtest: -i must be >= 1 (got 0)"}},
		{"mdtest -N -1", 0, []string{"mdtest", "-N", "-1"},
			[]string{"mdtest: -N must be >= 0 (got -1)"}},
		{"mdtest -w -1", 0, []string{"mdtest", "-w", "-1"},
			[]string{"mdtest: -w: \"-1\" is not a size: want digits then an optional k, m, g or t"}},
		{"mdtest -e 1.5k", 0, []string{"mdtest", "-e", "1.5k"},
			[]string{"mdtest: -e: \"1.5k\" is not a size: fractions are not accepted: give a whole number of bytes or a smaller suffix"}},
		{"mdtest -a NOPE", 0, []string{"mdtest", "-a", "NOPE"},
			[]string{"mdtest: -a: unknown API \"NOPE\": want one of POSIX, DUMMY, DFS"}},
		{"mdtest -a MMAP", 0, []string{"mdtest", "-a", "MMAP"},
			[]string{"mdtest: -a MMAP: backend does not support mdtest"}},
		{"mdtest -d ''", 0, []string{"mdtest", "-d", ""},
			[]string{"mdtest: -d: empty directory: want dir or dir1@dir2@..."}},
		{"mdtest -W -3", 0, []string{"mdtest", "-W", "-3"},
			[]string{"mdtest: -W must be >= 0 (0: off) (got -3)"}},
		{"mdtest --interval 0", 0, []string{"mdtest", "--interval", "0"},
			[]string{"mdtest: --interval: 0s: want a duration in [1ms, 1h]"}},
		{"mdtest -n 10 -I 3", 0, []string{"mdtest", "-n", "10", "-I", "3"},
			[]string{"mdtest: -n 10 is not a multiple of -I 3: without -u, the run makes -n/-I test directories of -I items per directory"}},
		{"mdtest -n 10 -x /nonexistent/stonewall", 0, []string{"mdtest", "-n", "10", "-x", "/nonexistent/stonewall"},
			[]string{"mdtest: -x /nonexistent/stonewall: directory /nonexistent does not exist"}},
		{"mdtest -R abc", 0, []string{"mdtest", "-R", "abc"},
			[]string{"mdtest: unexpected argument \"abc\": mdtest options start with - (such as -n 100 or -d dir)"}},
		{"mdtest -S -u", 0, []string{"mdtest", "-S", "-u"},
			[]string{"mdtest: -u cannot be combined with -S"}},
		{"mdtest --format xml", 0, []string{"mdtest", "--format", "xml"},
			[]string{"mdtest: --format: unknown format \"xml\": want human, json or csv"}},
		{"mdtest extra", 0, []string{"mdtest", "extra"},
			[]string{"mdtest: unexpected argument \"extra\": mdtest options start with - (such as -n 100 or -d dir)"}},
		{"coll -msglog 5:2", 0, []string{"coll", "-msglog", "5:2"},
			[]string{"coll: --msglog: want MIN:MAX with 0 <= MIN < MAX <= 30"}},
		{"coll -msglog 31", 0, []string{"coll", "-msglog", "31"},
			[]string{"coll: --msglog: want MIN:MAX with 0 <= MIN < MAX <= 30"}},
		{"coll -msglog x", 0, []string{"coll", "-msglog", "x"},
			[]string{"coll: --msglog: want MIN:MAX with 0 <= MIN < MAX <= 30"}},
		{"coll -iter 0", 0, []string{"coll", "-iter", "0"},
			[]string{"coll: --iter: want N[,VOL] with N in [1, 2147483647] repetitions and VOL in [0, 1048576] MiB"}},
		{"coll -iter_policy sometimes", 0, []string{"coll", "-iter_policy", "sometimes"},
			[]string{"coll: -iter_policy \"sometimes\": must be dynamic or off"}},
		{"coll -time 0", 0, []string{"coll", "-time", "0"},
			[]string{"coll: --time: want seconds > 0, such as 10 or 0.5, or a duration such as 500ms"}},
		{"coll -npmin 0", 0, []string{"coll", "-npmin", "0"},
			[]string{"coll: -npmin 0: must be at least 1"}},
		{"coll -root -1", 0, []string{"coll", "-root", "-1"},
			[]string{"coll: -root -1: must be a rank, at least 0"}},
		{"coll Nosuchbench", 0, []string{"coll", "Nosuchbench"},
			[]string{"coll: unknown benchmark \"Nosuchbench\": want one of PingPong, PingPing, Sendrecv, Exchange, Allreduce, Reduce, Allgather, Gather, Scatter, Alltoall, Bcast, Barrier"}},
		{"coll -msglen /nonexistent", 0, []string{"coll", "-msglen", "/nonexistent"},
			[]string{"coll: --msglen: /nonexistent: open /nonexistent: no such file or directory"}},
		{"coll --fabric carrier-pigeon", 0, []string{"coll", "--fabric", "carrier-pigeon"},
			[]string{"coll: --fabric \"carrier-pigeon\": want auto, ofi:PROVIDER or one of shm, tcp"}},
		{"coll --alg allreduce=nope", 0, []string{"coll", "--alg", "allreduce=nope"},
			[]string{"coll: --alg: collectives: algorithm choice \"allreduce=nope\": unknown allreduce algorithm \"nope\": have auto, recursive-doubling, rabenseifner, ring, reduce-bcast"}},
		{"coll --alg nonsense", 0, []string{"coll", "--alg", "nonsense"},
			[]string{"coll: --alg: collectives: algorithm choice \"nonsense\": want collective=algorithm, for example allreduce=ring"}},
		{"coll --interval 0", 0, []string{"coll", "--interval", "0"},
			[]string{"coll: --interval: 0s: want a duration in [1ms, 1h]"}},
		{"coll -sync maybe", 0, []string{"coll", "-sync", "maybe"},
			[]string{"coll: --sync: want on or off (or enable, yes, 1; disable, no, 0)"}},
		{"coll --format xml", 0, []string{"coll", "--format", "xml"},
			[]string{"coll: --format: invalid format \"xml\": want human (or text), json or csv"}},
		{"fabric", 0, []string{"fabric"},
			[]string{"fabric: want a test: pingpong, bw, rma_bw, rma_pingpong, allpairs or info (hpcbench fabric --help)"}},
		{"fabric nosuchtest", 0, []string{"fabric", "nosuchtest"},
			[]string{"fabric: unknown test \"nosuchtest\": want one of pingpong, bw, rma_bw, rma_pingpong, allpairs, info"}},
		{"fabric pingpong -p carrier", 0, []string{"fabric", "pingpong", "-p", "carrier"},
			[]string{"fabric pingpong: -p carrier: no such provider: want one of tcp, shm, verbs"}},
		{"fabric pingpong -S 2g", 0, []string{"fabric", "pingpong", "-S", "2g"},
			[]string{"fabric pingpong: -S \"2g\": want sizes of 0 to 1g (64, 4k, 1m), a comma-separated list, or all"}},
		{"fabric pingpong -S 1,x", 0, []string{"fabric", "pingpong", "-S", "1,x"},
			[]string{"fabric pingpong: -S \"1,x\": want sizes of 0 to 1g (64, 4k, 1m), a comma-separated list, or all"}},
		{"fabric pingpong -I 0", 0, []string{"fabric", "pingpong", "-I", "0"},
			[]string{"fabric pingpong: -I 0: must be 1 to 1099511627776"}},
		{"fabric pingpong -W 0", 0, []string{"fabric", "pingpong", "-W", "0"},
			[]string{"fabric pingpong: -W 0: must be 1 to 1048576"}},
		{"fabric pingpong -w -1", 0, []string{"fabric", "pingpong", "-w", "-1"},
			[]string{"fabric pingpong: -w -1: must be 0 to 1099511627776"}},
		{"fabric pingpong -D -1", 0, []string{"fabric", "pingpong", "-D", "-1"},
			[]string{"fabric pingpong: -D: -1: must be 0 to 1000000 seconds"}},
		{"fabric pingpong -D 1 --report-interval 2s", 0, []string{"fabric", "pingpong", "-D", "1", "--report-interval", "2s"},
			[]string{"fabric pingpong: --report-interval 2s: must not be longer than -D 1s"}},
		{"fabric pingpong -B 0", 0, []string{"fabric", "pingpong", "-B", "0"},
			[]string{"fabric pingpong: -B 0: the server's control port must be 1 to 65535"}},
		{"fabric pingpong -P 70000", 0, []string{"fabric", "pingpong", "-P", "70000"},
			[]string{"fabric pingpong: -P 70000: must be a port, 1 to 65535"}},
		{"fabric pingpong -e rdm", 0, []string{"fabric", "pingpong", "-e", "rdm"},
			[]string{"fabric pingpong: -e rdm: -p tcp has one endpoint type, msg (reliable, connected); rdm is -p ofi:PROVIDER's"}},
		{"fabric pingpong -p tcp --inline 5", 0, []string{"fabric", "pingpong", "-p", "tcp", "--inline", "5"},
			[]string{"fabric pingpong: -g, --inline and --event are verbs' options: -p tcp has none of them"}},
		{"fabric pingpong -p tcp -g 1", 0, []string{"fabric", "pingpong", "-p", "tcp", "-g", "1"},
			[]string{"fabric pingpong: -g, --inline and --event are verbs' options: -p tcp has none of them"}},
		{"fabric pingpong --timeout -1s", 0, []string{"fabric", "pingpong", "--timeout", "-1s"},
			[]string{"fabric pingpong: --timeout and --accept-timeout must not be negative"}},
		{"fabric pingpong a b", 0, []string{"fabric", "pingpong", "a", "b"},
			[]string{"fabric pingpong: one server HOST at most, got \"a b\""}},
		{"fabric pingpong --format xml", 0, []string{"fabric", "pingpong", "--format", "xml"},
			[]string{"fabric pingpong: --format: invalid format \"xml\": want human (or text), json or csv"}},
		{"fabric info -p nope", 0, []string{"fabric", "info", "-p", "nope"},
			[]string{"fabric info: -p nope: no such provider: want one of tcp, shm, verbs"}},
		{"fabric info extra", 0, []string{"fabric", "info", "extra"},
			[]string{"fabric info: unexpected argument \"extra\""}},
		{"fabric allpairs -p nope", 0, []string{"fabric", "allpairs", "-p", "nope"},
			[]string{"fabric allpairs: -p nope: no such provider: want one of tcp, shm, verbs"}},
		{"fabric allpairs --lat-size x", 0, []string{"fabric", "allpairs", "--lat-size", "x"},
			[]string{"fabric allpairs: --lat-size \"x\": want a size of 0 to 1g"}},
		{"fabric allpairs --bw-size 2g", 0, []string{"fabric", "allpairs", "--bw-size", "2g"},
			[]string{"fabric allpairs: --bw-size \"2g\": want a size of 0 to 1g"}},
		{"fabric allpairs -I 0", 0, []string{"fabric", "allpairs", "-I", "0"},
			[]string{"fabric allpairs: -I and --bw-iters must be 1 or more, -W 1 or more, -w and --timeout not negative"}},
		{"fabric allpairs --test-slow-link bad", 0, []string{"fabric", "allpairs", "--test-slow-link", "bad"},
			[]string{"fabric allpairs: --test-slow-link \"bad\": want A:B:DELAY (1:3:2ms)"}},
		{"wireup --pattern star", 0, []string{"wireup", "--pattern", "star"},
			[]string{"wireup: --pattern \"star\": must be ring or all"}},
		{"wireup --timeout 0", 0, []string{"wireup", "--timeout", "0"},
			[]string{"wireup: --timeout 0s: must be positive"}},
		{"wireup --timeout -1s", 0, []string{"wireup", "--timeout", "-1s"},
			[]string{"wireup: --timeout -1s: must be positive"}},
		{"wireup extra", 0, []string{"wireup", "extra"},
			[]string{"wireup: unexpected argument \"extra\""}},
		{"wireup --card-size 0", 0, []string{"wireup", "--card-size", "0"},
			[]string{"wireup: --card-size 0: want 1 to 1m"}},
		{"wireup --card-size 2m", 0, []string{"wireup", "--card-size", "2m"},
			[]string{"wireup: --card-size 2m: want 1 to 1m"}},
		{"wireup --format xml", 0, []string{"wireup", "--format", "xml"},
			[]string{"wireup: --format: invalid format \"xml\": want human (or text), json or csv"}},
		{"launch", 0, []string{"launch"},
			[]string{"launch: missing command: usage is hpcbench launch -n N [flags] -- CMD [ARGS...]"}},
		{"launch -n 0 -- true", 0, []string{"launch", "-n", "0", "--", "true"},
			[]string{"launch: -n 0: must be in [1, 65536]"}},
		{"launch -n 2", 0, []string{"launch", "-n", "2"},
			[]string{"launch: missing command: usage is hpcbench launch -n N [flags] -- CMD [ARGS...]"}},
		{"launch -n 2 -- /nonexistent/cmd", 0, []string{"launch", "-n", "2", "--", "/nonexistent/cmd"},
			[]string{"launch: command \"/nonexistent/cmd\": stat /nonexistent/cmd: no such file or directory"}},
		{"launch --timeout -1s -n 1 -- true", 0, []string{"launch", "--timeout", "-1s", "-n", "1", "--", "true"},
			[]string{"launch: --timeout -1s: must not be negative"}},
		{"launch --bind-to socketz -n 1 -- true", 0, []string{"launch", "--bind-to", "socketz", "-n", "1", "--", "true"},
			[]string{"launch: --bind-to \"socketz\": must be one of none, hwthread, core, socket"}},
		{"launch --phase-timeout 1ms -n 1 -- true", 0, []string{"launch", "--phase-timeout", "1ms", "-n", "1", "--", "true"},
			[]string{"launch: --phase-timeout 1ms: want 0 (off) or a duration in [100ms, 1000h]"}},
		// Hosts (issue 35): the lists, the files and the placement options.
		{"launch -hosts a,,b -- true", 0, []string{"launch", "-hosts", "a,,b", "--", "true"},
			[]string{"launch: --hosts: host 2 is empty: want HOST or HOST:N between the commas"}},
		{"launch --hosts a: -- true", 0, []string{"launch", "--hosts", "a:", "--", "true"},
			[]string{"launch: --hosts: \"a:\": slots \"\": want a whole number from 1 to 65536"}},
		{"launch --hosts a:0 -- true", 0, []string{"launch", "--hosts", "a:0", "--", "true"},
			[]string{"launch: --hosts: \"a:0\": slots \"0\": want a whole number from 1 to 65536"}},
		{"launch -host -oProxyCommand=x -- true", 0, []string{"launch", "-host", "-oProxyCommand=x", "--", "true"},
			[]string{"launch: --hosts: \"-oProxyCommand=x\": want a host name or IPv4 address"}},
		{"launch --hosts a:65536,b -- true", 0, []string{"launch", "--hosts", "a:65536,b", "--", "true"},
			[]string{"launch: --hosts: 65537 slots in all, more ranks than a job may have: give -n (1 to 65536)"}},
		{"launch -f hosts -n 1 -- true", 0, []string{"launch", "-f", "hosts", "-n", "1", "--", "true"},
			[]string{"launch: --hostfile hosts: cannot be read: no such file or directory"}},
		{"launch -machinefile . -- true", 0, []string{"launch", "-machinefile", ".", "--", "true"},
			[]string{"launch: --hostfile .: is a directory, want a file"}},
		{"launch -hostfile /dev/null -- true", 0, []string{"launch", "-hostfile", "/dev/null", "--", "true"},
			[]string{"launch: --hostfile /dev/null: names no host (only blank lines and comments)"}},
		{"launch --hosts a --hostfile /dev/null -- true", 0, []string{"launch", "--hosts", "a", "--hostfile", "/dev/null", "--", "true"},
			[]string{"launch: --hostfile: given after --hosts: want one list of hosts"}},
		{"launch -ppn 0 -- true", 0, []string{"launch", "-ppn", "0", "--", "true"},
			[]string{"launch: --ppn 0: want a whole number from 1 to 65536"}},
		{"launch -ppn -2 -- true", 0, []string{"launch", "-ppn", "-2", "--", "true"},
			[]string{"launch: --ppn -2: want a whole number from 1 to 65536"}},
		{"launch -ppn 70000 -- true", 0, []string{"launch", "-ppn", "70000", "--", "true"},
			[]string{"launch: --ppn 70000: want a whole number from 1 to 65536"}},
		{"launch -ppn two -- true", 0, []string{"launch", "-ppn", "two", "--", "true"},
			[]string{"launch: --ppn: \"two\" is not a whole number: want 1 to 65536"}},
		{"launch -ppn 2 -rr -- true", 0, []string{"launch", "-ppn", "2", "-rr", "--", "true"},
			[]string{"launch: --rr is --ppn 1: not with --ppn 2"}},
		{"launch --hosts a,b --rsh ''", 0, []string{"launch", "--hosts", "a,b", "--rsh", "", "--", "true"},
			[]string{`launch: --rsh "": want a command`}},
		{"launch --launcher lsf", 0, []string{"launch", "--hosts", "a,b", "--launcher", "lsf", "--", "true"},
			[]string{`launch: --launcher "lsf": want ssh, rsh, fork`}},
		{"launch -launcher fork -rsh ssh", 0, []string{"launch", "--hosts", "a,b", "-launcher", "fork", "-rsh", "ssh", "--", "true"},
			[]string{"launch: --rsh has no use with --launcher fork, which starts the proxies on this machine"}},
		{"launch -launcher fork -launcher-exec ssh", 0, []string{"launch", "--hosts", "a,b", "-launcher", "fork", "-launcher-exec", "ssh", "--", "true"},
			[]string{"launch: --launcher-exec has no use with --launcher fork, which starts the proxies on this machine"}},
		{"launch --rsh ssh --launcher-exec ssh", 0, []string{"launch", "--hosts", "a,b", "--rsh", "ssh", "--launcher-exec", "ssh", "--", "true"},
			[]string{"launch: --rsh and --launcher-exec both name the remote shell: give one"}},
		{"launch --launcher-exec ''", 0, []string{"launch", "--hosts", "a,b", "--launcher-exec", "", "--", "true"},
			[]string{`launch: --launcher-exec "": want a command`}},
		{"dfs", 0, []string{"dfs"},
			[]string{"dfs: want pool, cont or engine (hpcbench dfs --help)"}},
		{"dfs frob", 0, []string{"dfs", "frob"},
			[]string{"dfs: unknown command \"frob\": want pool, cont or engine"}},
		{"dfs pool", 0, []string{"dfs", "pool"},
			[]string{"dfs pool: want create, list, query or destroy"}},
		{"dfs pool frob p", 0, []string{"dfs", "pool", "frob", "p"},
			[]string{"dfs pool: unknown command \"frob\": want create, list, query or destroy"}},
		{"dfs pool create", 0, []string{"dfs", "pool", "create"},
			[]string{"dfs pool create: want the pool's DIR"}},
		{"dfs pool create p --targets 2000", 0, []string{"dfs", "pool", "create", "p", "--targets", "2000"},
			[]string{"dfs pool create: --targets 2000: want 1 to 1024, and not with --target"}},
		{"dfs pool create p --targets 2 --target t", 0, []string{"dfs", "pool", "create", "p", "--targets", "2", "--target", "t"},
			[]string{"dfs pool create: --targets 2: want 1 to 1024, and not with --target"}},
		{"dfs pool query missing", 0, []string{"dfs", "pool", "query", "missing"},
			[]string{"dfs pool query: pool missing: no such directory (make a pool with hpcbench dfs pool create missing)"}},
		{"dfs pool destroy missing", 0, []string{"dfs", "pool", "destroy", "missing"},
			[]string{"dfs pool destroy: pool missing: no such directory (make a pool with hpcbench dfs pool create missing)"}},
		{"dfs cont create missing c", 0, []string{"dfs", "cont", "create", "missing", "c"},
			[]string{"dfs cont create: pool missing: no such directory (make a pool with hpcbench dfs pool create missing)"}},
		{"dfs cont create p", 0, []string{"dfs", "cont", "create", "p"},
			[]string{"dfs cont create: want the pool's DIR and a container LABEL"}},
		{"dfs cont query missing c", 0, []string{"dfs", "cont", "query", "missing", "c"},
			[]string{"dfs cont query: pool missing: no such directory (make a pool with hpcbench dfs pool create missing)"}},
		{"dfs engine", 0, []string{"dfs", "engine"},
			[]string{"dfs engine: --pool: required: the pool's directory"}},
		{"dfs engine --pool missing", 0, []string{"dfs", "engine", "--pool", "missing"},
			[]string{"dfs engine: --pool: pool missing: no such directory (make a pool with hpcbench dfs pool create missing)"}},
		{"dfs engine --pool p extra", 0, []string{"dfs", "engine", "--pool", "p", "extra"},
			[]string{"dfs engine: unexpected argument \"extra\""}},
		{"report", 0, []string{"report"},
			[]string{"report: want one or more archives (FILE...), got none"}},
		{"report missing.json", 0, []string{"report", "missing.json"},
			[]string{"report: missing.json"}},
		{"report --format nope missing.json", 0, []string{"report", "--format", "nope", "missing.json"},
			[]string{`report: --format: unknown format "nope": want one of human, json, csv`}},
		{"compare", 0, []string{"compare"},
			[]string{"compare: want two operands, OLD and NEW (or OLD... -- NEW...), got 0"}},
		{"compare a.json", 0, []string{"compare", "a.json"},
			[]string{"compare: want two operands, OLD and NEW (or OLD... -- NEW...), got 1"}},
		{"compare missing1.json missing2.json", 0, []string{"compare", "missing1.json", "missing2.json"},
			[]string{"compare: missing1.json"}},
		{"compare --threshold abc a.json b.json", 0, []string{"compare", "--threshold", "abc", "a.json", "b.json"},
			[]string{"compare: --threshold \"abc\": want a percentage >= 0 such as 5%"}},
		{"plot", 0, []string{"plot"},
			[]string{"plot: no output: give -o FILE (.png or .svg) or --terminal"}},
		{"plot missing.json", 0, []string{"plot", "missing.json"},
			[]string{"plot: no output: give -o FILE (.png or .svg) or --terminal"}},
		{"plot --chart nope a.json", 0, []string{"plot", "--chart", "nope", "a.json"},
			[]string{"plot: --chart \"nope\": want one of auto, size, phase, time"}},
		{"plot -o out.bmp a.json", 0, []string{"plot", "-o", "out.bmp", "a.json"},
			[]string{"plot: -o \"out.bmp\": the file name must end in .png or .svg"}},
		{"version extra", 0, []string{"version", "extra"},
			[]string{"version: takes no arguments, got \"extra\""}},
		{"help nosuch", 0, []string{"help", "nosuch"},
			[]string{"help: unknown command \"nosuch\"; run 'hpcbench help' for the list"}},
		{"help ior extra", 0, []string{"help", "ior", "extra"},
			[]string{"help: takes one command name and an optional --help, got \"extra\""}},
	}
}

// keepName and keepData are a file every bad-input row finds in its
// directory and must leave as it was.
const (
	keepName = "keep.dat"
	keepData = "the user's data\n"
)

// TestBadInputRefused: every bad input is refused before any work: exit
// 2 within seconds, one line on stderr from the command (and the
// launcher's own line when launched), naming the flag, never a Go crash;
// nothing on stdout; nothing created in the working directory.
func TestBadInputRefused(t *testing.T) {
	for _, c := range badInputs() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			// A file the user had there stays as it was.
			keep := filepath.Join(dir, keepName)
			if err := os.WriteFile(keep, []byte(keepData), 0o644); err != nil {
				t.Fatal(err)
			}
			args := c.args
			if c.ranks > 0 {
				args = append([]string{"launch", "-n", strconv.Itoa(c.ranks), "--", "hpcbench"}, args...)
			}
			r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, args...)
			var own, other []string
			for _, l := range strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n") {
				if strings.HasPrefix(l, "hpcbench: "+c.args[0]+": ") || strings.HasPrefix(l, "hpcbench: "+c.args[0]+" ") || // "fabric pingpong: "
					strings.HasPrefix(c.args[0], "-") && strings.HasPrefix(l, "hpcbench: unknown option ") {
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
			for _, crash := range []string{"panic:", "goroutine ", "runtime error", "fatal error", "runtime."} {
				if strings.Contains(r.Stderr, crash) {
					t.Errorf("%q: stderr shows a crash (%q):\n%s", args, crash, r.Stderr)
				}
			}
			if strings.Contains(own[0], ".tmp") || strings.Contains(own[0], ".check") {
				t.Errorf("%q: %q names a temporary file", args, own[0])
			}
			if r.Elapsed > 20*time.Second {
				t.Errorf("%q: refused after %v, want within 20 s", args, r.Elapsed)
			}
			if b, err := os.ReadFile(keep); err != nil || string(b) != keepData {
				t.Errorf("%q changed the file that was there: %q, %v", args, b, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 1 {
				names := []string{}
				for _, e := range left {
					if e.Name() != keepName {
						names = append(names, e.Name())
					}
				}
				t.Errorf("%q left %v in its directory", args, names)
			}
		})
	}
}
