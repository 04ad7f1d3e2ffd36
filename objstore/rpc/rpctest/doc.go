// Package rpctest holds what the tests of the object store's wire
// protocol and of its two sides (objstore/rpc, objstore/engine's sessions,
// objstore/client's calls through an engine) share: well-formed messages
// of every shape, the fuzzers' seeds, the objects they name, and a
// container opener.
package rpctest
