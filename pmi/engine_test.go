package pmi

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// entry is one line of a transcript: dir 'C' (client to server) or 'S'.
type entry struct {
	dir  byte
	line string
}

// loadTranscript reads a transcript file; a line without a "C: " or "S: "
// prefix continues the previous server write (the initack burst).
func loadTranscript(t *testing.T, path string) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 8192), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "C: "):
			out = append(out, entry{'C', l[3:]})
		case strings.HasPrefix(l, "S: "):
			out = append(out, entry{'S', l[3:]})
		case l != "" && len(out) > 0 && out[len(out)-1].dir == 'S':
			out = append(out, entry{'S', l})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var rankFile = regexp.MustCompile(`rank(\d+)\.txt$`)

// loadJob returns the transcripts of one job, indexed by rank, from files
// matching glob.
func loadJob(t *testing.T, glob string) [][]entry {
	t.Helper()
	files, _ := filepath.Glob(glob)
	sort.Strings(files)
	var job [][]entry
	for _, f := range files {
		m := rankFile.FindStringSubmatch(f)
		if m == nil {
			continue
		}
		r, _ := strconv.Atoi(m[1])
		for len(job) <= r {
			job = append(job, nil)
		}
		job[r] = loadTranscript(t, f)
	}
	if len(job) == 0 {
		t.Fatalf("no transcripts match %s", glob)
	}
	return job
}

// jobConfig derives the engine configuration the server of a transcript had:
// its kvsname, mapping and vallen_max, read from the server's replies.
func jobConfig(job [][]entry) EngineConfig {
	cfg := EngineConfig{Size: len(job)}
	for _, tr := range job {
		for i, e := range tr {
			if e.dir != 'S' {
				continue
			}
			m, err := ParseLine(e.line)
			if err != nil {
				continue
			}
			switch m.Cmd {
			case "my_kvsname":
				cfg.KVSName, _ = m.Get("kvsname")
			case "maxes":
				v, _ := m.Get("vallen_max")
				cfg.ValLenMax, _ = strconv.Atoi(v)
			case "get_result":
				if i > 0 && strings.Contains(tr[i-1].line, "key=PMI_process_mapping") {
					cfg.ProcessMapping, _ = m.Get("value")
				}
			}
		}
	}
	return cfg
}

// replay drives an Engine with every rank's client lines, in an order the
// barriers allow, and checks each reply against the transcript. It returns
// the aborts seen and each rank's position when nothing could progress.
func replay(t *testing.T, eng *Engine, job [][]entry) (aborts []Out, pos []int) {
	t.Helper()
	pos = make([]int, len(job))
	got := make([][]string, len(job))
	recv := make([]int, len(job))
	handle := func(r int, line string) {
		outs := eng.Handle(r, line)
		for i := 0; i < len(outs); i++ {
			o := outs[i]
			switch o.Kind {
			case OutReply:
				for _, l := range splitLines(o.Line) {
					got[o.Rank] = append(got[o.Rank], strings.TrimSuffix(l, "\n"))
				}
			case OutBarrier:
				outs = append(outs, eng.BarrierDone(0)...)
			case OutAbort:
				aborts = append(aborts, o)
			case OutFail:
				t.Fatalf("rank %d: engine failed the job: %v", o.Rank, o.Err)
			}
		}
	}
	for progressed := true; progressed; {
		progressed = false
		for r := range job {
			for pos[r] < len(job[r]) {
				e := job[r][pos[r]]
				if e.dir == 'C' {
					handle(r, e.line+"\n")
				} else {
					if recv[r] >= len(got[r]) {
						break // blocked, e.g. in a barrier
					}
					if g := got[r][recv[r]]; g != e.line {
						t.Fatalf("rank %d, transcript line %d:\n got  S: %s\n want S: %s", r, pos[r]+1, g, e.line)
					}
					recv[r]++
				}
				pos[r]++
				progressed = true
			}
		}
	}
	for r := range job {
		if extra := got[r][recv[r]:]; len(extra) > 0 {
			t.Errorf("rank %d: engine sent replies the transcript lacks: %q", r, extra)
		}
	}
	return aborts, pos
}

