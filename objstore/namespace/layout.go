package namespace

import "github.com/hpcbench/hpcbench/objstore/object"

// Magic is the value of the superblock's DFS_MAGIC akey.
const Magic uint64 = 0xda05df5da05df5

// SBVersion is the superblock version this package writes and reads;
// LayoutVersion the version of the directory and inode layout.
const (
	SBVersion     uint16 = 1
	LayoutVersion uint16 = 1
)

// The superblock's and the directories' dkeys and akeys.
const (
	sbDkey         = "DFS_SB_METADATA"
	akMagic        = "DFS_MAGIC"
	akSBVersion    = "DFS_SB_VERSION"
	akLayout       = "DFS_LAYOUT_VERSION"
	akChunkSize    = "DFS_CHUNK_SIZE"
	akOClass       = "DFS_OBJ_CLASS"
	akDirOClass    = "DFS_DIR_OBJ_CLASS"
	rootDkey       = "/"
	inodeAkey      = "DFS_INODE"
	reservedRootLo = 1
)

// SuperblockOID returns the superblock's reserved object id, 0 of class S1.
func SuperblockOID() object.OID { return object.NewOID(object.S1, 0) }

// rootOID is the root directory's reserved id in class c.
func rootOID(c object.Class) object.OID { return object.NewOID(c, reservedRootLo) }
