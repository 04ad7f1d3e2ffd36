package ofi

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// Offsets and sizes in libfabric 1.17's structures (rdma/fabric.h,
// fi_domain.h, fi_endpoint.h, fi_eq.h, fi_cm.h), for x86-64 and arm64
// Linux. Only the fields this package uses are named; abi_test.go checks
// every one against the installed headers.
const (
	// struct fi_info
	infoNext       = 0
	infoCaps       = 8
	infoMode       = 16
	infoTxAttr     = 72
	infoRxAttr     = 80
	infoEPAttr     = 88
	infoDomainAttr = 96
	infoFabricAttr = 104

	// struct fi_tx_attr and fi_rx_attr
	attrMsgOrder   = 24
	txAttrInjectSz = 40

	// struct fi_ep_attr
	epAttrType       = 0
	epAttrMaxMsgSize = 16

	// struct fi_domain_attr
	domAttrName      = 8
	domAttrThreading = 16
	domAttrMRMode    = 36

	// struct fi_fabric_attr
	fabAttrName     = 8
	fabAttrProvName = 16

	// struct fid and struct fi_ops
	fidOps       = 16
	opsClose     = 8
	opsBind      = 16
	opsControl   = 24
	fidStructOps = 24 // the ops table after struct fid in fid_fabric, fid_domain, fid_ep, fid_cq, fid_av, fid_eq

	// struct fi_ops_fabric
	fabOpsDomain    = 8
	fabOpsPassiveEP = 16
	fabOpsEQOpen    = 24

	// struct fi_info's addressing and connection fields (FI_EP_MSG)
	infoAddrFormat  = 24
	infoDestAddrLen = 40
	infoDestAddr    = 56
	infoHandle      = 64

	// struct fid_pep, struct fi_ops_cm beyond getname
	pepCM         = 32
	cmOpsConnect  = 32
	cmOpsListen   = 40
	cmOpsAccept   = 48
	cmOpsReject   = 56
	cmOpsShutdown = 64

	// struct fid_ep's msg table and struct fi_ops_msg
	epMsg            = 40
	msgOpsRecv       = 8
	msgOpsSendData   = 64
	msgOpsInjectData = 72

	// struct fid_eq and fi_ops_eq; struct fi_eq_attr, fi_eq_cm_entry,
	// fi_eq_err_entry
	eqOpsRead    = 8
	eqOpsReadErr = 16
	eqAttrSize   = 32
	eqCMData     = 16
	eqErrSize    = 48
	eqErrFid     = 0
	eqErrErr     = 24

	// struct fid_domain and struct fi_ops_domain, fi_ops_mr
	domMR        = 32
	domOpsAVOpen = 8
	domOpsCQOpen = 16
	domOpsEP     = 24
	mrOpsReg     = 8

	// struct fid_ep and its ops tables
	epCM             = 32
	epRMA            = 48
	epTagged         = 56
	epOpsCancel      = 8
	cmOpsGetname     = 16
	tagOpsRecv       = 8
	tagOpsSend       = 32
	tagOpsInject     = 56
	tagOpsInjectData = 72
	rmaOpsRead       = 8
	rmaOpsWrite      = 32
	rmaOpsWriteMsg   = 48

	// struct fi_msg_rma, struct iovec, struct fi_rma_iov
	msgRMASize = 64
	iovecSize  = 16
	rmaIOVSize = 24

	// struct fi_ops_cq, fi_ops_av
	cqOpsRead    = 8
	cqOpsReadErr = 24
	avOpsInsert  = 8

	// struct fid_mr
	mrDesc = 24
	mrKey  = 32

	// struct fi_cq_tagged_entry and fi_cq_err_entry
	cqEntrySize = 48
	cqErrSize   = 80
	cqErrOlen   = 48
	cqErrErr    = 56

	// struct fi_av_attr, fi_cq_attr
	avAttrSize   = 48
	cqAttrSize   = 40
	cqAttrFormat = 16
	cqAttrWait   = 20
)

