package config

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/ior/layout"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
	"github.com/hpcbench/hpcbench/internal/pattern"
	"github.com/hpcbench/hpcbench/internal/units"
)

// IOR's defaults (init_IOR_Param_t).
const (
	// DefaultBlockSize is -b: contiguous bytes per task per segment.
	DefaultBlockSize = 1 * units.MiB
	// DefaultTransferSize is -t: bytes per I/O call.
	DefaultTransferSize = 256 * units.KiB
	// DefaultTestFile is -o.
	DefaultTestFile = "testFile"
)

// The summary formats of -O summaryFormat, in IOR's spelling.
const (
	SummaryDefault = "default"
	SummaryJSON    = "JSON"
	SummaryCSV     = "CSV"
)

// accessSize is IOR's IOR_size_t: block and transfer sizes must be
// multiples of it, because data patterns are written in 8-byte words.
const accessSize = 8

// Options are the parameters of one IOR test, named after IOR's
// IOR_param_t fields; the comment of each names its flag or -O key.
// DefaultOptions returns IOR's defaults. A value is checked by Validate
// (everything that does not depend on the job size) and completed for a
// job by Resolve.
type Options struct {
	// ID numbers the tests of a script from 0 (IOR's "Test#").
	ID int

	// API is -a as given, a backend's name or alias in any case, as IOR
	// prints it; Backend is the backend it names.
	API string
	// Backend is the registry entry API selected. Not echoed to JSON: it
	// holds constructors.
	Backend aiori.Entry `json:"-"`
	// BackendOptions are the selected backend's own options
	// (--posix.odirect, -O posix.odirect=1).
	BackendOptions aiori.Options

	// BlockSize is -b: contiguous bytes per task per segment.
	BlockSize int64
	// TransferSize is -t: bytes per I/O call.
	TransferSize int64
	// SegmentCount is -s: the number of segments.
	SegmentCount int64
	// TestFile is -o: the file name (file per process appends the rank).
	TestFile string
	// Repetitions is -i: how many times the whole test runs.
	Repetitions int

	// WriteFile is -w: the timed write phase.
	WriteFile bool
	// ReadFile is -r: the timed read phase.
	ReadFile bool
	// CheckWrite is -W: read back and verify after writing, untimed.
	CheckWrite bool
	// CheckRead is -R: verify the data of the timed read.
	CheckRead bool
	// FilePerProc is -F: one file per task instead of one shared file.
	FilePerProc bool

	// ReorderTasks is -C: read the data another task wrote, at a constant
	// offset of TaskPerNodeOffset.
	ReorderTasks bool
	// TaskPerNodeOffset is -Q: the shift of -C and the minimum of -Z.
	TaskPerNodeOffset int
	// ReorderTasksRandom is -Z, counted: 1 lets each task draw a random
	// task to read; 2 (-Z -Z) shuffles the tasks, a permutation.
	ReorderTasksRandom int
	// ReorderTasksRandomSeed is -X, the seed of -Z; negative means |X|
	// plus the repetition number.
	ReorderTasksRandomSeed int
	// RandomOffset is -z, counted: 1 shuffles the transfers within a
	// block, 2 (-z -z) picks random block-aligned offsets that may repeat.
	RandomOffset int
	// RandomOffsetSeed is --random-offset-seed, the seed of -z; -1 means
	// unset (the time at start).
	RandomOffsetSeed int64
	// RandomPrefill is --randomPrefill: with -z, first fill the file in
	// pieces of this many bytes; 0 is off.
	RandomPrefill int64

	// Fsync is -e: fsync at the end of the write phase, inside the timing.
	Fsync bool
	// FsyncPerWrite is -Y: fsync after every write.
	FsyncPerWrite bool
	// IntraTestBarriers is -g: barriers between open, transfer and close.
	IntraTestBarriers bool
	// KeepFile is -k: do not remove the files at the end.
	KeepFile bool
	// KeepFileWithError is -K: keep the files when verification failed.
	KeepFileWithError bool
	// UseExistingTestFile is -E: do not remove the file before writing.
	UseExistingTestFile bool
	// MultiFile is -m: every repetition uses a new file.
	MultiFile bool
	// UniqueDir is -u: with -F, each task's file in its own directory.
	UniqueDir bool
	// SingleXferAttempt is -x: do not retry short transfers.
	SingleXferAttempt bool
	// DryRun is --dryRun: no I/O.
	DryRun bool
	// WarningAsErrors is --warningAsErrors: any warning fails the run.
	WarningAsErrors bool
	// Collective is -c: collective I/O, ROMIO's two-phase method over the
	// job's collectives (internal/ior/twophase).
	Collective bool
	// CollectiveCall is -O collectiveCall: CallTransfer (one collective
	// call per transfer, as IOR calls MPI-IO: the default) or CallPhase
	// (one per phase, over the whole of each rank's access).
	CollectiveCall string
	// HintsFileName is -U (-O hintsFileName): IOR's MPI-IO hints file,
	// lines IOR_HINT__MPI__key=value, read for -c's hints.
	HintsFileName string
	// Hints are -c's collective-buffering hints: ROMIO's defaults, then
	// the IOR_HINT__MPI__ environment, then the hints file, then the
	// options that name a hint (-O cb_nodes=2, --cb_buffer_size 4m), as
	// Parse resolves them.
	Hints twophase.Hints
	// hintArgs are the hint options given, in order, applied last.
	hintArgs [][2]string
	// DualMount is -y: dual mount points, file per process only.
	DualMount bool

	// DeadlineForStonewalling is -D: stop a phase after this many seconds;
	// 0 is off.
	DeadlineForStonewalling int
	// StoneWallingWearOut is -O stoneWallingWearOut: after the deadline,
	// every task goes on to the largest count of transfers any task made.
	StoneWallingWearOut bool
	// StoneWallingWearOutIterations is -O stoneWallingWearOutIterations:
	// stop after this many transfers (to read back what a stonewalled
	// write wrote).
	StoneWallingWearOutIterations int
	// StoneWallingStatusFile is -O stoneWallingStatusFile: the file that
	// carries the transfer count from a write run to a read run.
	StoneWallingStatusFile string

	// MaxTimeDuration is -T: start no repetition after this many minutes.
	MaxTimeDuration int
	// MinTimeDuration is -O minTimeDuration: repeat the access from the
	// start of the file until this many seconds have passed.
	MinTimeDuration int
	// InterTestDelay is -d: how long to sleep before each phase. IOR
	// takes whole seconds and reads 0.1 as 0; here a fraction is kept.
	InterTestDelay time.Duration
	// InterIODelay is -O interIODelay: microseconds between I/O calls.
	InterIODelay int

	// Interval is --interval: the length of the archive's throughput
	// intervals; IntervalSet records that it was given (SeriesInterval
	// gives the default otherwise).
	Interval    time.Duration
	IntervalSet bool
	// UntilSteady is --until-steady: end each rank's write or read phase
	// once its throughput is steady; zero is off. The phase then ends as
	// a -D deadline ends it.
	UntilSteady distribution.Steady

	// TimeStampSignature is -G: the data signature (and the seed of -l
	// random); when TimeStampSignatureSet is false the time at the start
	// of each repetition is used.
	TimeStampSignature int64
	// TimeStampSignatureSet records that -G was given, 0 included.
	TimeStampSignatureSet bool
	// DataPacketType is -l.
	DataPacketType pattern.Type

	// NumTasks is -N: tasks taking part; -1 means all of the job.
	NumTasks int
	// RefNum is -A: a user's reference number printed in the summary.
	RefNum int
	// NumNodes is -O numNodes: the node count to assume instead of the
	// job's (-C's shift, -Z's node offset, the report); 0 is the job's.
	NumNodes int
	// NumTasksOnNode0 is -O numTasksOnNode0: the tasks on the first node
	// to assume instead of the job's (-C, -Z, -M's share, the report); 0
	// is the job's.
	NumTasksOnNode0 int
	// Platform is -O platform: the JSON "platform" in place of the host's.
	Platform string
	// Debug is -O debug: a note printed as IOR's "*** DEBUG MODE ***"
	// lines (on stderr) when each test starts.
	Debug string
	// Verbose is -v, counted.
	Verbose int
	// OutlierThreshold is -j: warn about tasks this many seconds from the
	// mean; 0 is off.
	OutlierThreshold int
	// MemoryPerNode is -M ("2g", "75%"): memory the tasks of a node hold
	// during the test, shared by the tasks on the first node, as IOR's
	// HogMemory does.
	MemoryPerNode NodeMemory
	// MemoryPerTask is -O memoryPerTask: memory each task holds during
	// the test. Setting it clears MemoryPerNode and the reverse.
	MemoryPerTask int64

	// SummaryFile is -O summaryFile: write the report there instead of
	// stdout. IOR keeps it (and SummaryFormat) for the whole run: the
	// command uses the last test's value.
	SummaryFile string
	// SummaryFormat is -O summaryFormat: default, JSON or CSV.
	SummaryFormat string
	// SaveRankPerformanceDetailsCSV is -O saveRankPerformanceDetailsCSV:
	// a CSV file of every rank's figures.
	SaveRankPerformanceDetailsCSV string
	// ArchiveFile is -O archiveFile (--archive): the file that gets the
	// run as report.WriteJSON writes it. The command uses the last test's.
	ArchiveFile string
	// SavePerOpDataCSV is -O savePerOpDataCSV: the prefix of per-rank CSV
	// files of every I/O call.
	SavePerOpDataCSV string
	// SummaryAlways is -O summaryAlways: print the summary after every
	// test, not only at the end.
	SummaryAlways bool
}

