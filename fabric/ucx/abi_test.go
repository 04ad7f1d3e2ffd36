package ucx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestLayout compiles a C program against the installed ucp.h and checks
// that every size, offset and constant this package lays out by hand is
// the library's.
func TestLayout(t *testing.T) {
	out := testenv.CProgramOutput(t, "ucx", "libucx-dev", `#include <ucp/api/ucp.h>
#include <stdio.h>
#include <stddef.h>
#define S(t) printf("%zu ", sizeof(t))
#define O(t, f) printf("%zu ", offsetof(t, f))
#define C(x) printf("%lld ", (long long)(x))
int main(void) {
	S(ucp_params_t); O(ucp_params_t, features); O(ucp_params_t, mt_workers_shared); O(ucp_params_t, name);
	S(ucp_worker_params_t); O(ucp_worker_params_t, thread_mode);
	S(ucp_ep_params_t); O(ucp_ep_params_t, address); O(ucp_ep_params_t, err_mode); O(ucp_ep_params_t, err_handler.cb);
	O(ucp_ep_params_t, err_handler.arg); O(ucp_ep_params_t, user_data); O(ucp_ep_params_t, flags);
	S(ucp_request_param_t); O(ucp_request_param_t, flags); O(ucp_request_param_t, cb); O(ucp_request_param_t, datatype);
	O(ucp_request_param_t, memory_type); O(ucp_request_param_t, recv_info); O(ucp_request_param_t, memh);
	S(ucp_tag_recv_info_t); O(ucp_tag_recv_info_t, length);
	S(ucp_mem_map_params_t); O(ucp_mem_map_params_t, address); O(ucp_mem_map_params_t, length); O(ucp_mem_map_params_t, flags);
	S(ucp_context_attr_t); O(ucp_context_attr_t, request_size);
	printf("\n");
	C(UCP_API_MAJOR); C(UCP_API_MINOR); C(UCS_OK); C(UCS_INPROGRESS); C(UCS_ERR_NO_MESSAGE); C(UCS_ERR_NO_RESOURCE); C(UCS_ERR_MESSAGE_TRUNCATED);
	C(UCS_ERR_CANCELED); C(UCS_ERR_LAST);
	C(UCP_PARAM_FIELD_FEATURES); C(UCP_FEATURE_TAG); C(UCP_FEATURE_RMA); C(UCP_WORKER_PARAM_FIELD_THREAD_MODE);
	C(UCS_THREAD_MODE_SERIALIZED); C(UCP_EP_PARAM_FIELD_REMOTE_ADDRESS);
	C(UCP_OP_ATTR_FIELD_REQUEST); C(UCP_OP_ATTR_FIELD_FLAGS); C(UCP_OP_ATTR_FIELD_RECV_INFO); C(UCP_OP_ATTR_FLAG_NO_IMM_CMPL); C(UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL);
	C(UCP_EP_CLOSE_FLAG_FORCE); C(UCP_MEM_MAP_PARAM_FIELD_ADDRESS); C(UCP_MEM_MAP_PARAM_FIELD_LENGTH); C(UCP_ATTR_FIELD_REQUEST_SIZE);
	printf("\n");
	return 0;
}
`)
	got := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{join(layout), join(constants)}
	if len(got) != len(want) {
		t.Fatalf("layout program printed %q", out)
	}
	for i := range want {
		if strings.TrimSpace(got[i]) != want[i] {
			t.Errorf("line %d: the library's %q, this package's %q", i+1, got[i], want[i])
		}
	}
}

// join prints v as the C program does: space-separated decimals.
func join[T any](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}
