package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// mdtest's defaults (mdtest_init_args and the locals of mdtest_run).
const (
	// DefaultDir is -d: the directory the test runs in.
	DefaultDir = "./out"
	// DefaultDataSeed is -G: -1 means the time at start, broadcast from
	// rank 0.
	DefaultDataSeed = -1
)

// The report formats of --format (hpcbench's addition; mdtest has none).
const (
	// FormatHuman is mdtest's text report with its SUMMARY tables.
	FormatHuman = "human"
	// FormatJSON is a single JSON document of the run.
	FormatJSON = "json"
	// FormatCSV is one CSV row per phase and iteration.
	FormatCSV = "csv"
)

// Options are the parameters of an mdtest run, named after mdtest's
// mdtest_options_t fields in Go style; the comment of each names its flag.
// DefaultOptions returns mdtest's defaults. Validate checks everything that
// does not depend on the job size; Resolve completes the options for a job
// and returns mdtest's warnings.
type Options struct {
	// API is the backend's registered name (-a), matched without regard
	// to case when parsed. The backend must support metadata
	// (aiori.Entry.Metadata).
	API string
	// Backend is the registry entry API selected. Not echoed to JSON: it
	// holds constructors.
	Backend aiori.Entry `json:"-"`
	// BackendOptions are the selected backend's own options
	// (--posix.odirect, --dummy.delay-create). Every backend's options are
	// accepted on the command line, as mdtest does; only these are used.
	BackendOptions aiori.Options

	// Items is -n: the items each rank creates, stats, reads and removes
	// (directories and files, unless -F or -D). With a tree and no -I,
	// Layout spreads them evenly over the directories that hold items.
	Items int64
	// ItemsPerDir is -I: items per directory of the tree. With -n as
	// well (not allowed with -u), the run makes -n/-I test directories,
	// each holding a tree of -I items per directory; see Layout.
	ItemsPerDir int64
	// Depth is -z: levels of directories below the tree's root.
	Depth int
	// Branch is -b: subdirectories per directory of the tree.
	Branch int
	// LeafOnly is -L: items only in the deepest level of the tree.
	LeafOnly bool
	// Dirs is -d: the directories the test runs in, split at @; rank r
	// works in Dirs[r % len(Dirs)]. Several need -u.
	Dirs []string
	// UniqueDir is -u: each rank has its own tree (mdtest_tree.<rank>.0).
	UniqueDir bool
	// TimeUniqueDir is -t: in mdtest, the phases' timing includes changing
	// into the rank's tree (-u). hpcbench works with paths and never
	// changes directory, so the flag is accepted and has nothing to add.
	TimeUniqueDir bool

	// FilesOnly is -F: file phases only. With DirsOnly as well, or with
	// neither, both kinds run (as in mdtest); see RunsFilePhases.
	FilesOnly bool
	// DirsOnly is -D: directory phases only.
	DirsOnly bool

	// Create is -C: the create phases (and tree creation).
	Create bool
	// Stat is -T: the stat phases.
	Stat bool
	// Read is -E: the read phases (file read; mdtest's directory read is
	// timed but does nothing).
	Read bool
	// Remove is -r: the remove phases (and tree removal).
	Remove bool
	// Rename is -U: the directory rename phase, which renames each
	// directory item into the previous one's name (a rotation). Parse
	// turns all five phases on when none of -C -T -E -r -U is given, as
	// mdtest's md_validate_tests does; -U alone runs the rename phase only.
	// It runs on directories, and only when a rank has more than one item.
	Rename bool

	// WriteBytes is -w: bytes written to each file after it is created.
	WriteBytes int64
	// ReadBytes is -e: bytes read from each file in the read phase; 0
	// makes the read phase an open and close.
	ReadBytes int64
	// Iterations is -i: how many times the whole test runs.
	Iterations int
	// Stride is -N: the phases after create work on the items of rank
	// (rank + Stride) mod ranks, so that no client reads its own cache.
	// mdtest multiplies it by the ranks per node when the job spans
	// several nodes with ranks placed by block; that is the engine's.
	Stride int

	// RandomStat is -R: stat (and read) the items in a random order.
	RandomStat bool
	// RandomSeed is --random-seed (or -R=N): the seed of -R; 0 means the
	// time at start, broadcast from rank 0, and mdtest then adds the
	// rank. A seed given without -R also turns random order on, as in
	// mdtest (see RandomOrder).
	RandomSeed int

	// SharedFile is -S: every rank works on one shared file; there are no
	// directory phases.
	SharedFile bool
	// Collective is -c: rank 0 creates and removes the items of every
	// rank.
	Collective bool
	// Mknod is -k: create files with mknod instead of open/creat.
	Mknod bool
	// Fsync is -y: fsync each file after writing it.
	Fsync bool
	// SyncPhases is -Y: sync the file system at the end of each phase,
	// inside the timing (the backend must implement aiori's sync).
	SyncPhases bool

	// NoBarriers is -B, which in mdtest 4 takes a value: 0 keeps the
	// barriers between phases (and is all hpcbench accepts); any other
	// value makes mdtest 4 abort with its stone wall error, and phases
	// need barriers to be timed.
	NoBarriers int
	// StonewallSeconds is -W: stop the file create phase after this many
	// seconds, then let every rank catch up to the largest count any rank
	// reached; 0 is off.
	StonewallSeconds int
	// StonewallStatusFile is -x: the file that carries the item count of a
	// stonewalled create phase to later runs of the other phases.
	StonewallStatusFile string

	// VerifyRead is -X (--verify-read): check the data of the read phase.
	VerifyRead bool
	// VerifyWrite is --verify-write: read each file back after writing it
	// and check the data (needs -w to do anything).
	VerifyWrite bool
	// DataSeed is -G: the offset (seed) of the data pattern; -1 means the
	// time at start, broadcast from rank 0.
	DataSeed int
	// DataPacketType is --dataPacketType.
	DataPacketType pattern.Type

	// PrintTime is -P: print the SUMMARY time table after the rate table.
	PrintTime bool
	// TimeOnly is -Z: print the SUMMARY time table instead of the rate
	// table (-P wins when both are given).
	TimeOnly bool
	// ShowRankStatistics is --showRankStatistics: per-rank max, min and
	// mean columns in the SUMMARY tables.
	ShowRankStatistics bool
	// PrintAllProcs is --print-all-procs: every rank's figures.
	PrintAllProcs bool

	// FirstTasks is -f: the first number of ranks to run with. It takes
	// effect only with -l (mdtest ignores it otherwise).
	FirstTasks int
	// LastTasks is -l: the last number of ranks to run with; 0 means the
	// job size, and then only the job size runs. Resolve fills it in.
	LastTasks int
	// TasksStride is -s: the step from one number of ranks to the next.
	TasksStride int

	// PreDelay is -p: seconds to wait before each iteration's phases.
	PreDelay int
	// RunCmdBeforePhase is --run-cmd-before-phase: a shell command run
	// before each phase, outside the timing.
	RunCmdBeforePhase string
	// RunCmdAfterPhase is --run-cmd-after-phase: a shell command run after
	// each phase, inside the timing.
	RunCmdAfterPhase string

	// SaveRankPerformanceDetails is --saveRankPerformanceDetails: a CSV
	// file of every rank's rates and times (mdtest's format).
	SaveRankPerformanceDetails string
	// SavePerOpDataCSV is --savePerOpDataCSV: the prefix of per-rank CSV
	// files of every file operation.
	SavePerOpDataCSV string
	// Verbose is -v (counted) or -V N (set).
	Verbose int
	// WarningAsErrors is --warningAsErrors: Resolve fails on any warning.
	WarningAsErrors bool

	// Format is --format: human, json or csv (hpcbench's addition). It
	// goes to stdout unless Output is set; see StdoutFormat.
	Format string
	// Output is --output: the file that receives the Format report. With
	// Output set, stdout gets the human report, so one run gives human
	// and JSON (--output run.json). Without --format, Parse takes the
	// format from Output's extension: .csv is CSV, anything else JSON.
	Output string
	// Archive is --archive: the file that gets the run as
	// report.WriteJSON writes it ("" for none).
	Archive string

	// Interval is --interval: the length of the archive's time-series
	// intervals (distribution.DefaultInterval unless given).
	Interval time.Duration
	// Steady is --until-steady: each rank ends its share of a creation
	// phase once its creation rate is steady (distribution.Steady's test), and the
	// phase then finishes as a stonewalled one (-W); zero is off.
	Steady distribution.Steady
}

