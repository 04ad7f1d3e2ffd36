// Package enginetest is for the tests that start engine processes
// (objstore/engine's own, the IOR backend aiori/dfs's): their test binary
// stands for hpcbench as the engine process, daos_engine's place, that a
// job's first rank on a host starts.
package enginetest
