// Package ioflag holds the flags the I/O benchmarks (ior, mdtest) share on
// top of cliflag: -a, a backend of an aiori.Registry by name or alias
// (API); every backend's namespaced options in one flag set (AddBackends,
// Backends.Usage); the data packet type (-l, --dataPacketType: Packet,
// over pattern.Type); and FlagError, which says when an unknown option
// names a backend this build lacks (--mpiio.hints).
package ioflag
