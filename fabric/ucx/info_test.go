package ucx

import (
	"reflect"
	"testing"
)

func TestParseResources(t *testing.T) {
	text := `#
# UCP context
#
#     component 1  :  tcp
#            md 1  :  component 1  tcp 
#      resource 0  :  md 0  dev 0  flags -- self/memory0
#      resource 1  :  md 1  dev 1  flags -- tcp/eth0
#      resource 2  :  md 1  dev 2  flags -- tcp/lo
#      resource 4  :  md 3  dev 3  flags -- posix/memory
#      resource 5  :  odd
`
	want := []Resource{{"self", "memory"}, {"tcp", "eth0"}, {"tcp", "lo"}, {"posix", "memory"}}
	if got := parseResources(text); !reflect.DeepEqual(got, want) {
		t.Errorf("parseResources = %v; want %v", got, want)
	}
}
