package io500

import (
	"strconv"
	"strings"
)

// group is what a phase's score counts towards.
type group int

const (
	noScore group = iota // timestamp
	groupMD              // kIOPS: mdtest and find phases
	groupBW              // GiB/s: ior phases
)

// tool is what runs a phase.
type tool int

const (
	toolIOR tool = iota
	toolMdtest
	toolFind
	toolTimestamp
)

// phase is one step of an IO500 run, in IO500's order.
type phase struct {
	Name string
	// Section is the INI section of the phase's own options (API, run);
	// Base is the section of the options it shares with its kind
	// ("ior-easy" for "ior-easy-write").
	Section, Base string
	Tool          tool
	Group         group
	// Write: a write or create phase, stonewalled with wear-out; IO500
	// checks that it ran at least the stonewall time (verify_stonewall).
	Write bool
	// Op is the ior access ("write", "read") or the mdtest operation
	// (report.Mdtest*) whose figures make the score.
	Op string
	// Random: ior-rnd4K-easy-read's random 4 KiB reads of the ior-easy
	// files.
	Random bool
}

// standardPhases are the phases of IO500's standard mode, in its order
// (src/phase-definitions.h without the optional ones).
var standardPhases = []phase{
	{Name: "ior-easy-write", Section: "ior-easy-write", Base: "ior-easy", Tool: toolIOR, Group: groupBW, Write: true, Op: "write"},
	{Name: "mdtest-easy-write", Section: "mdtest-easy-write", Base: "mdtest-easy", Tool: toolMdtest, Group: groupMD, Write: true, Op: "File creation"},
	{Name: "timestamp", Section: "timestamp", Tool: toolTimestamp},
	{Name: "ior-hard-write", Section: "ior-hard-write", Base: "ior-hard", Tool: toolIOR, Group: groupBW, Write: true, Op: "write"},
	{Name: "mdtest-hard-write", Section: "mdtest-hard-write", Base: "mdtest-hard", Tool: toolMdtest, Group: groupMD, Write: true, Op: "File creation"},
	{Name: "find", Section: "find", Tool: toolFind, Group: groupMD},
	{Name: "ior-easy-read", Section: "ior-easy-read", Base: "ior-easy", Tool: toolIOR, Group: groupBW, Op: "read"},
	{Name: "mdtest-easy-stat", Section: "mdtest-easy-stat", Base: "mdtest-easy", Tool: toolMdtest, Group: groupMD, Op: "File stat"},
	{Name: "ior-hard-read", Section: "ior-hard-read", Base: "ior-hard", Tool: toolIOR, Group: groupBW, Op: "read"},
	{Name: "mdtest-hard-stat", Section: "mdtest-hard-stat", Base: "mdtest-hard", Tool: toolMdtest, Group: groupMD, Op: "File stat"},
	{Name: "mdtest-easy-delete", Section: "mdtest-easy-delete", Base: "mdtest-easy", Tool: toolMdtest, Group: groupMD, Op: "File removal"},
	{Name: "mdtest-hard-read", Section: "mdtest-hard-read", Base: "mdtest-hard", Tool: toolMdtest, Group: groupMD, Op: "File read"},
	{Name: "mdtest-hard-delete", Section: "mdtest-hard-delete", Base: "mdtest-hard", Tool: toolMdtest, Group: groupMD, Op: "File removal"},
	// Random 4 KiB reads of the ior-easy files for the stonewall time:
	// run and reported, not scored.
	{Name: "ior-rnd4K-easy-read", Section: "ior-rnd4K-easy-read", Base: "ior-easy", Tool: toolIOR, Group: noScore, Op: "read", Random: true},
}

// Plan is a configuration resolved for one run: the directories, the
// stonewall and the timestamp every phase's command line is made from.
type Plan struct {
	Config *Config
	// Timestamp is the run's "2006.01.02-15.04.05" (rank 0's clock): the
	// suffix of timestamped dirs and the seed of the -G signatures.
	Timestamp string
	// DataDir and ResultDir are the configured dirs, suffixed by the
	// timestamp when asked.
	DataDir, ResultDir string
	// Stonewall is [debug] stonewall-time; MinWrite the rules' value (300,
	// 30 with [global] scc).
	Stonewall, MinWrite int64
	// API is [global] api's first word, APIArgs its options after it.
	API     string
	APIArgs []string
}

