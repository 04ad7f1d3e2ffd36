// Package dfs is the aiori backend DFS: IOR's and mdtest's -a DFS over
// hpcbench's DAOS-like object store (see docs/objstore.md for how the
// store is cut into packages). This file's package holds the backend's
// options (IOR's --dfs.* flags); the engine, the RPC layer and the DFS
// namespace are its subpackages.
package dfs
