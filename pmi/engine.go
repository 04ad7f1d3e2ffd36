package pmi

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Limits advertised in the maxes reply. MPICH 4.0.2 and MVAPICH2 break with a
// vallen_max above 1024 (Flux's simple_server.h, flux-core PR #4796), and a
// reply line must stay under 1024 bytes.
const (
	DefaultKVSNameMax = 256
	DefaultKeyLenMax  = 64
	DefaultValLenMax  = 1024
)

// EngineConfig describes the job an Engine serves.
type EngineConfig struct {
	Size         int    // number of ranks served (all of the job's ranks for a single-level server)
	KVSName      string // the job's KVS name, without whitespace
	AppNum       int    // answered to get_appnum; 0 unless MPMD
	UniverseSize int    // answered to get_universe_size; Size when 0
	// ProcessMapping is the pre-set PMI_process_mapping value, e.g.
	// "(vector,(0,1,4))". It must be non-empty: MPICH 4.0.2 aborts in
	// MPI_Init on an empty mapping and MVAPICH2 on a missing one.
	ProcessMapping string
	ValLenMax      int // advertised vallen_max; DefaultValLenMax when 0
	// Notes asks for an OutNote at each step of a rank's progress (init,
	// barrier_in, finalize, and the hpcbench_phase reports of ranks under
	// hpcbench's own launcher), for the owner's watchdog.
	Notes bool
	// Ranks, for a server of some of a job's ranks (a launcher's proxy on
	// one host), is the job-wide rank of each rank served, by index:
	// messages and notes name ranks by it. Nil when the ranks served are
	// the job's 0..Size-1.
	Ranks []int
	// Delta asks the engine to keep the puts made since the last barrier
	// for its owner (TakePuts), which carries them to the job's other
	// servers, and to take theirs (Store).
	Delta bool
}

// OutKind tells what an Out asks of the Engine's owner.
type OutKind int

// The kinds of output an Engine produces.
const (
	// OutReply: send Line (newline included) to Rank.
	OutReply OutKind = iota
	// OutBarrier: every rank has entered the barrier; the owner completes it
	// with BarrierDone (at once for a single-level server, after the upstream
	// barrier for a proxy).
	OutBarrier
	// OutFinalized: Rank finalized; its connection may now close.
	OutFinalized
	// OutAbort: Rank called abort with exit status Code and message Msg.
	OutAbort
	// OutFail: Rank broke the protocol (Err says how); the job must end.
	OutFail
	// OutNote: Rank made progress (Note says which); only with
	// EngineConfig.Notes, and nothing to send.
	OutNote
)

// NoteKind is the step of a rank's progress a Note reports.
type NoteKind int

// The steps a Note reports.
const (
	NoteInit     NoteKind = iota // the rank sent init
	NoteBarrier                  // the rank entered a barrier
	NotePhase                    // the rank entered a phase of its work (hpcbench_phase)
	NoteFinalize                 // the rank sent finalize
)

// PhaseCommand is the wire command of a phase report: "cmd=hpcbench_phase
// name=NAME iter=I", NAME path-escaped (see Client.SendPhase), and
// " done=D total=T" after it when the report says how much of the phase
// is done (Client.SendProgress). It has no
// reply, is accepted in any state (in a barrier, after finalize) and is sent
// only to hpcbench's own launcher: other PMI servers fail the job on an
// unknown command.
const PhaseCommand = "hpcbench_phase"

// Note is one step of a rank's progress.
type Note struct {
	Rank  int
	Kind  NoteKind
	Phase string // NotePhase: the phase's name, unescaped
	Iter  int    // NotePhase: the phase's iteration
	// Amount marks a NotePhase that says how much of the phase is done:
	// Done of Total (bytes or items; Total 0 when not known).
	Amount      bool
	Done, Total int64
}

// Out is one thing the owner of an Engine must do after a call.
type Out struct {
	Kind OutKind
	Rank int
	Line string // OutReply
	Code int    // OutAbort
	Msg  string // OutAbort
	Err  error  // OutFail
	Note Note   // OutNote
}

type rankState int

const (
	stateNew rankState = iota
	stateInit
	stateFinalized
	stateClosed // connection closed (before init, or after finalize)
)

