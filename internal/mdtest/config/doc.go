// Package config turns an mdtest command line into validated Options
// before any file is created, so that storage engineers can paste their
// mdtest command lines into hpcbench mdtest.
//
// Parse accepts mdtest 4's syntax (src/mdtest.c's option table, parsed by
// IOR's src/option.c):
//
//	-a POSIX -n 1000 -F -u -w 3901 -e 3901 -i 3 -d /scratch/a@/scratch/b -vv --posix.odirect
//
// Single-dash words are split as option.c splits them
// (cliflag.ExpandGroups, which IOR's command line uses too): switches
// group (-FCr, -vv); a value letter takes the rest of its group when it
// comes first ("-n100", and "-n10-F" is -n 10 -F) and otherwise the next
// word ("-Fn 100" is -F -n 100); "-n=100" and "-uF=1" give the value after
// = to every letter of the group; a '-' inside a group is skipped;
// switches take "=0" to turn off. Where option.c would misread a word,
// Parse refuses it and names the spelling to use (checkMisreads): "-n1k"
// (option.c also turns on -k), "-aPOSIX" (-I gets "POSIX"), "-Fn100" (-n
// gets the next word, not 100), "-Fzb 2" (both get 2). mdtest's short-only
// options also get long names after its mdtest_options_t fields (--items,
// --items-per-dir, --depth, …); its own long options keep their spelling
// (--random-seed, --verify-write, --saveRankPerformanceDetails). Backend
// options are registered by every backend of the aiori.Registry
// (--posix.odirect, --dummy.delay-create); -a picks a backend whose
// Entry.Metadata is true.
//
// # Phases
//
// When none of -C -T -E -r -U is given every phase runs: tree creation, the
// directory phases create, stat, read (timed, no operation, never printed),
// rename and remove, the file phases create, stat, read and remove, and
// tree removal (Options.Phases). This is md_validate_tests in mdtest 4,
// which turns rename_dirs on with the others; -U alone runs the rename
// phase only, on the directories of an earlier -C run. The rename phase
// works on directories and runs only when a rank has more than one item.
//
// # Items
//
// Options.Layout derives the tree and item counts as mdtest_run does: a
// tree of (b^(z+1)-1)/(b-1) directories (z+1 for b = 1), items in all of
// them or only in the b^z leaves (-L); -I items per directory, or -n spread
// evenly with the remainder dropped; -n with -I (not allowed with -u) makes
// -n/-I test directories of -I items per directory.
//
// # Output
//
// --format and --output are hpcbench's: mdtest has no JSON or CSV summary.
// --format human|json|csv picks the report on stdout. --output FILE writes
// the --format report to FILE and the human report to stdout, so one run
// gives both (--format json --output run.json, or just --output run.json:
// without --format the extension decides, .csv for CSV and JSON
// otherwise). --format human --output FILE writes the human report to
// both, like hpcbench ior's -O summaryFile with the default format.
//
// # Differences from mdtest
//
// All stricter, each an error naming the flag: sizes and integers with a
// fraction or an unknown suffix (mdtest reads "1.5k" as 1); a bare word;
// the short-option groups option.c misreads (above); -B with a value other
// than 0, on which mdtest 4 always aborts; -g and the GPU options; an
// empty -d or an empty directory between @; -n smaller than the
// directories that hold items (mdtest runs with zero items); -i 0,
// negative counts, -b 0, -s 0, a negative --random-seed; -S with -D
// (nothing would run); -c with -W. Neither -n nor -I runs with no items,
// as mdtest does. -F with -D means both kinds, as in mdtest.
// -R=N sets the seed as mdtest 1.x's -R<seed> did (mdtest 4 only turns -R
// on). Where mdtest silently drops items (-n not a multiple of the item
// directories) or ignores an option (-f without -l, --verify-write without
// -w), Warnings says so.
//
// Options.Validate checks what does not depend on the job size;
// Options.Resolve checks the rest for a job (-l, -N, directories per rank)
// and returns mdtest's warnings.
package config
