package launch

import (
	"errors"
	"syscall"

	"github.com/hpcbench/hpcbench/pmi"
)

// The bodies of the control protocol's frames (see control.go), each with
// its encoder and its decoder.

// hello is the launcher's first frame: its protocol and a fresh nonce.
type hello struct {
	protocol int
	nonce    string
}

func (m hello) encode() []byte { return newFrame(ctlHello).int(m.protocol).str(m.nonce).done() }

func decodeHello(b []byte) (hello, error) {
	d := fields{b: b}
	m := hello{protocol: d.int(1 << 20), nonce: d.str()}
	return m, d.end()
}

// auth is the proxy's answer: which proxy of the job it is, its version,
// its own nonce, and its proof of the job's secret.
type auth struct {
	index   int
	version string
	nonce   string
	mac     string
}

func (m auth) encode() []byte {
	return newFrame(ctlAuth).int(m.index).str(m.version).str(m.nonce).str(m.mac).done()
}

func decodeAuth(b []byte) (auth, error) {
	d := fields{b: b}
	m := auth{index: d.int(MaxRanks), version: d.str(), nonce: d.str(), mac: d.str()}
	return m, d.end()
}

// proxyJob is one proxy's part of the job, in ctlJob after the launcher's
// own proof of the secret.
type proxyJob struct {
	mac     string // the launcher's proof (see control_auth.go)
	host    string // the host's name in the job's layout
	kvs     string
	mapping string // PMI_process_mapping
	size    int    // the job's ranks
	ranks   []int  // this host's, ascending
	// command is the ranks' program and arguments; a program named
	// "hpcbench" is the proxy's own executable.
	command  []string
	dir      string
	env      []string // the ranks' environment before their own variables
	tag      bool
	bind     string
	traceDir string
}

func (m *proxyJob) encode() []byte {
	f := newFrame(ctlJob).str(m.mac).str(m.host).str(m.kvs).str(m.mapping).int(m.size)
	f.int(len(m.ranks))
	for _, r := range m.ranks {
		f.int(r)
	}
	strs(f, m.command)
	f.str(m.dir)
	strs(f, m.env)
	return f.bool(m.tag).str(m.bind).str(m.traceDir).done()
}

func strs(f *frame, l []string) {
	f.int(len(l))
	for _, s := range l {
		f.str(s)
	}
}

func decodeStrs(d *fields) []string {
	n := d.count()
	l := make([]string, 0, prealloc(n))
	for range n {
		l = append(l, d.str())
	}
	return l
}

func decodeJob(b []byte) (*proxyJob, error) {
	d := fields{b: b}
	m := &proxyJob{mac: d.str(), host: d.str(), kvs: d.str(), mapping: d.str(), size: d.int(MaxRanks + 1)}
	n := d.count()
	for range n {
		m.ranks = append(m.ranks, d.int(m.size))
	}
	m.command = decodeStrs(&d)
	m.dir = d.str()
	m.env = decodeStrs(&d)
	m.tag, m.bind, m.traceDir = d.bool(), d.str(), d.str()
	if err := d.end(); err != nil {
		return nil, err
	}
	if len(m.ranks) == 0 || len(m.command) == 0 {
		return nil, errors.New("malformed control frame: a job without ranks or command")
	}
	return m, nil
}

// encodeEvents is a ctlEvents frame of the spawner's reports, by job-wide
// rank.
func encodeEvents(evs []procEvent) []byte {
	f := newFrame(ctlEvents).int(len(evs))
	for _, ev := range evs {
		msg := ""
		if ev.err != nil {
			msg = ev.err.Error()
		}
		f.int(int(ev.kind)).int(ev.rank).int(ev.pid).uint(uint64(uint32(ev.status))).int(int(ev.sig)).str(msg)
	}
	return f.done()
}