// Engine is the PMI-1 server state machine. It does no I/O: the owner feeds
// it request lines with Handle and carries out the returned Outs. It holds the
// KVS (last write wins; PMI_process_mapping pre-set) and the barrier count.
//
// Engine is not safe for concurrent use; the owner serializes calls.
type Engine struct {
	cfg EngineConfig
	// kvs maps each key to the complete reply to a get of it,
	// getReplyPrefix + value + "\n": a get, by far the most frequent
	// request (N² of them when every rank reads every card), then answers
	// without formatting anything.
	kvs       map[string]string
	state     []rankState
	inBarrier []bool
	entered   int
	spawn     []*strings.Builder // per rank: non-nil while a multi-line spawn is being read
	pairs     []Pair             // reused by every parse; no Msg outlives a call
	puts      []Pair             // with Delta: the puts since the last TakePuts
}

// getReplyPrefix starts the reply to a successful get; the value and a
// newline follow.
const getReplyPrefix = "cmd=get_result rc=0 msg=success value="

// getReply is the reply to a get of a key holding val, as
// Format("get_result", "rc", "0", "msg", "success", "value", val) builds it.
func getReply(val string) string { return getReplyPrefix + val + "\n" }

// NewEngine returns an Engine for cfg, or an error naming the bad field.
func NewEngine(cfg EngineConfig) (*Engine, error) {
	if cfg.Size < 1 {
		return nil, fmt.Errorf("pmi: engine size %d: must be at least 1", cfg.Size)
	}
	if cfg.KVSName == "" || len(cfg.KVSName) > DefaultKVSNameMax {
		return nil, fmt.Errorf("pmi: engine kvsname %q: must be 1 to %d bytes", clip(cfg.KVSName), DefaultKVSNameMax)
	}
	if err := ValidToken("kvsname", cfg.KVSName); err != nil {
		return nil, err
	}
	if cfg.ProcessMapping == "" {
		return nil, fmt.Errorf("pmi: engine process mapping is empty: MPICH aborts in MPI_Init on an empty PMI_process_mapping")
	}
	if err := ValidToken("process mapping", cfg.ProcessMapping); err != nil {
		return nil, err
	}
	if cfg.Ranks != nil && len(cfg.Ranks) != cfg.Size {
		return nil, fmt.Errorf("pmi: engine ranks: %d for a size of %d", len(cfg.Ranks), cfg.Size)
	}
	if cfg.UniverseSize == 0 {
		cfg.UniverseSize = cfg.Size
	}
	if cfg.ValLenMax == 0 {
		cfg.ValLenMax = DefaultValLenMax
	}
	if cfg.ValLenMax < 16 || cfg.ValLenMax > DefaultValLenMax {
		return nil, fmt.Errorf("pmi: engine vallen_max %d: must be in [16, %d]", cfg.ValLenMax, DefaultValLenMax)
	}
	e := &Engine{
		cfg:       cfg,
		kvs:       map[string]string{"PMI_process_mapping": getReply(cfg.ProcessMapping)},
		state:     make([]rankState, cfg.Size),
		inBarrier: make([]bool, cfg.Size),
		spawn:     make([]*strings.Builder, cfg.Size),
		pairs:     make([]Pair, 0, typicalPairs),
	}
	return e, nil
}

// Size returns the number of ranks the engine serves.
func (e *Engine) Size() int { return e.cfg.Size }

// ID returns the job-wide rank of the rank served at index rank (see
// EngineConfig.Ranks).
func (e *Engine) ID(rank int) int {
	if e.cfg.Ranks == nil || rank < 0 || rank >= len(e.cfg.Ranks) {
		return rank
	}
	return e.cfg.Ranks[rank]
}

// TakePuts returns the puts made since the last call, in order, and
// forgets them; nil without EngineConfig.Delta.
func (e *Engine) TakePuts() []Pair {
	p := e.puts
	e.puts = nil
	return p
}

// Store writes pairs into the KVS, in order (the last write of a key
// wins), as if they had been put: the puts of the job's ranks served
// elsewhere, which gets then find. A pair whose reply would not fit a
// wire line is dropped, as put refuses it.
func (e *Engine) Store(pairs []Pair) {
	for _, p := range pairs {
		if r := getReply(p.Val); len(r) <= MaxLine-1 {
			e.kvs[p.Key] = r
		}
	}
}

// Finalized reports whether rank has sent finalize.
func (e *Engine) Finalized(rank int) bool { return e.state[rank] == stateFinalized }

// Lookup returns the KVS value for key, as a get would.
func (e *Engine) Lookup(key string) (string, bool) {
	r, ok := e.kvs[key]
	if !ok {
		return "", false
	}
	return r[len(getReplyPrefix) : len(r)-1], true
}

