package ofi

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestLayout compiles a C program against the installed libfabric
// headers and checks every offset, size and constant this package lays
// out by hand.
func TestLayout(t *testing.T) {
	cc := testenv.RequireTool(t, "gcc")
	if _, err := os.Stat("/usr/include/rdma/fabric.h"); err != nil {
		t.Skip("no rdma/fabric.h (Debian: libfabric-dev)")
	}
	checks := []struct {
		c    string
		want uint64
	}{
		{"offsetof(struct fi_info, next)", infoNext}, {"offsetof(struct fi_info, caps)", infoCaps},
		{"offsetof(struct fi_info, mode)", infoMode}, {"offsetof(struct fi_info, tx_attr)", infoTxAttr},
		{"offsetof(struct fi_info, rx_attr)", infoRxAttr}, {"offsetof(struct fi_info, ep_attr)", infoEPAttr},
		{"offsetof(struct fi_info, domain_attr)", infoDomainAttr}, {"offsetof(struct fi_info, fabric_attr)", infoFabricAttr},
		{"offsetof(struct fi_tx_attr, msg_order)", attrMsgOrder}, {"offsetof(struct fi_rx_attr, msg_order)", attrMsgOrder},
		{"offsetof(struct fi_tx_attr, inject_size)", txAttrInjectSz},
		{"offsetof(struct fi_ep_attr, type)", epAttrType}, {"offsetof(struct fi_ep_attr, max_msg_size)", epAttrMaxMsgSize},
		{"offsetof(struct fi_domain_attr, name)", domAttrName}, {"offsetof(struct fi_domain_attr, threading)", domAttrThreading},
		{"offsetof(struct fi_domain_attr, mr_mode)", domAttrMRMode},
		{"offsetof(struct fi_fabric_attr, name)", fabAttrName}, {"offsetof(struct fi_fabric_attr, prov_name)", fabAttrProvName},
		{"offsetof(struct fid, ops)", fidOps}, {"offsetof(struct fi_ops, close)", opsClose},
		{"offsetof(struct fi_ops, bind)", opsBind}, {"offsetof(struct fi_ops, control)", opsControl},
		{"offsetof(struct fid_fabric, ops)", fidStructOps}, {"offsetof(struct fid_domain, ops)", fidStructOps},
		{"offsetof(struct fid_ep, ops)", fidStructOps}, {"offsetof(struct fid_cq, ops)", fidStructOps},
		{"offsetof(struct fid_av, ops)", fidStructOps},
		{"offsetof(struct fi_ops_fabric, domain)", fabOpsDomain},
		{"offsetof(struct fi_ops_fabric, passive_ep)", fabOpsPassiveEP}, {"offsetof(struct fi_ops_fabric, eq_open)", fabOpsEQOpen},
		{"offsetof(struct fi_info, addr_format)", infoAddrFormat}, {"offsetof(struct fi_info, dest_addrlen)", infoDestAddrLen},
		{"offsetof(struct fi_info, dest_addr)", infoDestAddr}, {"offsetof(struct fi_info, handle)", infoHandle},
		{"offsetof(struct fid_pep, cm)", pepCM}, {"offsetof(struct fi_ops_cm, connect)", cmOpsConnect},
		{"offsetof(struct fi_ops_cm, listen)", cmOpsListen}, {"offsetof(struct fi_ops_cm, accept)", cmOpsAccept},
		{"offsetof(struct fi_ops_cm, reject)", cmOpsReject}, {"offsetof(struct fi_ops_cm, shutdown)", cmOpsShutdown},
		{"offsetof(struct fid_ep, msg)", epMsg}, {"offsetof(struct fi_ops_msg, recv)", msgOpsRecv},
		{"offsetof(struct fi_ops_msg, senddata)", msgOpsSendData}, {"offsetof(struct fi_ops_msg, injectdata)", msgOpsInjectData},
		{"offsetof(struct fid_eq, ops)", fidStructOps}, {"offsetof(struct fi_ops_eq, read)", eqOpsRead},
		{"offsetof(struct fi_ops_eq, readerr)", eqOpsReadErr}, {"sizeof(struct fi_eq_attr)", eqAttrSize},
		{"offsetof(struct fi_eq_cm_entry, data)", eqCMData}, {"sizeof(struct fi_eq_err_entry)", eqErrSize},
		{"offsetof(struct fi_eq_err_entry, fid)", eqErrFid}, {"offsetof(struct fi_eq_err_entry, err)", eqErrErr},
		{"FI_THREAD_SAFE", threadSafe}, {"FI_SOCKADDR_IN", sockaddrIn},
		{"FI_SOCKADDR_IN6", sockaddrIn6}, {"FI_CONNREQ", eventConnReq}, {"FI_CONNECTED", eventConnected},
		{"FI_SHUTDOWN", eventShutdown}, {"FI_ECONNREFUSED", errConnRefused},
		{"offsetof(struct fid_domain, mr)", domMR}, {"offsetof(struct fi_ops_domain, av_open)", domOpsAVOpen},
		{"offsetof(struct fi_ops_domain, cq_open)", domOpsCQOpen}, {"offsetof(struct fi_ops_domain, endpoint)", domOpsEP},
		{"offsetof(struct fi_ops_mr, reg)", mrOpsReg},
		{"offsetof(struct fid_ep, cm)", epCM}, {"offsetof(struct fid_ep, rma)", epRMA}, {"offsetof(struct fid_ep, tagged)", epTagged},
		{"offsetof(struct fi_ops_ep, cancel)", epOpsCancel}, {"offsetof(struct fi_ops_cm, getname)", cmOpsGetname},
		{"offsetof(struct fi_ops_tagged, recv)", tagOpsRecv}, {"offsetof(struct fi_ops_tagged, send)", tagOpsSend},
		{"offsetof(struct fi_ops_tagged, inject)", tagOpsInject}, {"offsetof(struct fi_ops_tagged, injectdata)", tagOpsInjectData},
		{"offsetof(struct fi_ops_rma, read)", rmaOpsRead}, {"offsetof(struct fi_ops_rma, write)", rmaOpsWrite},
		{"offsetof(struct fi_ops_rma, writemsg)", rmaOpsWriteMsg},
		{"sizeof(struct fi_msg_rma)", msgRMASize}, {"sizeof(struct iovec)", iovecSize}, {"sizeof(struct fi_rma_iov)", rmaIOVSize},
		{"offsetof(struct fi_ops_cq, read)", cqOpsRead}, {"offsetof(struct fi_ops_cq, readerr)", cqOpsReadErr},
		{"offsetof(struct fi_ops_av, insert)", avOpsInsert},
		{"offsetof(struct fid_mr, mem_desc)", mrDesc}, {"offsetof(struct fid_mr, key)", mrKey},
		{"sizeof(struct fi_cq_tagged_entry)", cqEntrySize}, {"offsetof(struct fi_cq_tagged_entry, data)", 32},
		{"offsetof(struct fi_cq_tagged_entry, tag)", 40}, {"offsetof(struct fi_cq_tagged_entry, len)", 16},
		{"sizeof(struct fi_cq_err_entry)", cqErrSize}, {"offsetof(struct fi_cq_err_entry, tag)", 40},
		{"offsetof(struct fi_cq_err_entry, olen)", cqErrOlen}, {"offsetof(struct fi_cq_err_entry, err)", cqErrErr},
		{"sizeof(struct fi_av_attr)", avAttrSize}, {"offsetof(struct fi_av_attr, type)", 0},
		{"sizeof(struct fi_cq_attr)", cqAttrSize}, {"offsetof(struct fi_cq_attr, format)", cqAttrFormat},
		{"offsetof(struct fi_cq_attr, wait_obj)", cqAttrWait}, {"sizeof(struct fi_context)", contextSize},
		{"FI_MSG", capMsg}, {"FI_RMA", capRMA}, {"FI_TAGGED", capTagged}, {"FI_READ", capRead}, {"FI_WRITE", capWrite},
		{"FI_RECV", capRecv}, {"FI_SEND", capSend}, {"FI_TRANSMIT", capSend}, {"FI_REMOTE_READ", capRemoteRead},
		{"FI_REMOTE_WRITE", capRemoteWrite}, {"FI_CONTEXT", modeContext}, {"FI_MR_LOCAL", mrLocal},
		{"FI_MR_VIRT_ADDR", mrVirtAddr}, {"FI_MR_ALLOCATED", mrAllocated}, {"FI_MR_PROV_KEY", mrProvKey},
		{"FI_ORDER_SAS", orderSAS}, {"FI_COMPLETION", flagCompletion}, {"FI_DELIVERY_COMPLETE", flagDelivery},
		{"FI_EP_MSG", epTypeMsg}, {"FI_EP_DGRAM", epTypeDgram}, {"FI_EP_RDM", epTypeRDM},
		{"FI_THREAD_DOMAIN", threadDomain}, {"FI_AV_MAP", avMap}, {"FI_CQ_FORMAT_TAGGED", cqFormatTagged},
		{"FI_ENABLE", fiEnable}, {"FI_EAGAIN", errAgain}, {"FI_EAVAIL", errAvail}, {"FI_ETRUNC", errTrunc},
		{"FI_ECANCELED", errCanceled}, {"FI_TYPE_CAPS", typeCaps}, {"FI_TYPE_EP_TYPE", typeEPType},
		{"FI_VERSION(1, 17)", apiVersion},
	}
	var prog strings.Builder
	prog.WriteString("#include <rdma/fabric.h>\n#include <rdma/fi_domain.h>\n#include <rdma/fi_endpoint.h>\n" +
		"#include <rdma/fi_tagged.h>\n#include <rdma/fi_rma.h>\n#include <rdma/fi_cm.h>\n#include <rdma/fi_errno.h>\n#include <rdma/fi_eq.h>\n" +
		"#include <stdio.h>\n#include <stddef.h>\nint main(void) {\n")
	for _, c := range checks {
		fmt.Fprintf(&prog, "\tprintf(\"%%llu\\n\", (unsigned long long)(%s));\n", c.c)
	}
	prog.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "layout.c"), filepath.Join(dir, "layout")
	if err := os.WriteFile(src, []byte(prog.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(checks) {
		t.Fatalf("the program printed %d values for %d checks", len(got), len(checks))
	}
	for i, c := range checks {
		if want := fmt.Sprint(c.want); got[i] != want {
			t.Errorf("%s = %s in the installed headers; this package has %s", c.c, got[i], want)
		}
	}
}