// DefaultOptions returns mdtest's defaults. API is empty: Parse fills in
// the registry's first backend that supports mdtest. No phase is on:
// Parse turns them all on when none is asked for.
func DefaultOptions() Options {
	return Options{
		Branch:         1,
		Dirs:           []string{DefaultDir},
		Iterations:     1,
		DataSeed:       DefaultDataSeed,
		DataPacketType: pattern.Timestamp,
		FirstTasks:     1,
		TasksStride:    1,
		Format:         FormatHuman,
		Interval:       distribution.DefaultInterval,
	}
}

// StdoutFormat returns the format of the report on stdout: Format, or
// human when Output takes the Format report.
func (o *Options) StdoutFormat() string {
	if o.Output != "" {
		return FormatHuman
	}
	return o.Format
}

// RandomOrder reports whether stat and read visit the items in a random
// order: -R, or a --random-seed above 0 (mdtest tests the seed, not -R).
func (o *Options) RandomOrder() bool {
	return o.RandomStat || o.RandomSeed > 0
}

// Validate checks every combination mdtest rejects that does not depend on
// the job size (Resolve checks the rest), the backend and its options, and
// that the item counts give every directory an item. The error is one line
// naming the flags and the accepted range.
func (o *Options) Validate() error {
	if err := o.validateBackend(); err != nil {
		return err
	}
	if err := o.validateRanges(); err != nil {
		return err
	}
	if err := o.validateItems(); err != nil {
		return err
	}
	if err := o.validateCombinations(); err != nil {
		return err
	}
	if err := o.validateDist(); err != nil {
		return err
	}
	if !validFormat(o.Format) {
		return fmt.Errorf("--format %q: want human, json or csv", o.Format)
	}
	return nil
}

