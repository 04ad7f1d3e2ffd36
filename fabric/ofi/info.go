package ofi

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// cStrdup copies s into memory from the C library's malloc: fi_freeinfo
// frees the strings of the hints it is given.
func (l *lib) cStrdup(s string) (uintptr, error) {
	b := append([]byte(s), 0)
	r, _, _ := purego.SyscallN(l.strdup, uintptr(unsafe.Pointer(&b[0])))
	if r == 0 {
		return 0, fmt.Errorf("ofi: strdup: out of memory")
	}
	return r, nil
}

// cCopy copies b into memory from the C library's malloc.
func (l *lib) cCopy(b []byte) (uintptr, error) {
	r, _, _ := purego.SyscallN(l.malloc, uintptr(max(len(b), 1)))
	if r == 0 {
		return 0, fmt.Errorf("ofi: malloc: out of memory")
	}
	copy(unsafe.Slice((*byte)(cptr(r)), len(b)), b)
	return r, nil
}

// hints describes the endpoints fi_getinfo is asked for.
type hints struct {
	provider string // the provider name as libfabric spells it: "tcp", "shm", "verbs;ofi_rxm"; "" for any
	domain   string // the domain (tcp: an interface such as "lo"); "" for the first
	epType   int    // epTypeRDM, epTypeMsg
	caps     uint64
	dest     []byte // the peer's address (a sockaddr) for a connection's
}

// getinfo runs fi_getinfo with h and returns the list it gives (freed
// with fi_freeinfo by the caller), or an error naming the provider.
func (l *lib) getinfo(h hints) (uintptr, error) {
	hi, _, _ := purego.SyscallN(l.fiDupinfo, 0) // fi_allocinfo
	if hi == 0 {
		return 0, fmt.Errorf("ofi: fi_allocinfo: out of memory")
	}
	defer purego.SyscallN(l.fiFreeinfo, hi)
	setWord(hi, infoCaps, uintptr(h.caps))
	setWord(hi, infoMode, modeContext)
	setU32(word(hi, infoEPAttr), epAttrType, uint32(h.epType))
	dom := word(hi, infoDomainAttr)
	setU32(dom, domAttrMRMode, mrVirtAddr|mrAllocated|mrProvKey)
	if h.epType == epTypeRDM {
		setU32(dom, domAttrThreading, threadDomain)
		setWord(word(hi, infoTxAttr), attrMsgOrder, orderSAS)
		setWord(word(hi, infoRxAttr), attrMsgOrder, orderSAS)
	} else {
		// A MSG endpoint per connection, each with its own lock: the
		// provider serialises what they share.
		setU32(dom, domAttrThreading, threadSafe)
	}
	if len(h.dest) > 0 {
		p, err := l.cCopy(h.dest)
		if err != nil {
			return 0, err
		}
		setWord(hi, infoDestAddr, p)
		setWord(hi, infoDestAddrLen, uintptr(len(h.dest)))
		setU32(hi, infoAddrFormat, sockaddrFormat(h.dest))
	}
	if h.provider != "" {
		p, err := l.cStrdup(h.provider)
		if err != nil {
			return 0, err
		}
		setWord(word(hi, infoFabricAttr), fabAttrProvName, p)
	}
	if h.domain != "" {
		p, err := l.cStrdup(h.domain)
		if err != nil {
			return 0, err
		}
		setWord(dom, domAttrName, p)
	}
	var info uintptr
	rc := call32(l.fiGetinfo, apiVersion, 0, 0, 0, hi, uintptr(unsafe.Pointer(&info)))
	if rc != 0 {
		return 0, fmt.Errorf("ofi: no provider %q with %s endpoints%s: %w", h.provider, epTypeName(h.epType),
			domainNote(h.domain), l.fail("fi_getinfo", rc))
	}
	return info, nil
}

// sockaddrFormat is the addr_format of a peer's address: FI_SOCKADDR_IN6
// for a sockaddr_in6's 28 bytes, FI_SOCKADDR_IN otherwise.
func sockaddrFormat(b []byte) uint32 {
	if len(b) == 28 {
		return sockaddrIn6
	}
	return sockaddrIn
}

func domainNote(d string) string {
	if d == "" {
		return ""
	}
	return " in domain " + d
}

// epTypeName is fabtests' spelling of an endpoint type.
func epTypeName(t int) string {
	switch t {
	case epTypeMsg:
		return "msg"
	case epTypeRDM:
		return "rdm"
	case epTypeDgram:
		return "dgram"
	}
	return fmt.Sprintf("type %d", t)
}

// Info is one entry of fi_getinfo's list, as fi_info prints it.
type Info struct {
	Provider string // fabric_attr->prov_name: "tcp;ofi_rxm"
	Fabric   string // fabric_attr->name: "127.0.0.1/32"
	Domain   string // domain_attr->name: "lo"
	Endpoint string // "msg", "rdm", "dgram"
	Caps     string // fi_tostr's list: "FI_MSG, FI_RMA, …"
}

// Infos lists what fi_getinfo offers for provider ("" for every provider),
// one entry per provider, fabric, domain and endpoint type, as fi_info
// lists them.
func Infos(provider string) ([]Info, error) {
	l, err := load()
	if err != nil {
		return nil, err
	}
	hi, _, _ := purego.SyscallN(l.fiDupinfo, 0)
	if hi == 0 {
		return nil, fmt.Errorf("ofi: fi_allocinfo: out of memory")
	}
	defer purego.SyscallN(l.fiFreeinfo, hi)
	if provider != "" {
		p, err := l.cStrdup(provider)
		if err != nil {
			return nil, err
		}
		setWord(word(hi, infoFabricAttr), fabAttrProvName, p)
	}
	var list uintptr
	if rc := call32(l.fiGetinfo, apiVersion, 0, 0, 0, hi, uintptr(unsafe.Pointer(&list))); rc != 0 {
		return nil, fmt.Errorf("ofi: provider %q: %w", provider, l.fail("fi_getinfo", rc))
	}
	defer purego.SyscallN(l.fiFreeinfo, list)
	var out []Info
	for i := list; i != 0; i = word(i, infoNext) {
		fa, da := word(i, infoFabricAttr), word(i, infoDomainAttr)
		caps := word(i, infoCaps)
		s, _, _ := purego.SyscallN(l.fiTostr, uintptr(unsafe.Pointer(&caps)), typeCaps)
		out = append(out, Info{
			Provider: cString(word(fa, fabAttrProvName)),
			Fabric:   cString(word(fa, fabAttrName)),
			Domain:   cString(word(da, domAttrName)),
			Endpoint: epTypeName(int(u32(word(i, infoEPAttr), epAttrType))),
			Caps:     strings.TrimSpace(cString(s)),
		})
	}
	return out, nil
}

// CheckEndpoint refuses an endpoint type (EndpointRDM, EndpointMsg) that
// provider does not offer here (shm has no MSG endpoints), naming those it
// has.
func CheckEndpoint(provider, endpoint string) error {
	if endpoint == "" {
		endpoint = EndpointRDM
	}
	infos, err := Infos(provider)
	if err != nil {
		return err
	}
	var have []string
	for _, in := range infos {
		if in.Endpoint == endpoint {
			return nil
		}
		if !slices.Contains(have, in.Endpoint) {
			have = append(have, in.Endpoint)
		}
	}
	return fmt.Errorf("-e %s: libfabric's provider %s has no %s endpoints here: it has %s", endpoint, provider, endpoint, strings.Join(have, ", "))
}