// Constants of rdma/fabric.h and friends.
const (
	capMsg          = 1 << 1  // FI_MSG
	capRMA          = 1 << 2  // FI_RMA
	capTagged       = 1 << 3  // FI_TAGGED
	capRead         = 1 << 8  // FI_READ
	capWrite        = 1 << 9  // FI_WRITE
	capRecv         = 1 << 10 // FI_RECV
	capSend         = 1 << 11 // FI_SEND, FI_TRANSMIT
	capRemoteRead   = 1 << 12 // FI_REMOTE_READ
	capRemoteWrite  = 1 << 13 // FI_REMOTE_WRITE
	capDirectedRecv = 1 << 59 // FI_DIRECTED_RECV
	modeContext     = 1 << 59 // FI_CONTEXT
	mrLocal         = 1 << 2  // FI_MR_LOCAL
	mrVirtAddr      = 1 << 4  // FI_MR_VIRT_ADDR
	mrAllocated     = 1 << 5  // FI_MR_ALLOCATED
	mrProvKey       = 1 << 6  // FI_MR_PROV_KEY
	orderSAS        = 1 << 8  // FI_ORDER_SAS
	flagCompletion  = 1 << 24 // FI_COMPLETION
	flagDelivery    = 1 << 28 // FI_DELIVERY_COMPLETE
	epTypeMsg       = 1       // FI_EP_MSG
	epTypeDgram     = 2       // FI_EP_DGRAM
	epTypeRDM       = 3       // FI_EP_RDM
	threadSafe      = 1       // FI_THREAD_SAFE
	threadDomain    = 3       // FI_THREAD_DOMAIN
	sockaddrIn      = 2       // FI_SOCKADDR_IN
	sockaddrIn6     = 3       // FI_SOCKADDR_IN6
	eventConnReq    = 1       // FI_CONNREQ
	eventConnected  = 2       // FI_CONNECTED
	eventShutdown   = 3       // FI_SHUTDOWN
	errConnRefused  = 111     // FI_ECONNREFUSED (ECONNREFUSED)
	avMap           = 1       // FI_AV_MAP
	cqFormatTagged  = 4       // FI_CQ_FORMAT_TAGGED
	fiEnable        = 6       // FI_ENABLE
	addrUnspec      = ^uint64(0)
	errAgain        = 11  // FI_EAGAIN
	errAvail        = 259 // FI_EAVAIL
	errTrunc        = 265 // FI_ETRUNC
	errCanceled     = 125 // FI_ECANCELED
	typeCaps        = 2   // FI_TYPE_CAPS, for fi_tostr
	typeEPType      = 1   // FI_TYPE_EP_TYPE
	contextSize     = 32  // struct fi_context: void *internal[4]
)

// cptr turns an address from C into an unsafe.Pointer. It is only ever
// given memory libfabric allocated, which the Go collector does not manage.
func cptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// word reads the pointer-sized field at off in the C structure at p.
func word(p uintptr, off uintptr) uintptr { return *(*uintptr)(unsafe.Add(cptr(p), off)) }

// setWord writes the pointer-sized field at off in the C structure at p.
func setWord(p uintptr, off uintptr, v uintptr) { *(*uintptr)(unsafe.Add(cptr(p), off)) = v }

// u32 reads the 32-bit field at off in the C structure at p.
func u32(p uintptr, off uintptr) uint32 { return *(*uint32)(unsafe.Add(cptr(p), off)) }

// setU32 writes the 32-bit field at off in the C structure at p.
func setU32(p uintptr, off uintptr, v uint32) { *(*uint32)(unsafe.Add(cptr(p), off)) = v }

// method returns the function at off in the ops table that the pointer at
// tableOff in the object fid points to.
func method(fid uintptr, tableOff, off uintptr) uintptr { return word(word(fid, tableOff), off) }

// call calls fn with args and returns its int result (ssize_t or int,
// sign-extended).
func call(fn uintptr, args ...uintptr) int {
	r, _, _ := purego.SyscallN(fn, args...)
	return int(r)
}

// argv is a reusable argument list for calls on hot paths: a slice of it
// passed to purego.SyscallN allocates nothing, where a variadic call's
// own list escapes to the heap (a 24-byte allocation per poll).
type argv [8]uintptr

// call calls fn with the first n of a's arguments.
func (a *argv) call(fn uintptr, n int) int {
	r, _, _ := purego.SyscallN(fn, a[:n]...)
	return int(r)
}

// call32 is call for a C function returning int: the upper half of the
// register is not defined.
func call32(fn uintptr, args ...uintptr) int {
	r, _, _ := purego.SyscallN(fn, args...)
	return int(int32(r))
}

// closeFid is fi_close(fid).
func closeFid(fid uintptr) int {
	if fid == 0 {
		return 0
	}
	return call32(method(fid, fidOps, opsClose), fid)
}

// bindFid is fi_ep_bind and its kin: fid->ops->bind(fid, bfid, flags).
func bindFid(fid, bfid uintptr, flags uint64) int {
	return call32(method(fid, fidOps, opsBind), fid, bfid, uintptr(flags))
}

// controlFid is fi_control(fid, command, arg); fi_enable is
// fi_control(ep, FI_ENABLE, NULL).
func controlFid(fid uintptr, cmd int, arg uintptr) int {
	return call32(method(fid, fidOps, opsControl), fid, uintptr(cmd), arg)
}