// validateBackend checks that a backend that supports mdtest was chosen,
// and its options.
func (o *Options) validateBackend() error {
	switch {
	case o.Backend.Name == "" || o.BackendOptions == nil:
		return fmt.Errorf("-a %s: no backend selected", o.API)
	case !o.Backend.Metadata:
		return fmt.Errorf("-a %s: backend does not support mdtest", o.Backend.Name)
	}
	if err := o.BackendOptions.Validate(); err != nil {
		return fmt.Errorf("-a %s: %w", o.Backend.Name, err)
	}
	return nil
}

// validateRanges checks each value on its own.
func (o *Options) validateRanges() error {
	checks := []struct {
		bad  bool
		name string
		want string
		got  int64
	}{
		{o.Items < 0, "-n", ">= 0", o.Items},
		{o.ItemsPerDir < 0, "-I", ">= 0", o.ItemsPerDir},
		{o.Depth < 0, "-z", ">= 0", int64(o.Depth)},
		{o.Branch < 1, "-b", ">= 1", int64(o.Branch)},
		{o.Iterations < 1, "-i", ">= 1", int64(o.Iterations)},
		{o.WriteBytes < 0, "-w", ">= 0", o.WriteBytes},
		{o.ReadBytes < 0, "-e", ">= 0", o.ReadBytes},
		{o.Stride < 0, "-N", ">= 0", int64(o.Stride)},
		{o.RandomSeed < 0, "--random-seed", ">= 0 (0: the time)", int64(o.RandomSeed)},
		{o.StonewallSeconds < 0, "-W", ">= 0 (0: off)", int64(o.StonewallSeconds)},
		{o.FirstTasks < 1, "-f", ">= 1", int64(o.FirstTasks)},
		{o.LastTasks < 0, "-l", ">= 1, or 0 for the job size", int64(o.LastTasks)},
		{o.TasksStride < 1, "-s", ">= 1", int64(o.TasksStride)},
		{o.PreDelay < 0, "-p", ">= 0", int64(o.PreDelay)},
		{o.Verbose < 0, "-v/-V", ">= 0", int64(o.Verbose)},
	}
	for _, c := range checks {
		if c.bad {
			return fmt.Errorf("%s must be %s (got %d)", c.name, c.want, c.got)
		}
	}
	if !o.DataPacketType.Valid() {
		return fmt.Errorf("--dataPacketType: unknown data packet type %d", int(o.DataPacketType))
	}
	if len(o.Dirs) == 0 {
		return errors.New("-d must name a directory")
	}
	for _, d := range o.Dirs {
		if d == "" {
			return fmt.Errorf("-d %q: empty directory name", strings.Join(o.Dirs, "@"))
		}
	}
	return nil
}

