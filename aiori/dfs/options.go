package dfs

import (
	"fmt"
	"path"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/units"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/object"
)

// Options are the DFS backend's settings, IOR's --dfs.* flags.
type Options struct {
	// Pool is the pool's directory (--dfs.pool): where `hpcbench dfs pool
	// create` made it, or where the job makes it on first use. DAOS takes
	// a label or a UUID; here a pool is a directory, so the path is its
	// name.
	Pool string
	// Cont is the container's label in the pool (--dfs.cont).
	Cont string
	// Group is DAOS's system name (--dfs.group). There is one system, so
	// it is recorded and otherwise unused.
	Group string
	// ChunkSize is the chunk size of the files the run creates
	// (--dfs.chunk_size); 0 takes the container's (1 MiB by default).
	ChunkSize int64
	// OClass and DirOClass are the object classes of the files and the
	// directories the run creates (--dfs.oclass, --dfs.dir_oclass); empty
	// takes the container's (SX for files, S1 for directories).
	OClass, DirOClass string
	// Prefix is the mount prefix (--dfs.prefix): paths under it are taken
	// relative to the container's root, as dfs_set_prefix does.
	Prefix string
	// Destroy destroys the container when the run ends (--dfs.destroy).
	Destroy bool
}

// DefaultOptions returns IOR's defaults: no pool or container (both must be
// given), the container's chunk size and classes.
func DefaultOptions() *Options { return &Options{} }

// AddFlags registers the --dfs.* flags on fs, with IOR's help texts.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Pool, "dfs.pool", o.Pool, "pool directory (hpcbench dfs pool create DIR; made on first use when its parent exists)")
	fs.StringVar(&o.Group, "dfs.group", o.Group, "server group (recorded; there is one)")
	fs.StringVar(&o.Cont, "dfs.cont", o.Cont, "DFS container label (created when missing)")
	fs.Var((*units.SizeFlag)(&o.ChunkSize), "dfs.chunk_size", "chunk size of new files (a multiple of 4k up to 1g; 0: the container's, 1m by default)")
	fs.StringVar(&o.OClass, "dfs.oclass", o.OClass, "object class of new files: S1, S2, S4, ..., SX (default: the container's, SX)")
	fs.StringVar(&o.DirOClass, "dfs.dir_oclass", o.DirOClass, "directory object class: S1, ..., SX (default: the container's, S1)")
	fs.StringVar(&o.Prefix, "dfs.prefix", o.Prefix, "mount prefix: paths under it are taken from the container's root")
	fs.BoolVar(&o.Destroy, "dfs.destroy", o.Destroy, "Destroy DFS Container")
}

// Validate reports the first setting out of range, naming its flag.
func (o *Options) Validate() error {
	switch {
	case o.Pool == "":
		return fmt.Errorf("--dfs.pool: required: the pool's directory (make one with hpcbench dfs pool create DIR)")
	case o.Cont == "":
		return fmt.Errorf("--dfs.cont: required: a container label")
	}
	if err := engine.CheckPool(o.Pool, true); err != nil {
		return fmt.Errorf("--dfs.pool: %w", err)
	}
	if err := engine.CheckSchema(o.Pool); err != nil {
		return fmt.Errorf("--dfs.pool: %w", err)
	}
	if err := object.CheckLabel(o.Cont); err != nil {
		return fmt.Errorf("--dfs.cont: %w", err)
	}
	if o.ChunkSize != 0 {
		if err := object.CheckChunkSize(o.ChunkSize); err != nil {
			return fmt.Errorf("--dfs.chunk_size: %w", err)
		}
	}
	for _, c := range []struct{ flag, v string }{{"dfs.oclass", o.OClass}, {"dfs.dir_oclass", o.DirOClass}} {
		if c.v == "" {
			continue
		}
		if _, err := object.ParseClass(c.v); err != nil {
			return fmt.Errorf("--%s %s: Invalid DAOS object class: want S1, S2, S4, ..., S%d or SX", c.flag, c.v, object.MaxStripe)
		}
	}
	if o.Prefix != "" && !path.IsAbs(o.Prefix) {
		return fmt.Errorf("--dfs.prefix %q: want an absolute path", o.Prefix)
	}
	return nil
}

// classes returns the classes the options ask for, or the
// container's.
func (o *Options) classes(props object.ContProps) (file, dir object.Class) {
	file, dir = props.OClass, props.DirOClass
	if c, err := object.ParseClass(o.OClass); err == nil {
		file = c
	}
	if c, err := object.ParseClass(o.DirOClass); err == nil {
		dir = c
	}
	return file, dir
}
