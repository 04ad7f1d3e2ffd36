package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/units"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/store"
)

const dfsUsage = "hpcbench dfs pool create|list|query|destroy DIR [--targets N | --target PATH ...] | dfs cont create|list|query|destroy DIR [LABEL] [--chunk-size SIZE] [--oclass C] [--dir-oclass C] [--format human|json] | dfs engine --pool DIR [--listen HOST:PORT] [--sync]"

// runDfs is hpcbench dfs: the object store's management (as DAOS's dmg and
// daos) and its standalone engine (as daos_engine).
func runDfs(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		return usagef("dfs: want pool, cont or engine (hpcbench dfs --help)")
	}
	if isHelp(args[0]) {
		writeHelp(stdout, "dfs", dfsUsage, dfsOptionsHelp())
		return nil
	}
	switch args[0] {
	case "engine":
		return runDfsEngine(ctx, stdout, stderr, args[1:])
	case "pool", "cont":
		if len(args) < 2 || isHelp(args[1]) {
			if len(args) >= 2 {
				writeHelp(stdout, "dfs", dfsUsage, dfsOptionsHelp())
				return nil
			}
			return usagef("dfs %s: want create, list, query or destroy", args[0])
		}
		return runDfsAdmin(ctx, stdout, args[0], args[1], args[2:])
	}
	return usagef("dfs: unknown command %q: want pool, cont or engine", oneLine(args[0]))
}

// dfsAdminArgs are the options of dfs pool and dfs cont.
type dfsAdminArgs struct {
	ntargets                  int
	targets                   []string
	chunk                     int64
	oclass, dirOClass, format string
}

// flags returns the flag set of the dfs pool and cont command name, bound
// to a.
func (a *dfsAdminArgs) flags(name string) *pflag.FlagSet {
	fset := newFlagSet(name)
	fset.IntVar(&a.ntargets, "targets", 0, fmt.Sprintf("pool create: how many target directories to make inside DIR (default %d)", store.DefaultTargets))
	cliflag.SetRange(fset, "targets", fmt.Sprintf("1 to %d", store.MaxTargets))
	fset.StringArrayVar(&a.targets, "target", nil, "pool create: a target directory, `PATH` (repeat; anywhere, on any file system; missing or empty)")
	fset.Var((*units.SizeFlag)(&a.chunk), "chunk-size", "cont create: chunk size of files (a multiple of 4k up to 1g; default 1m)")
	fset.StringVar(&a.oclass, "oclass", "", "cont create: object class of files: S1, S2, S4, ..., SX (default SX)")
	fset.StringVar(&a.dirOClass, "dir-oclass", "", "cont create: object class of directories (default S1)")
	fset.StringVar(&a.format, "format", "human", "query: human or json")
	return fset
}

// dfsEngineArgs are the options of dfs engine.
type dfsEngineArgs struct {
	pool, listen string
	sync         bool
}

// flags returns dfs engine's flag set, bound to a.
func (a *dfsEngineArgs) flags() *pflag.FlagSet {
	fset := newFlagSet("dfs engine")
	fset.StringVar(&a.pool, "pool", "", "the pool's directory")
	fset.StringVar(&a.listen, "listen", "", "the TCP address to serve on, HOST:PORT (default: this host's address, a free port)")
	fset.BoolVar(&a.sync, "sync", false, "make every metadata change stable (fdatasync) before acknowledging it")
	return fset
}

// dfsOptionsHelp is the options part of dfs's help: pool's and cont's,
// then engine's.
func dfsOptionsHelp() string {
	return "Options of pool and cont:\n" + cliflag.Usages(new(dfsAdminArgs).flags("dfs")) +
		"\nOptions of engine:\n" + cliflag.Usages(new(dfsEngineArgs).flags())
}