// validateItems checks -n and -I against each other and the tree. Neither
// is allowed: mdtest then runs with no items, timing only the tree phases
// (testing/basic-tests.sh runs "mdtest -a POSIX" so).
func (o *Options) validateItems() error {
	n, per := o.Items, o.ItemsPerDir
	switch {
	case n > 0 && per > 0 && o.UniqueDir:
		return fmt.Errorf("-n %d and -I %d cannot both be given with -u: give the number of items (-n) or the items per directory (-I)", n, per)
	case n > 0 && per > 0 && n%per != 0:
		return fmt.Errorf("-n %d is not a multiple of -I %d: without -u, the run makes -n/-I test directories of -I items per directory", n, per)
	}
	dirs, ok := treeDirs(o.Depth, o.Branch)
	if !ok {
		return fmt.Errorf("-z %d -b %d: the tree would have more than %d directories", o.Depth, o.Branch, int64(math.MaxInt64))
	}
	l := o.Layout()
	if n > 0 && per == 0 && l.ItemsPerDir == 0 {
		return fmt.Errorf("-n %d is less than the %d directories that hold items (%s): give -n >= %d, or -I",
			n, l.ItemDirs, o.treeFlags(), l.ItemDirs)
	}
	if l.ItemsPerRank == math.MaxInt64 {
		return fmt.Errorf("%s with %s (%d directories): more than %d items per rank",
			o.itemFlags(), o.treeFlags(), dirs, int64(math.MaxInt64))
	}
	// mdtest numbers a tree's items across all its directories (with -L
	// the first leaf's first item is the number of directories above the
	// leaves times -I), and a rank makes DirLoops trees.
	if mulSat(dirs, l.ItemsPerDir) == math.MaxInt64 {
		return fmt.Errorf("%s with %s: %d items in each of %d directories: item numbers beyond %d",
			o.itemFlags(), o.treeFlags(), l.ItemsPerDir, dirs, int64(math.MaxInt64))
	}
	if mulSat(dirs, l.DirLoops) == math.MaxInt64 {
		return fmt.Errorf("%s with %s: %d test directories of %d directories each: more than %d directories per rank",
			o.itemFlags(), o.treeFlags(), l.DirLoops, dirs, int64(math.MaxInt64))
	}
	return nil
}

// treeFlags names the tree shape as flags: "-z 2 -b 3 -L".
func (o *Options) treeFlags() string {
	s := fmt.Sprintf("-z %d -b %d", o.Depth, o.Branch)
	if o.LeafOnly {
		s += " -L"
	}
	return s
}

