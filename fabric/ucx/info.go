package ucx

import (
	"fmt"
	"io"
	"strings"
)

// Resource is one transport on one device, as UCX lists its resources
// (ucx_info -d): what UCX_TLS and UCX_NET_DEVICES choose among.
type Resource struct {
	Transport string // "tcp", "posix", "cma"
	Device    string // "lo", "eth0", "memory"
}

// Resources returns UCX's version and the resources a context made with
// o over this environment's UCX_* variables can use.
func Resources(o Options) (version string, rs []Resource, err error) {
	l, err := openLib()
	if err != nil {
		return "", nil, err
	}
	wk, err := newWorker(l, o.settings())
	if err != nil {
		return "", nil, err
	}
	defer wk.destroy()
	f := wk.call(l.openMemstream, wk.outPtr(0), wk.outPtr(1))
	if f == 0 {
		return "", nil, fmt.Errorf("ucx: open_memstream failed")
	}
	wk.call(l.contextPrintInfo, wk.ctx, f)
	wk.call(l.fclose, f)
	buf, size := wk.s.out[0], wk.s.out[1]
	text := string(cBytes(buf, int(size)))
	wk.call(l.free, buf)
	return goString(call(l.getVersionString)), parseResources(text), nil
}

// parseResources reads the resource lines of ucp_context_print_info:
// "#      resource 2  :  md 1  dev 2  flags -- tcp/lo".
func parseResources(text string) []Resource {
	var rs []Resource
	for line := range strings.Lines(text) {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if len(f) < 2 || f[0] != "resource" {
			continue
		}
		tl, dev, ok := strings.Cut(f[len(f)-1], "/")
		if !ok {
			continue
		}
		if tl == "self" {
			dev = strings.TrimRight(dev, "0123456789") // self/memory0: one per context
		}
		rs = append(rs, Resource{Transport: tl, Device: dev})
	}
	return rs
}

// Info writes UCX's version, the transports and devices a context can
// use here, and what hpcbench's -p ucx does with them; a device that no
// resource has is an error.
func Info(w io.Writer, device string) error {
	v, rs, err := Resources(Options{NetDevices: device})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "    UCX %s (UCP over %s, loaded at run time)\n", v, libraryNames[0])
	var devs []string
	found := device == ""
	for _, r := range rs {
		if device != "" && r.Device != device && r.Device != "memory" {
			continue
		}
		found = found || r.Device == device
		devs = append(devs, r.Transport+"/"+r.Device)
	}
	if !found {
		return fmt.Errorf("-d %s: UCX has no such device", device)
	}
	fmt.Fprintf(w, "    transports/devices: %s\n", strings.Join(devs, " "))
	b := "    UCX_TLS chooses among the transports, UCX_NET_DEVICES (-d) among the network devices; every other UCX_* variable applies as UCX reads it\n"
	b += "    messages: UCP tag matching (eager below UCX's rendezvous threshold, rendezvous above); RMA: ucp_put_nbx/ucp_get_nbx on memory mapped with ucp_mem_map\n"
	_, err = io.WriteString(w, b)
	return err
}

// CheckDevices refuses a UCX_NET_DEVICES value (-d: a comma-separated
// list, or "all") that names a device UCX does not list here.
func CheckDevices(devices string) error {
	_, rs, err := Resources(Options{})
	if err != nil {
		return err
	}
	have := map[string]bool{}
	var names []string
	for _, r := range rs {
		if r.Device != "memory" && !have[r.Device] {
			have[r.Device] = true
			names = append(names, r.Device)
		}
	}
	for _, d := range strings.Split(devices, ",") {
		if d != "all" && !have[d] {
			return fmt.Errorf("-d %s: UCX has no network device %q here: want all or a comma-separated list of %s", devices, d, strings.Join(names, ", "))
		}
	}
	return nil
}