// DefaultOptions returns IOR's defaults. API is empty: Parse fills in the
// registry's default backend.
func DefaultOptions() Options {
	return Options{
		BlockSize:         DefaultBlockSize,
		TransferSize:      DefaultTransferSize,
		SegmentCount:      1,
		TestFile:          DefaultTestFile,
		Repetitions:       1,
		TaskPerNodeOffset: 1,
		RandomOffsetSeed:  -1,
		NumTasks:          -1,
		SummaryFormat:     SummaryDefault,
		Hints:             twophase.DefaultHints(),
		CollectiveCall:    CallTransfer,
		DataPacketType:    pattern.Timestamp,
	}
}

// Validate checks every combination IOR rejects that does not depend on
// the job size (Resolve checks the rest), and the backend's own options.
// The error is one line naming the flags and the accepted range.
func (o *Options) Validate() error {
	nonNegative := []struct {
		v    int
		name string
	}{
		{o.DeadlineForStonewalling, "-D"},
		{o.StoneWallingWearOutIterations, "-O stoneWallingWearOutIterations"},
		{o.MaxTimeDuration, "-T"},
		{o.MinTimeDuration, "-O minTimeDuration"},
		{o.InterIODelay, "-O interIODelay"},
		{o.OutlierThreshold, "-j"},
		{o.NumNodes, "-O numNodes"},
		{o.NumTasksOnNode0, "-O numTasksOnNode0"},
		{o.Verbose, "-v"},
		{o.RandomOffset, "-z"},
		{o.ReorderTasksRandom, "-Z"},
	}
	switch {
	case o.Repetitions < 1:
		return fmt.Errorf("-i must be >= 1 (got %d)", o.Repetitions)
	case o.NumTasks == 0 || o.NumTasks < -1:
		return fmt.Errorf("-N must be >= 1, or -1 for all tasks (got %d)", o.NumTasks)
	}
	for _, c := range nonNegative {
		if c.v < 0 {
			return fmt.Errorf("%s must be >= 0 (got %d)", c.name, c.v)
		}
	}
	if o.InterTestDelay < 0 {
		return fmt.Errorf("-d must be >= 0 (got %s)", FormatSeconds(o.InterTestDelay))
	}
	if o.TaskPerNodeOffset < 1 {
		return fmt.Errorf("-Q must be >= 1 (got %d)", o.TaskPerNodeOffset)
	}
	if !o.WriteFile && !o.ReadFile && !o.CheckWrite && !o.CheckRead {
		return errors.New("-w, -r, -W, -R: the test must write, read or check")
	}
	if !o.TimeStampSignatureSet && !o.WriteFile && o.CheckRead {
		return errors.New("-r -R without -w needs -G (the signature to check against)")
	}
	if err := o.validateSizes(); err != nil {
		return err
	}
	if err := o.validateOrdering(); err != nil {
		return err
	}
	if err := o.validateStonewalling(); err != nil {
		return err
	}
	if err := o.validateDist(); err != nil {
		return err
	}
	if err := o.validateCollective(); err != nil {
		return err
	}
	if o.TestFile == "" {
		return errors.New("-o must name a file")
	}
	if o.DualMount && !o.FilePerProc {
		return errors.New("-y needs -F (dual mount works with file per process only)")
	}
	if !o.DataPacketType.Valid() {
		return fmt.Errorf("-l: unknown data packet type %d", int(o.DataPacketType))
	}
	if _, ok := canonicalSummaryFormat(o.SummaryFormat); !ok {
		return fmt.Errorf("-O summaryFormat %q: want default, JSON or CSV", o.SummaryFormat)
	}
	return o.validateBackend()
}