// itemFlags names the item counts given: "-n 10", "-I 5" or both.
func (o *Options) itemFlags() string {
	switch {
	case o.Items > 0 && o.ItemsPerDir > 0:
		return fmt.Sprintf("-n %d -I %d", o.Items, o.ItemsPerDir)
	case o.Items > 0:
		return fmt.Sprintf("-n %d", o.Items)
	}
	return fmt.Sprintf("-I %d", o.ItemsPerDir)
}

// validateCombinations checks md_validate_tests' combinations, in its
// order, and a few of hpcbench's own.
func (o *Options) validateCombinations() error {
	several := len(o.Dirs) > 1
	switch {
	case !o.Create && !o.Stat && !o.Read && !o.Remove && !o.Rename:
		return errors.New("-C, -T, -E, -r, -U: no phase to run")
	case o.NoBarriers != 0:
		return fmt.Errorf("-B %d (no barriers) is not supported: mdtest 4 then always aborts with its stone wall error, and phases need barriers to be timed; -B 0 keeps them", o.NoBarriers)
	case o.StonewallSeconds > 0 && o.Branch > 1:
		return fmt.Errorf("-W %d needs -b <= 1 (got -b %d): the stonewall timer works only with a branch factor of 1",
			o.StonewallSeconds, o.Branch)
	case o.Collective && o.SharedFile:
		return errors.New("-c cannot be combined with -S")
	case o.Collective && o.StonewallSeconds > 0:
		return fmt.Errorf("-c cannot be combined with -W %d: rank 0 creates every rank's items, so a stonewall cannot stop each rank's share where it stands", o.StonewallSeconds)
	case o.Collective && several:
		return fmt.Errorf("-c cannot be combined with several -d directories (got %d)", len(o.Dirs))
	case o.UniqueDir && o.SharedFile:
		return errors.New("-u cannot be combined with -S")
	case several && o.Stride > 0:
		return fmt.Errorf("-N %d cannot be combined with several -d directories (got %d)", o.Stride, len(o.Dirs))
	case several && !o.UniqueDir:
		return fmt.Errorf("-d with %d directories needs -u: without it all ranks share one tree", len(o.Dirs))
	case o.SharedFile && o.DirsOnly && !o.FilesOnly:
		return errors.New("-S cannot be combined with -D: a shared file has no directory phases, so nothing would run")
	case o.Mknod && o.WriteBytes > 0:
		return fmt.Errorf("-k cannot be combined with -w %d: mknod creates empty files", o.WriteBytes)
	case o.VerifyRead && !o.Read:
		return errors.New("-X (verify read) needs the read phase: add -E, or give none of -C -T -E -r -U")
	case o.VerifyRead && o.ReadBytes <= 0:
		return errors.New("-X (verify read) needs -e > 0: there is nothing to verify")
	case o.Create && o.Read && o.ReadBytes > o.WriteBytes:
		return fmt.Errorf("-e %d must be <= -w %d when the create and read phases both run: a file holds only -w bytes",
			o.ReadBytes, o.WriteBytes)
	case o.LastTasks > 0 && o.FirstTasks > o.LastTasks:
		return fmt.Errorf("-f %d must be <= -l %d", o.FirstTasks, o.LastTasks)
	case len(o.Phases()) == 0:
		return errors.New("-U alone renames directories, and needs more than one per rank: with -F, -S or one item nothing would run")
	}
	return nil
}