// decodeEvents decodes a ctlEvents frame of a job of size ranks.
func decodeEvents(b []byte, size int) ([]procEvent, error) {
	d := fields{b: b}
	n := d.count()
	evs := make([]procEvent, 0, prealloc(n))
	for range n {
		ev := procEvent{kind: procEventKind(d.int(int(evContinued) + 1)), rank: d.int(size), pid: d.int(1 << 31),
			status: syscall.WaitStatus(uint32(d.uint())), sig: syscall.Signal(d.int(65))}
		if msg := d.str(); ev.kind == evStartFailed || msg != "" {
			ev.err = errors.New(msg)
		}
		if ev.kind == evSpawnerDied {
			d.fail("a spawner's death is the proxy's to report")
		}
		evs = append(evs, ev)
	}
	return evs, d.end()
}

// encodeNotes is a ctlNotes frame of PMI notes, by job-wide rank.
func encodeNotes(notes []timedNote) []byte {
	f := newFrame(ctlNotes).int(len(notes))
	for _, n := range notes {
		f.int(n.Rank).int(int(n.Kind)).str(n.Phase).sint(int64(n.Iter)).bool(n.Amount).sint(n.Done).sint(n.Total)
	}
	return f.done()
}

func decodeNotes(b []byte, size int) ([]pmi.Note, error) {
	d := fields{b: b}
	n := d.count()
	notes := make([]pmi.Note, 0, prealloc(n))
	for range n {
		notes = append(notes, pmi.Note{Rank: d.int(size), Kind: pmi.NoteKind(d.int(int(pmi.NoteFinalize) + 1)), Phase: d.str(),
			Iter: int(d.sint()), Amount: d.bool(), Done: d.sint(), Total: d.sint()})
	}
	return notes, d.end()
}

// encodePuts is a ctlBarrierIn or ctlBarrierOut frame: the barrier's
// number (from 1) and the puts.
func encodePuts(typ byte, seq int, puts []pmi.Pair) []byte {
	f := newFrame(typ).int(seq).int(len(puts))
	for _, p := range puts {
		f.str(p.Key).str(p.Val)
	}
	return f.done()
}

func decodePuts(b []byte) (seq int, puts []pmi.Pair, err error) {
	d := fields{b: b}
	seq = d.int(1 << 62)
	n := d.count()
	puts = make([]pmi.Pair, 0, prealloc(n))
	for range n {
		puts = append(puts, pmi.Pair{Key: d.str(), Val: d.str()})
	}
	return seq, puts, d.end()
}

// encodeFail is a ctlFail frame: the proxy's PMI server failed.
func encodeFail(re *pmi.RankError) []byte {
	return newFrame(ctlFail).int(re.Rank).bool(re.Abort).sint(int64(re.Code)).str(re.Err.Error()).done()
}

func decodeFail(b []byte, size int) (*pmi.RankError, error) {
	d := fields{b: b}
	re := &pmi.RankError{Rank: d.int(size), Abort: d.bool(), Code: int(d.sint())}
	re.Err = errors.New(d.str())
	return re, d.end()
}

// encodeOutput is a ctlOutput frame: whole lines of the ranks' stdout
// (stream 0) or stderr (1), each already tagged as the job asks.
func encodeOutput(stream int, b []byte) []byte {
	return newFrame(ctlOutput).int(stream).bytes(b).done()
}

func decodeOutput(b []byte) (stream int, out []byte, err error) {
	d := fields{b: b}
	stream, out = d.int(2), d.bytes()
	return stream, out, d.end()
}

// encodeSignal is a ctlSignal frame: send sig to the host's live ranks'
// process groups, or, with all, to every rank's group, exited or not.
func encodeSignal(sig syscall.Signal, all bool) []byte {
	return newFrame(ctlSignal).int(int(sig)).bool(all).done()
}

func decodeSignal(b []byte) (syscall.Signal, bool, error) {
	d := fields{b: b}
	sig, all := syscall.Signal(d.int(65)), d.bool()
	return sig, all, d.end()
}

// emptyFrame is a frame of type typ with no body (ctlBeat, ctlDone, ctlEnd).
func emptyFrame(typ byte) []byte { return newFrame(typ).done() }
