// Package cliflag holds the pflag value types and helpers that the IOR and
// mdtest command lines share: sizes with binary suffixes, integers with
// IOR's suffixes, 0/1 switches, counted flags, backend selection from an
// aiori.Registry, data packet types.
//
// The two command lines differ in small ways that their users rely on, so
// the value types take what differs as fields: IOR's integers go through
// ParseInt and its sizes through ParseSize (which knows p), mdtest's
// integers through ParseSuffixedInt and its sizes through units.ParseSize.
// AddBackends registers every backend's options in a command line's flag
// set; Backends.Usage renders its help and FlagError rewords pflag's
// errors as "flag: why".
package cliflag
