// Package config turns an IOR command line into validated test
// configurations before any I/O, so that storage engineers can paste their
// IOR command lines and scripts into hpcbench ior.
//
// Parse accepts IOR 4's syntax (src/option.c, src/parse_options.c):
//
//	-a POSIX -b 4m -t 1m -s 16 -F -wrW -z-k -O summaryFormat=JSON,keepFile=1 --posix.odirect
//
// Single-dash words are read as option.c reads them (cliflag.ExpandGroups):
// groups of switches, '-' inside a group skipped ("-z-k"), a value after
// '=' for every letter of the group, a value option taking the rest of its
// word when it comes first and the next word when only switches follow it
// ("-wbk 4m"). Every option has IOR's short flag and, as its long name,
// IOR's parameter name (--blockSize), which is also its -O key
// (-O blockSize=4m). Backend options are registered by every backend of
// the aiori.Registry and set by flag (--posix.odirect) or directive
// (-O posix.odirect=1). A -f script gives several tests, each inheriting
// the settings before it; its lines, like -O, take key=value pieces and
// command-line pieces ("--dummy.delay-create=1000", "-a POSIX").
//
// Deliberate differences from IOR: sizes and integers with a fraction, a
// sign where none fits, or an unknown suffix are errors naming the flag
// (IOR reads "1.5m" as 1), but -d takes a fraction of a second as a real
// delay (IOR reads 0.1 as 0); a letter that names no option is an error
// (IOR ignores it when another letter of its word is known); the letters
// of a value are not also read as switches ("-t100k" does not set -k); a
// bare word, an unknown -O key, a bad summaryFormat or -l value, and
// scripts without IOR START / IOR STOP are errors; -i 0 and negative delays
// are rejected where IOR warns and resets; -G 0 counts as given; -M 2g is
// 2 GiB (IOR 4 reads any number as a percentage). README.md has the table
// of every option.
//
// Options.Validate checks the combinations IOR rejects that do not depend on
// the job size; Options.Resolve completes the options for a job and returns
// IOR's job-size warnings.
package config
