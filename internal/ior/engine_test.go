package ior

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// results returns the results rows of test k as column name → label or
// metric, formatted.
func results(t *testing.T, r *report.Result, k int) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, c := range cells(distTable(t, r, report.IORTableName(k, report.IORResults))) {
		m := map[string]string{}
		for k, v := range c {
			if f, ok := v.(float64); ok {
				v = strconv.FormatFloat(f, 'g', -1, 64)
			}
			m[k] = v.(string)
		}
		out = append(out, m)
	}
	return out
}

// TestPOSIXEndToEndInProcess runs real I/O through the engine on several
// ranks, shared file and file per process, and checks the figures add up
// and nothing is left behind.
func TestPOSIXEndToEndInProcess(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks int
		flags string
	}{
		{"shared", 4, "-w -r -W -R -i 2"},
		{"fpp", 4, "-w -r -W -R -F -i 2"},
		{"fpp-reorder", 3, "-w -r -W -R -F -C"},
		{"shared-reorder", 4, "-w -r -R -C"},
		{"shared-random-offsets-fpp", 2, "-w -r -R -F -z --random-offset-seed=7"},
		{"offset-pattern", 2, "-w -r -W -R -l offset"},
		{"random-pattern", 2, "-w -r -W -R -l random"},
		{"incompressible", 2, "-w -r -W -R -l incompressible"},
		{"segments", 3, "-w -r -R -s 3 -b 64k -t 16k"},
		{"numtasks", 4, "-w -r -R -N 2"},
		{"uniquedir", 2, "-w -r -R -F -u"},
		{"fsync", 2, "-w -r -e -Y -g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := fmt.Sprintf("-a POSIX -b 256k -t 64k %s -o %s", tc.flags, filepath.Join(dir, "f"))
			if slices.Contains([]string{"segments"}, tc.name) {
				args = fmt.Sprintf("-a POSIX %s -o %s", tc.flags, filepath.Join(dir, "f"))
			}
			j := runJob(t, tc.ranks, args, false)
			noErrors(t, j)
			if j.res == nil {
				t.Fatal("rank 0 returned no result")
			}
			rows := results(t, j.res, 0)
			var phases int
			for _, row := range rows {
				switch row["access"] {
				case "write", "read":
					phases++
					bw, _ := strconv.ParseFloat(row["bw"], 64)
					if !(bw > 0) {
						t.Errorf("%s iter %s: bw %v", row["access"], row["iter"], bw)
					}
					if e := row["errors"]; e != "NaN" && e != "0" {
						t.Errorf("%s iter %s: %s errors", row["access"], row["iter"], e)
					}
				}
			}
			if phases == 0 {
				t.Fatalf("no phases in %v", rows)
			}
			left, _ := os.ReadDir(dir)
			var files []string
			for _, e := range left {
				files = append(files, e.Name())
			}
			if len(files) > 0 {
				t.Errorf("left behind: %v", files)
			}
			if len(j.warn) > 0 {
				t.Errorf("warnings: %q", j.warn)
			}
		})
	}
}

// TestCorruptionCounted writes and keeps a file, flips one byte, reads it
// back with -R and sees one corrupt transfer reported as ErrVerify.
func TestCorruptionCounted(t *testing.T) {
	for _, fpp := range []string{"", "-F"} {
		t.Run("fpp="+fpp, func(t *testing.T) {
			dir := t.TempDir()
			base := filepath.Join(dir, "f")
			j := runJob(t, 2, fmt.Sprintf("-a POSIX -b 256k -t 64k -w -k -G 12345 %s -o %s", fpp, base), false)
			noErrors(t, j)
			victim := base
			if fpp != "" {
				victim = base + ".00000001"
			}
			f, err := os.OpenFile(victim, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			b := []byte{0}
			if _, err := f.ReadAt(b, 100_003); err != nil {
				t.Fatal(err)
			}
			b[0] ^= 0x40
			if _, err := f.WriteAt(b, 100_003); err != nil {
				t.Fatal(err)
			}
			f.Close()
			j = runJob(t, 2, fmt.Sprintf("-a POSIX -b 256k -t 64k -r -R -G 12345 %s -o %s", fpp, base), false)
			var got int
			for r, err := range j.errs {
				if err != nil {
					if !errors.Is(err, ErrVerify) {
						t.Fatalf("rank %d: %v, want ErrVerify (all: %v)", r, err, j.errs)
					}
					got++
				}
			}
			if got != 2 {
				t.Errorf("%d ranks reported ErrVerify, want both", got)
			}
			rows := results(t, j.res, 0)
			if rows[0]["access"] != "read" || rows[0]["errors"] != "1" {
				t.Errorf("read row %v, want 1 error", rows[0])
			}
			if !slices.ContainsFunc(j.warn, func(s string) bool { return s == "WARNING: Incorrect data on read (1 errors found)." }) {
				t.Errorf("warnings %q lack the incorrect-data line", j.warn)
			}
		})
	}
}

// TestStonewall stops a dummy write after the deadline (the fake clock
// advances 1 ms per reading, so 1 s is about 500 transfers) and, with
// wear-out, lets every rank catch up to the most any rank did.
func TestStonewall(t *testing.T) {
	j := runJob(t, 2, "-a DUMMY -b 1g -t 1m -w -D 1 -O stoneWallingWearOut=1 -o x", true)
	noErrors(t, j)
	rows := results(t, j.res, 0)
	if rows[0]["access"] != "write" {
		t.Fatalf("rows %v", rows)
	}
	var sum report.Table
	for _, tab := range j.res.Tables {
		if tab.Name == report.IORSummaryTable {
			sum = tab
		}
	}
	if len(sum.Rows) != 1 || math.IsNaN(sum.Rows[0].Metrics[9]) {
		t.Fatalf("summary %+v: want a stonewall time", sum.Rows)
	}
	if !slices.ContainsFunc(j.warn, func(s string) bool { return len(s) > 30 && s[:30] == "stonewalling pairs accessed mi" }) {
		t.Errorf("warnings %q lack the stonewalling line", j.warn)
	}
}
