package pmix

import (
	"fmt"
	"unsafe"
)

// The layout of OpenPMIx's structures on 64-bit Linux (pmix_common.h).
const (
	nspaceLen   = 256 // pmix_nspace_t: char[PMIX_MAX_NSLEN+1]
	procSize    = 260 // pmix_proc_t: nspace, then uint32 rank
	valueSize   = 32  // pmix_value_t: uint16 type, then the union at 8
	valueData   = 8   // offset of the union in pmix_value_t
	infoSize    = 552 // pmix_info_t: char key[512], uint32 flags, pmix_value_t
	infoValue   = 520 // offset of the value in pmix_info_t
	maxKeyLen   = 511 // PMIX_MAX_KEYLEN
	byteObjSize = 16  // pmix_byte_object_t: char *bytes, size_t size
)

// rankWildcard is PMIX_RANK_WILDCARD (pmix_rank_t): the job's own keys.
const rankWildcard = 0xfffffffe

// Data types (pmix_data_type_t) the client reads or writes.
const (
	typeBool    = 1
	typeByte    = 2
	typeString  = 3
	typeSize    = 4
	typePid     = 5
	typeInt     = 6
	typeInt8    = 7
	typeInt16   = 8
	typeInt32   = 9
	typeInt64   = 10
	typeUint    = 11
	typeUint8   = 12
	typeUint16  = 13
	typeUint32  = 14
	typeUint64  = 15
	typeByteObj = 27
)

// Status codes (pmix_status_t) the client tells apart.
const (
	statusSuccess  = 0
	statusUnreach  = -25 // PMIX_ERR_UNREACH: PMIx_Init with no server (a singleton)
	statusNotFound = -46 // PMIX_ERR_NOT_FOUND
)

// scopeGlobal is PMIX_GLOBAL: a put that every process of the job may get.
const scopeGlobal = 3

// Keys of the PMIx standard the client reads or passes.
const (
	KeyJobSize = "pmix.job.size" // uint32, rank wildcard
	keyCollect = "pmix.collect"  // bool, for PMIx_Fence
	keyTimeout = "pmix.timeout"  // int seconds
)

// proc is a pmix_proc_t.
type proc [procSize]byte

func newProc(nspace string, rank uint32) *proc {
	var p proc
	copy(p[:nspaceLen-1], nspace)
	*(*uint32)(unsafe.Pointer(&p[nspaceLen])) = rank
	return &p
}

func (p *proc) nspace() string { return cString(p[:nspaceLen]) }
func (p *proc) rank() uint32   { return *(*uint32)(unsafe.Pointer(&p[nspaceLen])) }

// cString is b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// value is a decoded pmix_value_t: an integer of any width, a string or
// bytes.
type value struct {
	typ   uint16
	num   int64
	isNum bool
	bytes []byte
}

// decodeValue copies the pmix_value_t at v into Go memory. Integers of
// every width are accepted, because launchers disagree (Slurm gives the
// application number as PMIX_INT, Open MPI as PMIX_UINT32).
func decodeValue(v unsafe.Pointer) (value, error) {
	typ := *(*uint16)(v)
	d := unsafe.Add(v, valueData)
	out := value{typ: typ, isNum: true}
	switch typ {
	case typeBool:
		if *(*byte)(d) != 0 {
			out.num = 1
		}
	case typeByte, typeUint8:
		out.num = int64(*(*uint8)(d))
	case typeInt8:
		out.num = int64(*(*int8)(d))
	case typeInt16:
		out.num = int64(*(*int16)(d))
	case typeUint16:
		out.num = int64(*(*uint16)(d))
	case typeInt, typeInt32, typePid:
		out.num = int64(*(*int32)(d))
	case typeUint, typeUint32:
		out.num = int64(*(*uint32)(d))
	case typeInt64:
		out.num = *(*int64)(d)
	case typeSize, typeUint64:
		out.num = int64(*(*uint64)(d))
	case typeString:
		out.isNum = false
		out.bytes = []byte(goString(*(*unsafe.Pointer)(d)))
	case typeByteObj:
		out.isNum = false
		p := *(*unsafe.Pointer)(d)
		n := *(*uint64)(unsafe.Add(d, 8))
		if p != nil && n > 0 {
			out.bytes = append([]byte(nil), unsafe.Slice((*byte)(p), n)...)
		}
	default:
		return value{}, fmt.Errorf("value of type %d: want an integer, a string or a byte object", typ)
	}
	return out, nil
}

// goString copies the NUL-terminated C string at p.
func goString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}