// NewPlan resolves c for a run started at timestamp.
func NewPlan(c *Config, timestamp string) *Plan {
	p := &Plan{Config: c, Timestamp: timestamp, DataDir: c.Str("global", "datadir"), ResultDir: c.Str("global", "resultdir"),
		Stonewall: c.Int("debug", "stonewall-time"), MinWrite: 300}
	if c.Bool("global", "scc") {
		p.MinWrite = 30
	}
	if c.Bool("global", "timestamp-resultdir") {
		p.ResultDir += "/" + timestamp
	}
	if c.Bool("global", "timestamp-datadir") {
		p.DataDir += "/" + timestamp
	}
	f := strings.Fields(c.Str("global", "api"))
	if len(f) > 0 {
		p.API, p.APIArgs = f[0], f[1:]
	}
	return p
}

// argv is a command line being built, IO500's u_argv_t.
type argv []string

func (a *argv) push(s ...string) { *a = append(*a, s...) }

// pushAPI adds "-a API [options]": the phase's API, else its base
// section's, else [global] api (IO500's u_argv_push_default_if_set_api_options).
func (p *Plan) pushAPI(a *argv, ph *phase) {
	a.push("-a")
	for _, v := range []string{p.Config.Str(ph.Section, "API"), p.Config.Str(ph.Base, "API")} {
		if v != "" {
			a.push(strings.Fields(v)...)
			return
		}
	}
	a.push(p.API)
	a.push(p.APIArgs...)
}

func (p *Plan) res(name string) string { return p.ResultDir + "/" + name }

// Argv returns the command line of ph, as IO500 builds it (its "exe ="),
// argv[0] "./ior", "./mdtest" or "./pfind"; nil for the timestamp.
func (p *Plan) Argv(ph *phase) []string {
	c := p.Config
	sw := strconv.FormatInt(p.Stonewall, 10)
	var a argv
	switch ph.Base {
	case "ior-easy":
		a.push("./ior", "--dataPacketType="+c.Str("global", "dataPacketType"))
		for range c.Int("ior-easy", "verbosity") {
			a.push("-v")
		}
		a.push("-g", "-G", itoa(int64(phaseSeed("ior-easy", p.Timestamp))), "-k", "-e", "-o", p.DataDir+"/ior-easy/ior_file_easy")
		if !ph.Random {
			a.push("-C", "-Q", "1", "-O", "stoneWallingStatusFile="+p.res("ior-easy.stonewall"),
				"-t", c.Str("ior-easy", "transferSize"), "-b", c.Str("ior-easy", "blockSize"))
		}
		if c.Bool("ior-easy", "uniqueDir") {
			a.push("-u")
		}
		if c.Bool("ior-easy", "filePerProc") {
			a.push("-F")
		}
		if c.Bool("ior-easy", "posix.odirect") {
			a.push("--posix.odirect")
		}
		switch {
		case ph.Random:
			a.push("-r", "-D", sw, "-z", "-z")
		case ph.Write:
			a.push("-w", "-D", sw, "-O", "stoneWallingWearOut=1")
		default:
			a.push("-r", "-R")
		}
		p.pushAPI(&a, ph)
		a.push("-O", "saveRankPerformanceDetailsCSV="+p.res(ph.Name+".csv"))
		if ph.Random {
			a.push("-t=4096", "-b=4096", "-s=10000000", "-O", "stoneWallingWearOut=1")
			if c.Bool("ior-easy", "filePerProc") {
				a.push("-C", "-Q", "2")
			}
		}
	case "ior-hard":
		a.push("./ior", "--dataPacketType="+c.Str("global", "dataPacketType"))
		for range c.Int("ior-hard", "verbosity") {
			a.push("-v")
		}
		a.push("-C", "-Q", "1", "-g", "-G="+itoa(int64(phaseSeed("ior-hard", p.Timestamp))), "-k", "-e", "-o", p.DataDir+"/ior-hard/file",
			"-O", "stoneWallingStatusFile="+p.res("ior-hard.stonewall"),
			"-t", "47008", "-b", "47008", "-s", c.Str("ior-hard", "segmentCount"))
		if ph.Write {
			a.push("-w")
		} else {
			a.push("-r", "-R")
		}
		if p.collective(ph) {
			a.push("-c")
		}
		if ph.Write {
			a.push("-D", sw)
		}
		p.pushAPI(&a, ph)
		a.push("-O", "saveRankPerformanceDetailsCSV="+p.res(ph.Name+".csv"))
		if ph.Write {
			a.push("-O", "stoneWallingWearOut=1")
		}
	case "mdtest-easy":
		a.push("./mdtest", "--dataPacketType="+c.Str("global", "dataPacketType"),
			"-n", c.Str("mdtest-easy", "n"), "-u", "-L", "-F", "-P", "-G", itoa(int64(phaseSeed("mdtest-easy", p.Timestamp))),
			"-N", "1", "-d", p.DataDir+"/mdtest-easy", "-x", p.res("mdtest-easy.stonewall"))
		p.mdtestOp(&a, ph, sw)
	case "mdtest-hard":
		a.push("./mdtest", "--dataPacketType="+c.Str("global", "dataPacketType"), "-n", c.Str("mdtest-hard", "n"))
		if n := c.Int("mdtest-hard", "files-per-dir"); n > 0 {
			a.push("-I=" + itoa(n))
		}
		a.push("-t", "-w", "3901", "-e", "3901", "-P", "-G="+itoa(int64(phaseSeed("mdtest-hard", p.Timestamp))),
			"-N", "1", "-F", "-d", p.DataDir+"/mdtest-hard", "-x", p.res("mdtest-hard.stonewall"))
		p.mdtestOp(&a, ph, sw)
	default:
		if ph.Tool != toolFind {
			return nil
		}
		a.push("./pfind", p.DataDir, "-newer", p.res("timestampfile"), "-size", "3901c", "-name", "*01*", "-C")
		if c.Bool("find", "pfind-steal-next") {
			a.push("-N")
		}
		if c.Bool("find", "pfind-parallelize-single-dir-access-using-hashing") {
			a.push("-H", "1")
		}
		a.push("-q", c.Str("find", "pfind-queue-length"))
	}
	return a
}