// TestEngineTranscripts replays real MPICH 4.0.2 client traffic, captured
// under Hydra and under the Hydra-style prototype server, and expects the
// engine to answer line for line as those servers did.
func TestEngineTranscripts(t *testing.T) {
	for _, tc := range []struct {
		name, glob string
	}{
		{"hydra-n2", "testdata/transcripts/hydra-n2-rank*.txt"},
		{"hydra-n4", "testdata/transcripts/hydra-n4-rank*.txt"},
		{"hydra-pmiport-n2-rank0", "testdata/transcripts/hydra-pmiport-n2-rank0.txt"},
		{"proto-fd-n2", "testdata/transcripts/proto-fd-n2/rank*.txt"},
		{"proto-fd-n4", "testdata/transcripts/proto-fd-n4/rank*.txt"},
		{"proto-port-n2", "testdata/transcripts/proto-port-n2/rank*.txt"},
		{"proto-twonode-n2", "testdata/transcripts/proto-twonode-n2/rank*.txt"},
		{"proto-twonode-n4", "testdata/transcripts/proto-twonode-n4/rank*.txt"},
		{"proto-smallval-n2", "testdata/transcripts/proto-smallval-n2/rank*.txt"},
		{"proto-usize-n2", "testdata/transcripts/proto-usize-n2/rank*.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := loadJob(t, tc.glob)
			cfg := jobConfig(job)
			if strings.HasPrefix(tc.name, "hydra-pmiport") {
				cfg.Size = 2 // one rank's side of a two-rank job
			}
			eng, err := NewEngine(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Size != len(job) {
				// Only rank 0's file exists: stand in for the other rank
				// by entering every barrier it would enter.
				job = append(job, shadowBarriers(job[0])...)
			}
			aborts, pos := replay(t, eng, job)
			if len(aborts) > 0 {
				t.Fatalf("unexpected abort: %+v", aborts)
			}
			for r := range job {
				if pos[r] != len(job[r]) {
					t.Errorf("rank %d stopped at transcript line %d of %d", r, pos[r]+1, len(job[r]))
				}
			}
			for r := range cfg.Size {
				if !eng.Finalized(r) {
					t.Errorf("rank %d not finalized at the end", r)
				}
			}
		})
	}
}

// shadowBarriers returns a transcript for a rank that only inits, enters as
// many barriers as tr does, and finalizes.
func shadowBarriers(tr []entry) [][]entry {
	var s []entry
	for _, e := range tr {
		if e.dir == 'C' && e.line == "cmd=barrier_in" {
			s = append(s, entry{'C', "cmd=barrier_in"}, entry{'S', "cmd=barrier_out"})
		}
	}
	s = append(s, entry{'C', "cmd=finalize"}, entry{'S', "cmd=finalize_ack"})
	return [][]entry{s}
}

func TestEngineTranscriptAbort(t *testing.T) {
	job := loadJob(t, "testdata/transcripts/proto-abort-n2/rank*.txt")
	eng, err := NewEngine(jobConfig(job))
	if err != nil {
		t.Fatal(err)
	}
	aborts, pos := replay(t, eng, job)
	if len(aborts) != 1 || aborts[0].Rank != 1 || aborts[0].Code != 7 {
		t.Fatalf("aborts = %+v, want one from rank 1 with code 7", aborts)
	}
	if pos[1] != len(job[1]) {
		t.Errorf("rank 1 stopped at line %d of %d", pos[1]+1, len(job[1]))
	}
}

