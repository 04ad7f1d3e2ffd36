// Package cliflag holds the pflag value types and helpers that hpcbench's
// command lines share: sizes with binary suffixes, integers with IOR's
// suffixes, 0/1 switches, counted flags, choices of which only one may be
// given (OneOf), grouped short options, options refused with a reason, the
// watchdog's --phase-timeout, and FlagError, which rewords pflag's errors
// as "flag: why". It knows no benchmark and no backend: the flags the I/O
// benchmarks share (backend selection from an aiori.Registry, data packet
// types) are in internal/ioflag, host memory in internal/hostmem, exit
// statuses in internal/exitcode.
//
// The IOR and mdtest command lines differ in small ways that their users
// rely on, so the value types take what differs as fields: IOR's integers
// go through ParseInt and its sizes through ParseSize (which knows p),
// mdtest's integers through ParseSuffixedInt and its sizes through
// units.ParseSize.
package cliflag