// validateSizes checks -b, -t, -s and --randomPrefill.
func (o *Options) validateSizes() error {
	b, t := o.BlockSize, o.TransferSize
	switch {
	case o.SegmentCount < 1:
		return fmt.Errorf("-s must be >= 1 (got %d)", o.SegmentCount)
	case t > 0 && b > 0 && (b%accessSize != 0 || t%accessSize != 0):
		return fmt.Errorf("-b and -t must be multiples of %d bytes (-b %d, -t %d)", accessSize, b, t)
	}
	if err := layout.CheckTransfer(b, t); err != nil {
		return err
	}
	switch {
	case t > MaxTransferSize:
		return fmt.Errorf("-t %s: more than one read or write moves on Linux, so IOR would split every transfer: -t takes 8 to %d bytes (2 GiB - 4 KiB)",
			hostmem.SizeArg(t), MaxTransferSize)
	case b > math.MaxInt64/o.SegmentCount:
		return fmt.Errorf("-b %d × -s %d: larger than %d bytes per task", b, o.SegmentCount, int64(math.MaxInt64))
	case o.RandomOffset == 1 && b == t:
		return fmt.Errorf("-z needs -b larger than -t (both %d): it shuffles the transfers within a block", b)
	case o.RandomPrefill < 0:
		return fmt.Errorf("--randomPrefill must be >= 0 (got %d)", o.RandomPrefill)
	case o.RandomPrefill > 0 && o.RandomOffset == 0:
		return errors.New("--randomPrefill needs -z (it prefills files for random access)")
	case o.RandomPrefill > 0 && b%o.RandomPrefill != 0:
		return fmt.Errorf("--randomPrefill %d must divide -b %d", o.RandomPrefill, b)
	case o.RandomPrefill > 0 && o.DeadlineForStonewalling > 0:
		return errors.New("--randomPrefill with -D is not supported: IOR then prefills segment by segment, " +
			"with a barrier, inside the stonewalled loop; prefill without -D")
	}
	return nil
}