// TestEngineLines covers each command and error path, lines in and out.
func TestEngineLines(t *testing.T) {
	type step struct {
		rank int
		in   string
		want []string // "R: line" replies, "abort R code", "fail R", "barrier"
	}
	for _, tc := range []struct {
		name  string
		size  int
		steps []step
	}{
		{"init versions", 1, []step{
			{0, "cmd=init pmi_version=1 pmi_subversion=1", []string{"0: cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"}},
			{0, "cmd=init pmi_subversion=2 pmi_version=1", []string{"0: cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"}},
			{0, "cmd=init pmi_version=2 pmi_subversion=0", []string{"0: cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 msg=unsupported_version_2.0"}},
		}},
		{"maxes appnum kvsname universe", 3, []step{
			{1, "cmd=get_maxes", []string{"1: cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"}},
			{1, "cmd=get_appnum", []string{"1: cmd=appnum appnum=0"}},
			{2, "cmd=get_my_kvsname", []string{"2: cmd=my_kvsname kvsname=kvs_t"}},
			{0, "cmd=get_universe_size", []string{"0: cmd=universe_size size=3"}},
		}},
		{"put get last write wins", 2, []step{
			{0, "cmd=put kvsname=kvs_t key=a value=x=y", []string{"0: cmd=put_result rc=0 msg=success"}},
			{1, "cmd=put kvsname=kvs_t key=a value=z", []string{"1: cmd=put_result rc=0 msg=success"}},
			{0, "cmd=get key=a kvsname=kvs_t", []string{"0: cmd=get_result rc=0 msg=success value=z"}},
			{1, "cmd=get kvsname=kvs_t key=nope", []string{"1: cmd=get_result rc=-1 msg=key_nope_not_found value=unknown"}},
			{1, "cmd=get kvsname=kvs_t key=PMI_process_mapping", []string{"1: cmd=get_result rc=0 msg=success value=(vector,(0,1,2))"}},
			{1, "cmd=get kvsname=other key=a", []string{"1: cmd=get_result rc=-1 msg=kvsname_other_unknown value=unknown"}},
			{1, "cmd=put kvsname=kvs_t key=" + strings.Repeat("k", 65) + " value=1", []string{"1: cmd=put_result rc=-1 msg=key_longer_than_64"}},
			{1, "cmd=put kvsname=kvs_t key=b", []string{"1: cmd=put_result rc=-1 msg=missing_value"}},
			{1, "cmd=put kvsname=kvs_t key=b value=" + strings.Repeat("v", 985), []string{"1: cmd=put_result rc=-1 msg=value_too_long_for_a_1023_byte_reply"}},
			{1, "cmd=put kvsname=kvs_t key=b value=" + strings.Repeat("v", 984), []string{"1: cmd=put_result rc=0 msg=success"}},
		}},
		{"barrier releases all", 3, []step{
			{2, "cmd=barrier_in", nil},
			{0, "cmd=barrier_in", nil},
			{1, "cmd=barrier_in", []string{"barrier", "0: cmd=barrier_out", "1: cmd=barrier_out", "2: cmd=barrier_out"}},
			{1, "cmd=barrier_in", nil},
		}},
		{"request while in barrier", 2, []step{
			{0, "cmd=barrier_in", nil},
			{0, "cmd=get_maxes", []string{"fail 0"}},
		}},
		{"finalize then barrier cannot complete", 2, []step{
			{0, "cmd=finalize", []string{"0: cmd=finalize_ack", "finalized 0"}},
			{1, "cmd=barrier_in", []string{"fail 0"}},
		}},
		{"finalize while other waits", 2, []step{
			{1, "cmd=barrier_in", nil},
			{0, "cmd=finalize", []string{"0: cmd=finalize_ack", "finalized 0", "fail 0"}},
		}},
		{"abort", 2, []step{
			{1, "cmd=abort exitcode=7", []string{"abort 1 7"}},
			{0, "cmd=abort exit_code=3 error_msg=bye", []string{"abort 0 3"}},
			{0, "cmd=abort", []string{"abort 0 1"}},
		}},
		{"unsupported", 1, []step{
			{0, "cmd=publish_name service=s port=p", []string{"0: cmd=publish_result rc=1 msg=publish_name_not_supported"}},
			{0, "cmd=unpublish_name service=s", []string{"0: cmd=unpublish_result rc=1 msg=unpublish_name_not_supported"}},
			{0, "cmd=lookup_name service=s", []string{"0: cmd=lookup_result rc=1 msg=lookup_name_not_supported"}},
			{0, "mcmd=spawn", nil},
			{0, "nprocs=2", nil},
			{0, "execname=/bin/a b", nil},
			{0, "totspawns=2", nil},
			{0, "spawnssofar=1", nil},
			{0, "endcmd", nil},
			{0, "mcmd=spawn", nil},
			{0, "totspawns=2", nil},
			{0, "spawnssofar=2", nil},
			{0, "endcmd", []string{"0: cmd=spawn_result rc=-1 msg=spawn_not_supported_by_hpcbench"}},
			{0, "cmd=get_appnum", []string{"0: cmd=appnum appnum=0"}},
		}},
		{"protocol errors", 1, []step{
			{0, "cmd=frobnicate", []string{"fail 0"}},
			{0, "garbage", []string{"fail 0"}},
			{0, "cmd=initack pmiid=5", []string{"fail 0"}},
		}},
		{"initack burst", 2, []step{
			{1, "cmd=initack pmiid=1", []string{"1: cmd=initack", "1: cmd=set size=2", "1: cmd=set rank=1", "1: cmd=set debug=0"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := NewEngine(EngineConfig{Size: tc.size, KVSName: "kvs_t", ProcessMapping: processMappingFor(tc.size)})
			if err != nil {
				t.Fatal(err)
			}
			for i, st := range tc.steps {
				outs := eng.Handle(st.rank, st.in+"\n")
				for j := 0; j < len(outs); j++ {
					if outs[j].Kind == OutBarrier {
						outs = append(outs, eng.BarrierDone(0)...)
					}
				}
				got := describeOuts(outs)
				if strings.Join(got, "|") != strings.Join(st.want, "|") {
					t.Errorf("step %d (%d: %s):\n got  %q\n want %q", i, st.rank, st.in, got, st.want)
				}
			}
		})
	}
}

func processMappingFor(n int) string { return "(vector,(0,1," + strconv.Itoa(n) + "))" }

func describeOuts(outs []Out) []string {
	var s []string
	for _, o := range outs {
		switch o.Kind {
		case OutReply:
			for _, l := range splitLines(o.Line) {
				s = append(s, strconv.Itoa(o.Rank)+": "+strings.TrimSuffix(l, "\n"))
			}
		case OutBarrier:
			s = append(s, "barrier")
		case OutFinalized:
			s = append(s, "finalized "+strconv.Itoa(o.Rank))
		case OutAbort:
			s = append(s, "abort "+strconv.Itoa(o.Rank)+" "+strconv.Itoa(o.Code))
		case OutFail:
			s = append(s, "fail "+strconv.Itoa(o.Rank))
		}
	}
	return s
}

func TestEngineClosed(t *testing.T) {
	cfg := EngineConfig{Size: 2, KVSName: "k", ProcessMapping: "(vector,(0,1,2))"}
	for _, tc := range []struct {
		name  string
		setup []string // lines from rank 0 before it closes
		other string   // line from rank 1 before rank 0 closes
		fail  bool
	}{
		{"never used PMI", nil, "", false},
		{"closed after init", []string{"cmd=init pmi_version=1 pmi_subversion=1"}, "", true},
		{"closed after finalize", []string{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=finalize"}, "", false},
		{"closed before init while other waits", nil, "cmd=barrier_in", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := NewEngine(cfg)
			for _, l := range tc.setup {
				eng.Handle(0, l)
			}
			if tc.other != "" {
				eng.Handle(1, tc.other)
			}
			outs := eng.Closed(0)
			if got := len(outs) == 1 && outs[0].Kind == OutFail && outs[0].Rank == 0; got != tc.fail {
				t.Errorf("Closed = %v, want fail=%v", describeOuts(outs), tc.fail)
			}
		})
	}
}

func TestNewEngineRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  EngineConfig
		want string
	}{
		{"size", EngineConfig{Size: 0, KVSName: "k", ProcessMapping: "(vector,(0,1,1))"}, "size 0"},
		{"empty mapping", EngineConfig{Size: 1, KVSName: "k"}, "process mapping is empty"},
		{"kvsname space", EngineConfig{Size: 1, KVSName: "a b", ProcessMapping: "m"}, "whitespace"},
		{"vallen", EngineConfig{Size: 1, KVSName: "k", ProcessMapping: "m", ValLenMax: 2048}, "vallen_max 2048"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewEngine(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewEngine error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