// mdtestOp adds an mdtest phase's own options: its operation, the
// stonewall of a create (not with files-per-dir, as IO500), the per-rank
// CSV and the API.
func (p *Plan) mdtestOp(a *argv, ph *phase, sw string) {
	switch ph.Op {
	case "File creation":
		a.push("-C", "-Y")
		if ph.Base != "mdtest-hard" || p.Config.Int(ph.Base, "files-per-dir") <= 0 {
			a.push("-W", sw)
		}
	case "File stat":
		a.push("-T")
	case "File read":
		a.push("-E", "-X")
	case "File removal":
		a.push("-r")
	}
	a.push("--saveRankPerformanceDetails=" + p.res(ph.Name+".csv"))
	p.pushAPI(a, ph)
}

// collective reports whether an ior-hard phase asks for collective I/O:
// its own collective, else [ior-hard]'s.
func (p *Plan) collective(ph *phase) bool {
	if v := p.Config.Str(ph.Section, "collective"); v != "" {
		return v == "TRUE"
	}
	return p.Config.Bool("ior-hard", "collective")
}

// Runs reports whether ph is to run: its section's run and its base's.
func (p *Plan) Runs(ph *phase) bool {
	c := p.Config
	if ph.Tool == toolTimestamp {
		return true
	}
	if !c.Bool(ph.Section, "run") {
		return false
	}
	return ph.Base == "" || c.Bool(ph.Base, "run")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// Command is one phase's command line, for a check before the run.
type Command struct {
	Phase string
	// Tool is "ior" or "mdtest"; Args the command line after the
	// program's name.
	Tool string
	Args []string
}

// Commands returns the ior and mdtest command lines of c's phases as a run
// started at timestamp makes them, so that the command can refuse a bad
// configuration before any work.
func Commands(c *Config, timestamp string) []Command {
	p := NewPlan(c, timestamp)
	var out []Command
	for i := range standardPhases {
		ph := &standardPhases[i]
		if !p.Runs(ph) {
			continue
		}
		switch ph.Tool {
		case toolIOR:
			out = append(out, Command{Phase: ph.Name, Tool: "ior", Args: p.Argv(ph)[1:]})
		case toolMdtest:
			out = append(out, Command{Phase: ph.Name, Tool: "mdtest", Args: p.Argv(ph)[1:]})
		}
	}
	return out
}
