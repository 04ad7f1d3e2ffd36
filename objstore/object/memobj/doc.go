// Package memobj is an object.Container held in memory: the reference the
// conformance suite (object/objecttest) is written against, and a fixture
// for code built on the object API (the DFS namespace, the RPC layer) that
// wants no engine and no disk; in DAOS terms, a pool and its containers
// with no engine and no VOS under them. Nothing survives Close.
package memobj