// validateDist checks --interval and --until-steady. --until-steady
// stops the creation phases as -W does, so it needs what -W needs and a
// creation phase with items to stop.
func (o *Options) validateDist() error {
	if err := distribution.CheckInterval(o.Interval); err != nil {
		return err
	}
	if !o.Steady.On() {
		return nil
	}
	if _, err := o.Steady.Intervals(o.Interval); err != nil {
		return err
	}
	us := "--until-steady=" + o.Steady.String()
	switch {
	case !o.Create:
		return fmt.Errorf("%s needs the create phase (-C, or none of -C -T -E -r -U): it ends the creation phases early, as -W does, and the later phases work on the items created", us)
	case o.Items == 0 && o.ItemsPerDir == 0:
		return fmt.Errorf("%s needs items to create (-n or -I): without them only the tree phases run, and it does not stop those", us)
	case o.Collective:
		return fmt.Errorf("-c cannot be combined with %s: rank 0 creates every rank's items, so no rank's own creation rate can end its share", us)
	case o.Branch > 1:
		return fmt.Errorf("%s needs -b <= 1 (got -b %d): it stops the creation phases as the stonewall timer (-W) does, which works only with a branch factor of 1", us, o.Branch)
	}
	return nil
}

// Warnings returns mdtest's warnings about the options that do not depend
// on the job size, as text without the "WARNING: " prefix. Resolve returns
// them too.
func (o *Options) Warnings() []string {
	var w []string
	if o.Read && o.ReadBytes == 0 {
		w = append(w, "Read bytes is 0, thus, a read test will actually just open/close")
	}
	if l := o.Layout(); o.Items > 0 && o.ItemsPerDir == 0 && l.ItemsPerDir > 0 && l.ItemsPerRank != o.Items {
		w = append(w, fmt.Sprintf("-n %d is not a multiple of the %d directories that hold items (%s): each rank uses %d items, %d per directory",
			o.Items, l.ItemDirs, o.treeFlags(), l.ItemsPerRank, l.ItemsPerDir))
	}
	if o.VerifyRead && !o.Create && o.DataSeed == DefaultDataSeed {
		w = append(w, "-X without -C or -G: the data's seed is this run's start time, so files an earlier run wrote will not verify; give both runs the same -G")
	}
	if o.VerifyWrite && o.WriteBytes == 0 {
		w = append(w, "--verify-write has no effect without -w: there is no data to verify")
	}
	if o.LastTasks == 0 && o.FirstTasks != 1 {
		w = append(w, fmt.Sprintf("-f %d has no effect without -l: only the full job size runs", o.FirstTasks))
	}
	return w
}

// unusedDirs names the -d directories no rank works in: "b", or "b and
// 2 more".
func unusedDirs(d []string) string {
	if len(d) == 1 {
		return d[0] + " is"
	}
	return fmt.Sprintf("%s and %d more are", d[0], len(d)-1)
}

// Resolve completes the options for a job of jobSize ranks and checks what
// depends on it: -l within the job
// (-l 0 becomes the job size, and -f with it, as in mdtest), and the total
// item count. It returns Warnings plus a warning when -N is not smaller
// than the job (the stride wraps around) and one when -d names more
// directories than there are ranks (rank r works in the (r mod n)-th, so
// the last ones are not used), as text without the "WARNING: " prefix. Under --warningAsErrors a warning is an error.
func (o *Options) Resolve(jobSize int) (warnings []string, err error) {
	if jobSize < 1 {
		return nil, fmt.Errorf("job size %d: want at least 1 rank", jobSize)
	}
	if o.LastTasks > jobSize {
		return nil, fmt.Errorf("-l %d is more than the job's %d ranks", o.LastTasks, jobSize)
	}
	if o.TotalItems(jobSize) == math.MaxInt64 {
		return nil, fmt.Errorf("%s over %d ranks: more than %d items", o.itemFlags(), jobSize, int64(math.MaxInt64))
	}
	warnings = o.Warnings()
	if len(o.Dirs) > jobSize {
		warnings = append(warnings, fmt.Sprintf("-d has %d directories but the test has %d ranks: %s not used, as in mdtest",
			len(o.Dirs), jobSize, unusedDirs(o.Dirs[jobSize:])))
	}
	if o.Stride > 0 && o.Stride >= jobSize {
		w := fmt.Sprintf("-N %d is not smaller than the job's %d ranks: ranks work on the items of rank (rank+%d) mod %d",
			o.Stride, jobSize, o.Stride, jobSize)
		if o.Stride%jobSize == 0 {
			w += ", their own"
		}
		warnings = append(warnings, w)
	}
	if o.LastTasks == 0 {
		o.FirstTasks, o.LastTasks = jobSize, jobSize
	}
	if o.WarningAsErrors && len(warnings) > 0 {
		return warnings, fmt.Errorf("--warningAsErrors: %s", warnings[0])
	}
	return warnings, nil
}