func reply(rank int, cmd string, kv ...string) Out {
	return Out{Kind: OutReply, Rank: rank, Line: Format(cmd, kv...)}
}

func fail(rank int, format string, a ...any) Out {
	return Out{Kind: OutFail, Rank: rank, Err: fmt.Errorf(format, a...)}
}

// Handle processes one request line (with or without its newline) from rank
// and returns what the owner must do.
func (e *Engine) Handle(rank int, line string) []Out {
	return e.handle(rank, line, nil)
}

// handle is Handle appending its outputs to dst, so that an owner handling
// line after line can reuse one slice.
func (e *Engine) handle(rank int, line string, dst []Out) []Out {
	if rank < 0 || rank >= e.cfg.Size {
		return append(dst, fail(rank, "pmi: request from rank %d outside [0, %d)", rank, e.cfg.Size))
	}
	if sb := e.spawn[rank]; sb != nil {
		return e.spawnLine(rank, line, dst)
	}
	m, err := parseLine(line, e.pairs)
	if err != nil {
		return append(dst, Out{Kind: OutFail, Rank: rank, Err: fmt.Errorf("rank %d sent a bad request: %w", e.ID(rank), err)})
	}
	e.pairs = m.Pairs[:0] // keep any growth for the next line
	if m.Cmd == PhaseCommand {
		// A rank's main goroutine may be waiting in a barrier, or
		// finalizing, while its engine reports a phase.
		return e.phase(rank, m, dst)
	}
	if e.state[rank] == stateFinalized {
		return append(dst, fail(rank, "pmi: rank %d sent %q after finalize", e.ID(rank), m.Cmd))
	}
	if e.inBarrier[rank] {
		return append(dst, fail(rank, "pmi: rank %d sent %q while waiting in a barrier", e.ID(rank), m.Cmd))
	}
	switch m.Cmd {
	case "init":
		dst = append(dst, e.init(rank, m))
		if e.cfg.Notes && e.state[rank] == stateInit {
			dst = append(dst, Out{Kind: OutNote, Rank: rank, Note: Note{Rank: e.ID(rank), Kind: NoteInit}})
		}
		return dst
	case "initack":
		return append(dst, e.initAck(rank, m))
	case "get_maxes":
		return append(dst, reply(rank, "maxes",
			"kvsname_max", strconv.Itoa(DefaultKVSNameMax),
			"keylen_max", strconv.Itoa(DefaultKeyLenMax),
			"vallen_max", strconv.Itoa(e.cfg.ValLenMax)))
	case "get_appnum":
		return append(dst, reply(rank, "appnum", "appnum", strconv.Itoa(e.cfg.AppNum)))
	case "get_my_kvsname":
		return append(dst, reply(rank, "my_kvsname", "kvsname", e.cfg.KVSName))
	case "get_universe_size":
		return append(dst, reply(rank, "universe_size", "size", strconv.Itoa(e.cfg.UniverseSize)))
	case "put":
		return append(dst, e.put(rank, m))
	case "get":
		return append(dst, e.get(rank, m))
	case "barrier_in":
		return e.barrierIn(rank, dst)
	case "finalize":
		e.state[rank] = stateFinalized
		dst = append(dst, reply(rank, "finalize_ack"), Out{Kind: OutFinalized, Rank: rank})
		if e.cfg.Notes {
			dst = append(dst, Out{Kind: OutNote, Rank: rank, Note: Note{Rank: e.ID(rank), Kind: NoteFinalize}})
		}
		if e.entered > 0 {
			dst = append(dst, fail(rank, "pmi: rank %d finalized while other ranks wait in a barrier it never entered", e.ID(rank)))
		}
		return dst
	case "abort":
		code := 1
		if v, ok := m.Get("exitcode"); ok {
			code, _ = atoiStrict(v)
		} else if v, ok := m.Get("exit_code"); ok { // Flux's spelling
			code, _ = atoiStrict(v)
		}
		msg, _ := m.Get("message")
		if msg == "" {
			msg, _ = m.Get("error_msg")
		}
		return append(dst, Out{Kind: OutAbort, Rank: rank, Code: code, Msg: msg})
	case "publish_name":
		return append(dst, reply(rank, "publish_result", "rc", "1", "msg", "publish_name_not_supported"))
	case "unpublish_name":
		return append(dst, reply(rank, "unpublish_result", "rc", "1", "msg", "unpublish_name_not_supported"))
	case "lookup_name":
		return append(dst, reply(rank, "lookup_result", "rc", "1", "msg", "lookup_name_not_supported"))
	case "spawn":
		if _, ok := m.Get("mcmd"); ok {
			e.spawn[rank] = &strings.Builder{}
			return dst
		}
		return append(dst, reply(rank, "spawn_result", "rc", "-1", "msg", "spawn_not_supported"))
	default:
		return append(dst, fail(rank, "pmi: rank %d sent unknown command %q", e.ID(rank), clip(m.Cmd)))
	}
}

