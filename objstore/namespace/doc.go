// Package namespace is DFS, DAOS's POSIX-like file system, on any
// object.Container: a superblock, directories as KV objects with one dkey
// per entry, and files as array objects. It is the object store's libdfs:
// a client mounts a container with it (the IOR/mdtest backend aiori/dfs
// does), over one engine or the router's pool of several.
//
// # On-storage layout (layout version 1)
//
// Reserved object ids (object.Container does not promise AllocOIDs keeps
// clear of them; memobj starts at 1024, and a mount refuses a batch from
// AllocOIDs that starts at 0 or 1):
//
//	superblock      object.NewOID(object.S1, 0)   (class S1, printed 1000000000000.0)
//	root directory  object.NewOID(DirOClass, 1)   (the container's DirOClass at format)
//
// The superblock object holds two dkeys:
//
//	"DFS_SB_METADATA"  akeys, each a little-endian integer:
//	    "DFS_MAGIC"          uint64  0xda05df5da05df5 (Magic)
//	    "DFS_SB_VERSION"     uint16  1 (SBVersion)
//	    "DFS_LAYOUT_VERSION" uint16  1 (LayoutVersion)
//	    "DFS_CHUNK_SIZE"     uint64  default chunk size of files
//	    "DFS_OBJ_CLASS"      uint16  default class of files
//	    "DFS_DIR_OBJ_CLASS"  uint16  default class of directories
//	"/"                akey "DFS_INODE": the root directory's inode
//
// A directory is a KV object with one dkey per entry name and, under it,
// akey "DFS_INODE" holding the entry's inode, every integer little-endian:
//
//	off len field
//	0   1   version (1)
//	1   4   POSIX mode (S_IFDIR 0040000, S_IFREG 0100000 or S_IFLNK
//	        0120000, with permission, setuid, setgid and sticky bits)
//	5   8   OID.Hi
//	13  8   OID.Lo
//	21  8   atime, ns since the Unix epoch (int64)
//	29  8   mtime, ns
//	37  8   ctime, ns
//	45  8   chunk size (int64; a regular file's, else 0)
//	53  2   object class (uint16; the OID's, 0 for a symbolic link)
//	55  2   target length n (uint16; a symbolic link's, 1 to 4095, else 0)
//	57  n   target bytes
//
// A reader refuses any other version, type bit, length or combination
// (the decoder is fuzzed: what it accepts re-encodes to the same bytes).
// The inode lives in the parent's entry, so there are no hard links. A regular file is an array object cut into its inode's chunk
// size; its size is the array's size. A symbolic link is an entry only.
//
// # Formatting
//
// Mount formats a container that has no superblock: it Inserts the root's
// entry (the conditional insert elects one formatter when several ranks
// mount at once), then Puts the superblock's akeys, DFS_MAGIC last, so a
// superblock with its magic is complete. A mount that loses the election
// waits (until its context ends) for the magic to appear.
package namespace