// TaskCounts returns the numbers of ranks to run with, in order: -f, -f+-s,
// … up to -l. It is empty until Resolve has set -l.
func (o *Options) TaskCounts() []int {
	var counts []int
	if o.FirstTasks < 1 || o.TasksStride < 1 {
		return nil
	}
	for n := o.FirstTasks; n <= o.LastTasks; n += o.TasksStride {
		counts = append(counts, n)
		if n > math.MaxInt-o.TasksStride {
			break
		}
	}
	return counts
}

// ForTasks returns a copy of o that runs with n ranks only: the options of
// one step of a -f/-l/-s sweep, for the communicator of the job's first n
// ranks.
func (o *Options) ForTasks(n int) *Options {
	c := *o
	c.Dirs = append([]string(nil), o.Dirs...)
	c.FirstTasks, c.LastTasks, c.TasksStride = n, n, 1
	return &c
}

// BufferBytes returns the memory a rank allocates for file data: the
// write buffer (-w) and the read buffer (the larger of -w and -e).
func (o *Options) BufferBytes() int64 {
	return max(0, o.WriteBytes) + max(0, o.WriteBytes, o.ReadBytes)
}

// perOpRecord is what --savePerOpDataCSV keeps of one operation until
// its phase ends: its start and its duration, two float64s.
const perOpRecord = 16

// PerOpBytes returns the memory --savePerOpDataCSV keeps during a file
// phase on the rank that records the most operations, in a job of np
// ranks: perOpRecord bytes for each of its own items and, with -c, on
// rank 0, for every rank's too. 0 without --savePerOpDataCSV.
func (o *Options) PerOpBytes(np int) int64 {
	if o.SavePerOpDataCSV == "" || !o.RunsFilePhases() {
		return 0
	}
	ops := o.Layout().ItemsPerRank
	if o.Collective {
		ops = mulSat(ops, int64(max(np, 1))+1)
	}
	return mulSat(ops, perOpRecord)
}

// CheckMemory refuses, in one line naming the flags, a run whose data
// buffers (-w, -e), with the operations --savePerOpDataCSV keeps, do
// not fit this host's memory for its ranks ranks of a job of np. The
// per-operation records are counted for every rank as for the one that
// keeps the most (rank 0 with -c). The rest of a rank's memory does not
// grow with the options: paths are derived, not kept.
func (o *Options) CheckMemory(np, ranks int, host hostmem.HostMemory) error {
	if err := hostmem.BufferError(o.BufferBytes(), ranks, host); err != nil {
		flag := "-w " + hostmem.SizeArg(o.WriteBytes)
		if o.ReadBytes > o.WriteBytes {
			flag = "-e " + hostmem.SizeArg(o.ReadBytes)
			if o.WriteBytes > 0 {
				flag = "-w " + hostmem.SizeArg(o.WriteBytes) + " " + flag
			}
		}
		return fmt.Errorf("%s: %w", flag, err)
	}
	if p := o.PerOpBytes(np); p > 0 {
		buf := o.BufferBytes()
		if err := hostmem.BufferError(buf+min(p, math.MaxInt64-buf), ranks, host); err != nil {
			return fmt.Errorf("--savePerOpDataCSV with %s: %d bytes per operation: %w", o.itemFlags(), perOpRecord, err)
		}
	}
	return nil
}