// runDfsAdmin runs one pool or cont subcommand.
func runDfsAdmin(ctx context.Context, stdout io.Writer, what, verb string, args []string) error {
	name := "dfs " + what + " " + verb
	a := &dfsAdminArgs{}
	fset := a.flags(name)
	if err := parseFlags(fset, args, stdout, dfsUsage); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	pos := fset.Args()
	want := map[string]int{"pool create": 1, "pool list": -1, "pool query": 1, "pool destroy": 1,
		"cont create": 2, "cont list": 1, "cont query": 2, "cont destroy": 2}[what+" "+verb]
	switch {
	case want == 0:
		return usagef("dfs %s: unknown command %q: want create, list, query or destroy", what, oneLine(verb))
	case want == -1 && len(pos) > 1, want > 0 && len(pos) != want:
		return usagef("%s: want %s", name, map[int]string{-1: "at most a PARENT directory", 1: "the pool's DIR", 2: "the pool's DIR and a container LABEL"}[want])
	case a.format != "human" && a.format != "json":
		return usagef("%s: --format %q: want human or json", name, a.format)
	}
	if what == "pool" && verb == "create" {
		if a.ntargets < 0 || a.ntargets > store.MaxTargets || (a.ntargets > 0 && len(a.targets) > 0) || (fset.Changed("targets") && a.ntargets == 0) {
			return usagef("%s: --targets %d: want 1 to %d, and not with --target", name, a.ntargets, store.MaxTargets)
		}
		if err := store.Create(pos[0], store.CreateOptions{Targets: a.targets, NTargets: a.ntargets}); err != nil {
			return usagef("%s: %v", name, oneLine(err.Error()))
		}
		return poolQuery(ctx, stdout, pos[0], "human", "created pool")
	}
	if what == "pool" && verb == "list" {
		parent := "."
		if len(pos) == 1 {
			parent = pos[0]
		}
		return poolList(ctx, stdout, parent)
	}
	if what == "pool" && verb == "destroy" {
		if err := engine.CheckPool(pos[0], false); err != nil {
			return usagef("%s: %v", name, err)
		}
		if err := store.Destroy(pos[0]); err != nil {
			if errors.Is(err, store.ErrBusy) {
				return usagef("%s: %v", name, oneLine(err.Error()))
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(stdout, "destroyed pool %s\n", pos[0])
		return nil
	}
	if what == "pool" && verb == "query" {
		if err := checkPoolArg(pos[0]); err != nil {
			return usagef("%s: %v", name, err)
		}
		return poolQuery(ctx, stdout, pos[0], a.format, "pool")
	}
	// cont: through whoever holds the pool.
	if err := checkPoolArg(pos[0]); err != nil {
		return usagef("%s: %v", name, err)
	}
	pool, closePool, err := engine.AdminPool(ctx, pos[0])
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer closePool()
	switch verb {
	case "create":
		props := object.ContProps{ChunkSize: a.chunk}
		for _, c := range []struct {
			flag, v string
			dst     *object.Class
		}{{"--oclass", a.oclass, &props.OClass}, {"--dir-oclass", a.dirOClass, &props.DirOClass}} {
			if c.v == "" {
				continue
			}
			cl, err := object.ParseClass(c.v)
			if err != nil {
				return usagef("%s: %s %s: Invalid DAOS object class: want S1, S2, S4, ..., SX", name, c.flag, c.v)
			}
			*c.dst = cl
		}
		if err := object.CheckLabel(pos[1]); err != nil {
			return usagef("%s: %v", name, err)
		}
		if err := props.WithDefaults().Check(); err != nil {
			return usagef("%s: --chunk-size: %v", name, err)
		}
		if err := pool.CreateCont(ctx, pos[1], props); err != nil {
			if errors.Is(err, object.ErrExist) || errors.Is(err, object.ErrInvalid) {
				return usagef("%s: %v", name, oneLine(err.Error()))
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		return contQuery(ctx, stdout, pool, pos[0], pos[1], "human", "created container")
	case "list":
		labels, err := pool.ListConts(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, l := range labels {
			fmt.Fprintln(stdout, l)
		}
		return nil
	case "query":
		return contQuery(ctx, stdout, pool, pos[0], pos[1], a.format, "container")
	case "destroy":
		if err := pool.DestroyCont(ctx, pos[1]); err != nil {
			if errors.Is(err, object.ErrNotExist) {
				return usagef("%s: %s", name, noSuchCont(ctx, pool, pos[0], pos[1]))
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(stdout, "destroyed container %s of pool %s\n", pos[1], pos[0])
		return nil
	}
	return nil
}

// noSuchCont says a container is missing, naming the ones there are.
func noSuchCont(ctx context.Context, pool object.Pool, dir, label string) string {
	have := "none"
	if labels, err := pool.ListConts(ctx); err == nil && len(labels) > 0 {
		have = strings.Join(labels, ", ")
	}
	return fmt.Sprintf("pool %s has no container %q (it has: %s)", dir, label, have)
}

// poolQuery prints what pool query says of the pool in dir.
func poolQuery(ctx context.Context, stdout io.Writer, dir, format, title string) error {
	st, err := engine.QueryPool(ctx, dir)
	if err != nil {
		return fmt.Errorf("dfs pool query: %w", err)
	}
	info, labels := st.Info, st.Containers
	held := "none running"
	if st.Engine != nil {
		held = strings.Join(st.Engine, ", ")
	}
	if format == "json" {
		return json.NewEncoder(stdout).Encode(struct {
			Dir string `json:"dir"`
			object.PoolInfo
			Containers []string `json:"containers"`
			Engine     string   `json:"engine"`
		}{dir, info, labels, held})
	}
	fmt.Fprintf(stdout, "%s %s, uuid %s\n", title, dir, info.UUID)
	fmt.Fprintf(stdout, "targets: %d on %d file system(s), total %s, free %s\n", len(info.Targets), st.Capacity.FileSystems, gib(st.Capacity.TotalBytes), gib(st.Capacity.FreeBytes))
	for _, t := range info.Targets {
		fmt.Fprintf(stdout, "  target %d: %s (total %s, free %s)\n", t.Index, t.Path, gib(t.TotalBytes), gib(t.FreeBytes))
	}
	fmt.Fprintf(stdout, "containers: %d", len(labels))
	if len(labels) > 0 {
		fmt.Fprintf(stdout, " (%s)", strings.Join(labels, ", "))
	}
	fmt.Fprintf(stdout, "\nengine: %s\n", held)
	return nil
}

// gib writes a capacity as dmg does, in GiB with one decimal.
func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }

// contQuery prints what cont query says of the container label.
func contQuery(ctx context.Context, stdout io.Writer, pool object.Pool, dir, label, format, title string) error {
	ci, err := pool.QueryCont(ctx, label)
	if errors.Is(err, object.ErrNotExist) {
		return usagef("dfs cont query: %s", noSuchCont(ctx, pool, dir, label))
	}
	if err != nil {
		return fmt.Errorf("dfs cont query: %w", err)
	}
	part, err := engine.ContPart(ctx, pool, label)
	if err != nil {
		return fmt.Errorf("dfs cont query: %w", err)
	}
	if format == "json" {
		return json.NewEncoder(stdout).Encode(struct {
			object.ContInfo
			Part string `json:"part,omitempty"`
		}{ci, part})
	}
	fmt.Fprintf(stdout, "%s %s of pool %s, uuid %s\n", title, ci.Label, dir, ci.UUID)
	fmt.Fprintf(stdout, "chunk size %s, file class %v, directory class %v\n", units.FormatSize(ci.Props.ChunkSize), ci.Props.OClass, ci.Props.DirOClass)
	if part != "" {
		fmt.Fprintf(stdout, "this pool holds one part of it, %s: the figures below are that part's\n", part)
	}
	fmt.Fprintf(stdout, "objects %d, array bytes %s\n", ci.Objects, units.FormatSize(ci.ArrayBytes))
	return nil
}

// checkPoolArg says why dir is no pool this build can open: none there,
// or one whose pool.json it cannot read (an earlier schema version).
func checkPoolArg(dir string) error {
	if err := engine.CheckPool(dir, false); err != nil {
		return err
	}
	return engine.CheckSchema(dir)
}

// poolList lists the pools among parent's directories.
func poolList(ctx context.Context, stdout io.Writer, parent string) error {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return usagef("dfs pool list: %v", err)
	}
	for _, e := range ents {
		dir := filepath.Join(parent, e.Name())
		if !e.IsDir() || engine.CheckPool(dir, false) != nil {
			continue
		}
		held := ""
		if addrs, err := engine.PublishedAddrs(dir); err == nil {
			held = " (engine " + strings.Join(addrs, ", ") + ")"
		}
		fmt.Fprintf(stdout, "%s%s\n", dir, held)
	}
	return nil
}

// runDfsEngineChild is the engine process a job's first rank on a host
// starts (engine.ServeChild): args is the pool's directory.
func runDfsEngineChild(ctx context.Context, stdout, _ io.Writer, args []string) error {
	if len(args) != 1 {
		return usagef("%s: internal command of -a DFS, not for direct use", engine.ChildCommand)
	}
	return engine.ServeChild(ctx, args[0], os.Stdin, stdout)
}

// runDfsEngine is hpcbench dfs engine: it serves a pool to many jobs
// until SIGTERM or SIGINT, then stops without losing what it acknowledged.
func runDfsEngine(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	a := &dfsEngineArgs{}
	fset := a.flags()
	if err := parseFlags(fset, args, stdout, dfsUsage); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fset.NArg() > 0 {
		return usagef("dfs engine: unexpected argument %q", fset.Arg(0))
	}
	if a.pool == "" {
		return usagef("dfs engine: --pool: required: the pool's directory")
	}
	if err := checkPoolArg(a.pool); err != nil {
		return usagef("dfs engine: --pool: %v", err)
	}
	// SIGTERM and SIGINT end ctx (see mainExit); the engine then stops.
	e, err := engine.Start(ctx, a.pool, engine.Options{Listen: a.listen, Publish: true, SyncKV: a.sync,
		Logf: func(format string, a ...any) { fmt.Fprintf(stderr, "dfs engine: "+format+"\n", a...) }})
	if err != nil {
		if errors.Is(err, store.ErrBusy) {
			return usagef("dfs engine: %v", oneLine(err.Error()))
		}
		return fmt.Errorf("dfs engine: %w", err)
	}
	fmt.Fprintf(stdout, "dfs engine: serving pool %s at %s (pid %d)\n", a.pool, strings.Join(e.Addrs(), ", "), os.Getpid())
	<-ctx.Done()
	if err := e.Stop(); err != nil {
		return fmt.Errorf("dfs engine: stop: %w", err)
	}
	fmt.Fprintf(stdout, "dfs engine: stopped; pool %s closed\n", a.pool)
	return nil
}