// validateOrdering checks -C, -Z, -z and their seeds.
func (o *Options) validateOrdering() error {
	switch {
	case o.ReorderTasks && o.ReorderTasksRandom > 0:
		return errors.New("-C and -Z cannot be combined: choose constant or random task reordering")
	case o.RandomOffset > 0 && o.ReorderTasksRandom > 0 && !o.FilePerProc:
		return errors.New("-z with -Z needs -F (file per process)")
	case o.RandomOffset > 0 && o.ReorderTasks && !o.FilePerProc:
		return errors.New("-z with -C needs -F (file per process)")
	case o.RandomOffset > 0 && o.CheckRead && o.RandomOffsetSeed == -1:
		return errors.New("-z with -R needs --random-offset-seed (the read must find the offsets written)")
	}
	return nil
}

// validateStonewalling checks -D and the stoneWalling directives.
func (o *Options) validateStonewalling() error {
	switch {
	case o.StoneWallingWearOut && o.DeadlineForStonewalling == 0 && !o.UntilSteady.On():
		return errors.New("-O stoneWallingWearOut needs -D (a stonewalling deadline) or --until-steady")
	case o.StoneWallingStatusFile != "" && !o.KeepFile:
		return errors.New("-O stoneWallingStatusFile needs -k (the files must stay for the run that reads them)")
	case o.StoneWallingStatusFile != "" && o.WriteFile && !o.StoneWallingWearOut:
		return errors.New("-O stoneWallingStatusFile with -w needs -O stoneWallingWearOut=1")
	}
	return nil
}

