// Package dfs is the aiori backend DFS: IOR's and mdtest's -a DFS over
// hpcbench's DAOS-like object store, as IOR's DFS backend is over libdfs
// and libdaos. It is only the adapter: the backend's options (IOR's
// --dfs.* flags), and the session of a rank, which brings its host's
// engine up (objstore/engine), connects to every host's engine
// (objstore/client and its router) and mounts the DFS namespace
// (objstore/namespace) in the container. See docs/objstore.md for how the
// store is cut into packages.
package dfs
