// Package storetest makes engine store pools for the tests of the
// packages above the store (the engine process, the client's calls
// through an engine, the router, the IOR backend): one home for creating,
// opening, holding and closing a pool on disk in a test, as an engine's
// VOS would hold it.
package storetest
