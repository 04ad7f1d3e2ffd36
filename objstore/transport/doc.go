// Package transport decides which fabric transports the object store's
// engines and clients use, as DAOS's CaRT picks a provider for its
// engines and their clients: shm (fabric/shm) between the processes of one
// host and tcp (fabric/tcp) across hosts. It is the one package of
// objstore that imports the concrete transports; everything else takes
// fabric's interfaces.
package transport