func (e *Engine) init(rank int, m Msg) Out {
	ver, _ := m.Get("pmi_version")
	sub, _ := m.Get("pmi_subversion")
	v, err1 := atoiStrict(ver)
	s, err2 := atoiStrict(sub)
	if err1 != nil || err2 != nil || v != 1 || s < 1 {
		// We serve 1.1 only; say so, as Hydra and Flux do for 2.x.
		return reply(rank, "response_to_init", "pmi_version", "1", "pmi_subversion", "1",
			"rc", "-1", "msg", "unsupported_version_"+ver+"."+sub)
	}
	e.state[rank] = stateInit
	return reply(rank, "response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc", "0")
}

// initAck answers the PMI_PORT handshake. The owner has already bound the
// connection to rank from pmiid; the reply is four lines in one write.
func (e *Engine) initAck(rank int, m Msg) Out {
	id, _ := m.Get("pmiid")
	if n, err := atoiStrict(id); err != nil || n != rank {
		return fail(rank, "pmi: initack pmiid=%q does not match rank %d", clip(id), rank)
	}
	line := Format("initack") + Format("set", "size", strconv.Itoa(e.cfg.Size)) +
		Format("set", "rank", strconv.Itoa(rank)) + Format("set", "debug", "0")
	return Out{Kind: OutReply, Rank: rank, Line: line}
}

func (e *Engine) checkKVS(m Msg) string {
	if name, ok := m.Get("kvsname"); ok && name != e.cfg.KVSName {
		return "kvsname_" + clip(name) + "_unknown"
	}
	return ""
}

func (e *Engine) put(rank int, m Msg) Out {
	if bad := e.checkKVS(m); bad != "" {
		return reply(rank, "put_result", "rc", "-1", "msg", bad)
	}
	key, ok := m.Get("key")
	if !ok || key == "" {
		return reply(rank, "put_result", "rc", "-1", "msg", "missing_key")
	}
	if len(key) > DefaultKeyLenMax {
		return reply(rank, "put_result", "rc", "-1", "msg", "key_longer_than_"+strconv.Itoa(DefaultKeyLenMax))
	}
	val, ok := m.Get("value")
	if !ok {
		return reply(rank, "put_result", "rc", "-1", "msg", "missing_value")
	}
	if len(val) > e.cfg.ValLenMax {
		return reply(rank, "put_result", "rc", "-1", "msg", "value_longer_than_"+strconv.Itoa(e.cfg.ValLenMax))
	}
	// Clone the key so the map does not keep the whole request line alive
	// (getReply copies the value).
	r := getReply(val)
	if len(r) > MaxLine-1 {
		// MPICH reads replies through a 1024-byte buffer: a longer get
		// reply would split and desynchronise the client.
		return reply(rank, "put_result", "rc", "-1", "msg", "value_too_long_for_a_1023_byte_reply")
	}
	key = strings.Clone(key)
	e.kvs[key] = r
	if e.cfg.Delta {
		e.puts = append(e.puts, Pair{Key: key, Val: r[len(getReplyPrefix) : len(r)-1]})
	}
	return reply(rank, "put_result", "rc", "0", "msg", "success")
}

func (e *Engine) get(rank int, m Msg) Out {
	if bad := e.checkKVS(m); bad != "" {
		return reply(rank, "get_result", "rc", "-1", "msg", bad, "value", "unknown")
	}
	key, _ := m.Get("key")
	line, ok := e.kvs[key]
	if !ok {
		return reply(rank, "get_result", "rc", "-1", "msg", "key_"+clip(key)+"_not_found", "value", "unknown")
	}
	return Out{Kind: OutReply, Rank: rank, Line: line}
}