// validateBackend checks that a backend was chosen and its options.
func (o *Options) validateBackend() error {
	if o.Backend.Name == "" || o.BackendOptions == nil {
		return fmt.Errorf("-a %s: no backend selected", o.API)
	}
	if err := o.BackendOptions.Validate(); err != nil {
		return fmt.Errorf("-a %s: %w", o.Backend.Name, err)
	}
	if tc, ok := o.BackendOptions.(aiori.TransferChecker); ok {
		if err := tc.CheckTransfer(o.BlockSize, o.TransferSize); err != nil {
			return fmt.Errorf("-a %s: %w", o.Backend.Name, err)
		}
	}
	return nil
}

// Resolve completes the options for a job of jobSize tasks: -N -1 becomes
// jobSize, and a larger -N is cut to jobSize with IOR's two warnings,
// returned as text without the "WARNING: " prefix. The error reports a
// job size below 1, an aggregate size beyond int64, or a warning under
// --warningAsErrors.
func (o *Options) Resolve(jobSize int) (warnings []string, err error) {
	if jobSize < 1 {
		return nil, fmt.Errorf("job size %d: want at least 1 task", jobSize)
	}
	switch {
	case o.NumTasks == -1:
		o.NumTasks = jobSize
	case o.NumTasks > jobSize:
		warnings = append(warnings,
			fmt.Sprintf("More tasks requested (%d) than available (%d),", o.NumTasks, jobSize),
			fmt.Sprintf("         running with %d tasks.", jobSize))
		if o.WarningAsErrors {
			return warnings, fmt.Errorf("-N %d: more tasks than the job's %d (--warningAsErrors)", o.NumTasks, jobSize)
		}
		o.NumTasks = jobSize
	}
	if o.NumTasks > 0 && o.BlockSize*o.SegmentCount > math.MaxInt64/int64(o.NumTasks) {
		return warnings, fmt.Errorf("-b %d × -s %d × %d tasks: larger than %d bytes",
			o.BlockSize, o.SegmentCount, o.NumTasks, int64(math.MaxInt64))
	}
	return warnings, nil
}

// DisableFsync is the engine's hook for -e with a backend that cannot
// fsync: it turns Fsync off and returns IOR's warning (without "WARNING:
// "), or "" when -e was not given. Under --warningAsErrors the engine
// fails instead.
func (o *Options) DisableFsync() (warning string) {
	if !o.Fsync {
		return ""
	}
	o.Fsync = false
	return "fsync() not supported in selected backend. Using value of 0."
}

// AggregateSize returns the bytes the test moves per phase across
// numTasks tasks (IOR's expectedAggFileSize): block × segments × tasks,
// saturating at math.MaxInt64.
func (o *Options) AggregateSize(numTasks int) int64 {
	return mulSat(mulSat(o.BlockSize, o.SegmentCount), int64(numTasks))
}

// ExpectedFileSize returns the size each file has once written: the
// aggregate size for a shared file, block × segments per file with -F
// (aiori.Hints.ExpectedFileSize).
func (o *Options) ExpectedFileSize(numTasks int) int64 {
	if o.FilePerProc {
		return mulSat(o.BlockSize, o.SegmentCount)
	}
	return o.AggregateSize(numTasks)
}

// mulSat returns a×b for non-negative values, saturating at MaxInt64;
// negative inputs give 0.
func mulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// Access returns IOR's "access" line: single-shared-file or
// file-per-process.
func (o *Options) Access() string {
	if o.FilePerProc {
		return "file-per-process"
	}
	return "single-shared-file"
}

// AccessType returns IOR's "type" line: independent or collective.
func (o *Options) AccessType() string {
	if o.Collective {
		return "collective"
	}
	return "independent"
}

// OrderingInFile returns IOR's "ordering in a file" line: sequential or
// random.
func (o *Options) OrderingInFile() string {
	if o.RandomOffset > 0 {
		return "random"
	}
	return "sequential"
}

// OrderingInterFile returns IOR's "ordering inter file" line: no tasks
// offsets, constant task offset or random task offset.
func (o *Options) OrderingInterFile() string {
	switch {
	case o.ReorderTasks:
		return "constant task offset"
	case o.ReorderTasksRandom > 0:
		return "random task offset"
	}
	return "no tasks offsets"
}
