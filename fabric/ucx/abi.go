package ucx

import "unsafe"

// The UCP API this package lays out by hand, as UCX 1.13's ucp.h defines
// it (TestLayout compiles a C program against the installed headers and
// checks every size, offset and constant below). Newer libraries keep
// these: UCP's parameter structs only grow at their end, behind field
// masks.

// The API version passed to ucp_init_version.
const (
	apiMajor = 1
	apiMinor = 13
)

// ucs_status_t values.
const (
	statusOK         = 0
	statusInProgress = 1
	statusNoMessage  = -1
	statusNoResource = -2
	statusTruncated  = -9
	statusCanceled   = -16
	statusErrLast    = -100
)

// Field masks, features and flags.
const (
	paramFieldFeatures = 1 // UCP_PARAM_FIELD_FEATURES
	featureTag         = 1 // UCP_FEATURE_TAG
	featureRMA         = 2 // UCP_FEATURE_RMA

	workerFieldThreadMode = 1 // UCP_WORKER_PARAM_FIELD_THREAD_MODE
	threadModeSerialized  = 1 // UCS_THREAD_MODE_SERIALIZED

	epFieldRemoteAddress = 1 // UCP_EP_PARAM_FIELD_REMOTE_ADDRESS

	opFieldRequest  = 1       // UCP_OP_ATTR_FIELD_REQUEST
	opFieldFlags    = 16      // UCP_OP_ATTR_FIELD_FLAGS
	opFieldRecvInfo = 128     // UCP_OP_ATTR_FIELD_RECV_INFO
	opFlagNoImmCmpl = 1 << 16 // UCP_OP_ATTR_FLAG_NO_IMM_CMPL
	opFlagForceImm  = 1 << 18 // UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL

	epCloseFlagForce = 1 // UCP_EP_CLOSE_FLAG_FORCE

	attrFieldRequestSize = 1 // UCP_ATTR_FIELD_REQUEST_SIZE

	memFieldAddress = 1 // UCP_MEM_MAP_PARAM_FIELD_ADDRESS
	memFieldLength  = 2 // UCP_MEM_MAP_PARAM_FIELD_LENGTH
)

// contextParams is ucp_params_t (80 bytes).
type contextParams struct {
	fieldMask       uint64
	features        uint64
	requestSize     uint64
	requestInit     uintptr
	requestCleanup  uintptr
	tagSenderMask   uint64
	mtWorkersShared int32
	_               int32
	estimatedNumEps uint64
	estimatedNumPPN uint64
	name            uintptr
}

// workerParams is ucp_worker_params_t (200 bytes): only its thread mode
// is set.
type workerParams struct {
	fieldMask  uint64
	threadMode int32
	_          int32
	_          [23]uint64
}

// epParams is ucp_ep_params_t (104 bytes).
type epParams struct {
	fieldMask  uint64
	address    uintptr
	errMode    uint32
	_          uint32
	errHandler uintptr // err_handler.cb
	errArg     uintptr // err_handler.arg
	userData   uintptr
	flags      uint32
	_          uint32
	_          [6]uint64
}

// requestParam is ucp_request_param_t (72 bytes).
type requestParam struct {
	opAttrMask  uint32
	flags       uint32
	request     uintptr
	cb          uintptr
	datatype    uint64
	userData    uintptr
	replyBuffer uintptr
	memoryType  uint32
	_           uint32
	recvInfo    uintptr // recv_info.tag_info
	memh        uintptr
}

// tagRecvInfo is ucp_tag_recv_info_t.
type tagRecvInfo struct {
	senderTag uint64
	length    uint64
}

// memMapParams is ucp_mem_map_params_t (40 bytes).
type memMapParams struct {
	fieldMask uint64
	address   uintptr
	length    uint64
	flags     uint32
	prot      uint32
	_         uint64
}

// contextAttr is ucp_context_attr_t (64 bytes): only its request size is
// asked for.
type contextAttr struct {
	fieldMask   uint64
	requestSize uint64
	_           [6]uint64
}

// layout is what TestLayout compares with the C compiler's view.
var layout = []uintptr{
	unsafe.Sizeof(contextParams{}), unsafe.Offsetof(contextParams{}.features), unsafe.Offsetof(contextParams{}.mtWorkersShared), unsafe.Offsetof(contextParams{}.name),
	unsafe.Sizeof(workerParams{}), unsafe.Offsetof(workerParams{}.threadMode),
	unsafe.Sizeof(epParams{}), unsafe.Offsetof(epParams{}.address), unsafe.Offsetof(epParams{}.errMode), unsafe.Offsetof(epParams{}.errHandler),
	unsafe.Offsetof(epParams{}.errArg), unsafe.Offsetof(epParams{}.userData), unsafe.Offsetof(epParams{}.flags),
	unsafe.Sizeof(requestParam{}), unsafe.Offsetof(requestParam{}.flags), unsafe.Offsetof(requestParam{}.cb), unsafe.Offsetof(requestParam{}.datatype),
	unsafe.Offsetof(requestParam{}.memoryType), unsafe.Offsetof(requestParam{}.recvInfo), unsafe.Offsetof(requestParam{}.memh),
	unsafe.Sizeof(tagRecvInfo{}), unsafe.Offsetof(tagRecvInfo{}.length),
	unsafe.Sizeof(memMapParams{}), unsafe.Offsetof(memMapParams{}.address), unsafe.Offsetof(memMapParams{}.length), unsafe.Offsetof(memMapParams{}.flags),
	unsafe.Sizeof(contextAttr{}), unsafe.Offsetof(contextAttr{}.requestSize),
}

// constants is the other half of what TestLayout checks, in its order.
var constants = []int64{
	apiMajor, apiMinor, statusOK, statusInProgress, statusNoMessage, statusNoResource, statusTruncated, statusCanceled, statusErrLast,
	paramFieldFeatures, featureTag, featureRMA, workerFieldThreadMode, threadModeSerialized,
	epFieldRemoteAddress, opFieldRequest, opFieldFlags, opFieldRecvInfo, opFlagNoImmCmpl, opFlagForceImm,
	epCloseFlagForce, memFieldAddress, memFieldLength, attrFieldRequestSize,
}