func (e *Engine) barrierIn(rank int, dst []Out) []Out {
	for r, st := range e.state {
		if r != rank && (st == stateFinalized || st == stateClosed) {
			return append(dst, fail(r, "pmi: rank %d entered a barrier that rank %d can never join (it has %s)", e.ID(rank), e.ID(r), stateVerb(st)))
		}
	}
	e.inBarrier[rank] = true
	e.entered++
	if e.cfg.Notes {
		dst = append(dst, Out{Kind: OutNote, Rank: rank, Note: Note{Rank: e.ID(rank), Kind: NoteBarrier}})
	}
	if e.entered < e.cfg.Size {
		return dst
	}
	return append(dst, Out{Kind: OutBarrier})
}

// phase turns a phase report into an OutNote (nothing without Notes); a
// report that does not parse is dropped, not the job's failure: it is
// advice for the watchdog. An amount that does not parse (done and total
// whole numbers from 0 up) is dropped and the phase kept.
func (e *Engine) phase(rank int, m Msg, dst []Out) []Out {
	if !e.cfg.Notes || e.state[rank] == stateFinalized {
		return dst
	}
	name, _ := m.Get("name")
	iterS, _ := m.Get("iter")
	iter, err := atoiStrict(iterS)
	if err != nil {
		return dst
	}
	if un, err := url.PathUnescape(name); err == nil {
		name = un
	}
	n := Note{Rank: e.ID(rank), Kind: NotePhase, Phase: strings.Clone(name), Iter: iter}
	doneS, okD := m.Get("done")
	totalS, okT := m.Get("total")
	if okD && okT {
		done, errD := strconv.ParseUint(doneS, 10, 63)
		total, errT := strconv.ParseUint(totalS, 10, 63)
		if errD == nil && errT == nil {
			n.Amount, n.Done, n.Total = true, int64(done), int64(total)
		}
	}
	return append(dst, Out{Kind: OutNote, Rank: rank, Note: n})
}

func stateVerb(st rankState) string {
	if st == stateFinalized {
		return "finalized"
	}
	return "closed its PMI connection"
}

// BarrierDone completes the barrier every rank has entered: rc 0 releases
// them with barrier_out, a non-zero rc releases them with the failure.
func (e *Engine) BarrierDone(rc int) []Out {
	out := make([]Out, 0, e.cfg.Size)
	line := Format("barrier_out")
	if rc != 0 {
		line = Format("barrier_out", "rc", strconv.Itoa(rc), "msg", "barrier_failed")
	}
	for r := range e.inBarrier {
		if e.inBarrier[r] {
			e.inBarrier[r] = false
			out = append(out, Out{Kind: OutReply, Rank: r, Line: line})
		}
	}
	e.entered = 0
	return out
}

// Closed records that rank's connection closed, and returns an OutFail when
// that ends the job: a close after init and before finalize means the rank
// died, and a close while others wait in a barrier means the barrier can
// never complete. A close before init is a program that does not use PMI and
// is not an error by itself.
func (e *Engine) Closed(rank int) []Out {
	prev := e.state[rank]
	e.state[rank] = stateClosed
	switch {
	case prev == stateInit:
		return []Out{fail(rank, "pmi: rank %d closed its PMI connection before finalize", e.ID(rank))}
	case prev == stateNew && e.entered > 0:
		return []Out{fail(rank, "pmi: rank %d closed its PMI connection without joining the barrier other ranks wait in", e.ID(rank))}
	}
	if prev == stateFinalized {
		// Keep it recorded as finalized for barrier checks and Finalized.
		e.state[rank] = stateFinalized
	}
	return nil
}

// spawnLine swallows the lines of a multi-line "mcmd=spawn" request up to
// "endcmd" and answers the last sub-command with a clear failure.
func (e *Engine) spawnLine(rank int, line string, dst []Out) []Out {
	line = strings.TrimRight(line, "\r\n")
	sb := e.spawn[rank]
	if strings.TrimSpace(line) != "endcmd" {
		if sb.Len()+len(line) > 64*MaxLine {
			e.spawn[rank] = nil
			return append(dst, fail(rank, "pmi: rank %d sent a spawn request over %d bytes", e.ID(rank), 64*MaxLine))
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
		return dst
	}
	var total, sofar string
	for l := range strings.SplitSeq(sb.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "totspawns="); ok {
			total = v
		}
		if v, ok := strings.CutPrefix(l, "spawnssofar="); ok {
			sofar = v
		}
	}
	e.spawn[rank] = nil
	if total != "" && sofar != "" && total != sofar {
		return dst // more sub-commands follow; answer after the last
	}
	return append(dst, reply(rank, "spawn_result", "rc", "-1", "msg", "spawn_not_supported_by_hpcbench"))
}
