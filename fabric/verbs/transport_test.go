package verbs_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
	"golang.org/x/sys/unix"
)

// pair listens on a, dials from b and returns both Conns, or the dial's
// error.
func pair(t *testing.T, a, b *verbs.Transport) (acc, dialed fabric.Conn, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ln, err := a.Listen(ctx, 0)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	defer ln.Close()
	type res struct {
		c   fabric.Conn
		err error
	}
	got := make(chan res, 1)
	go func() {
		c, _, err := ln.Accept(ctx)
		got <- res{c, err}
	}()
	dialed, err = b.Dial(ctx, 1, ln.Addr())
	if err != nil {
		cancel()
		if r := <-got; r.c != nil {
			r.c.Close()
		}
		return nil, nil, err
	}
	r := <-got
	if r.err != nil {
		t.Fatalf("Accept: %v", r.err)
	}
	t.Cleanup(func() { r.c.Close(); dialed.Close() })
	return r.c, dialed, nil
}

// pingPong sends a message each way.
func pingPong(t *testing.T, x, y fabric.Conn) {
	t.Helper()
	ctx := t.Context()
	buf := make([]byte, 16)
	for _, p := range [][2]fabric.Conn{{x, y}, {y, x}} {
		if err := p[0].Send(ctx, 5, []byte("ping")); err != nil {
			t.Fatal(err)
		}
		if n, err := p[1].Recv(ctx, 5, buf); err != nil || string(buf[:n]) != "ping" {
			t.Fatalf("Recv = %q, %v", buf[:n], err)
		}
	}
}

func newTr(t *testing.T, o verbs.Options, open verbs.Opener) *verbs.Transport {
	t.Helper()
	tr, err := verbs.NewWithOpener(o, open)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestRoCE(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{Name: "roce0", LinkLayer: verbs.LinkEthernet})
	f.AddDevice(fakeverbs.Config{Name: "roce1", LinkLayer: verbs.LinkEthernet})
	for _, gid := range []int{verbs.AutoGID, 0, 3} {
		o := verbs.DefaultOptions()
		o.GIDIndex = gid
		a, b := newTr(t, o, f.Opener("roce0")), newTr(t, o, f.Opener("roce1"))
		x, y, err := pair(t, a, b)
		if err != nil {
			t.Fatalf("GID index %d: %v", gid, err)
		}
		pingPong(t, x, y)
	}
}

func TestRoutingMismatch(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{})
	explicit := verbs.DefaultOptions()
	explicit.GIDIndex = 0
	a, b := newTr(t, verbs.DefaultOptions(), f.Opener()), newTr(t, explicit, f.Opener())
	_, _, err := pair(t, a, b)
	if err == nil || !strings.Contains(err.Error(), "rank 0 routes by LID and this side by GID") {
		t.Fatalf("LID against GID routing: %v", err)
	}
}

func TestDeviceSelection(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{Name: "down0", State: verbs.PortDown})
	up := f.AddDevice(fakeverbs.Config{Name: "up1"})
	o := verbs.DefaultOptions()
	ln, err := newTr(t, o, f.Opener()).Listen(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(ln.Addr(), "/up1:1") || !strings.HasPrefix(ln.Addr(), "verbs://") {
		t.Errorf("Addr %q; want verbs://host:port/up1:1", ln.Addr())
	}
	if n := up.OpenDevices(); n != 1 {
		t.Errorf("%d handles open on up1 while listening; want 1", n)
	}
	ln.Close()
	if n := up.OpenDevices(); n != 0 {
		t.Errorf("%d handles open on up1 after the listener closed; want 0", n)
	}
	for _, tc := range []struct {
		device string
		want   string
	}{
		{"down0", "down0 port 1 is PORT_DOWN, not PORT_ACTIVE"},
		{"mlx5_0", `no RDMA device "mlx5_0": have down0, up1`},
	} {
		o.Device = tc.device
		_, err := newTr(t, o, f.Opener()).Listen(t.Context(), 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Device %q: Listen = %v; want %q", tc.device, err, tc.want)
		}
	}
	empty := fakeverbs.New()
	if _, err := newTr(t, verbs.DefaultOptions(), empty.Opener()).Listen(t.Context(), 0); err == nil || !strings.Contains(err.Error(), "no RDMA device") {
		t.Errorf("Listen with no device = %v", err)
	}
}

func TestDeviceErrorWording(t *testing.T) {
	f := fakeverbs.New()
	h := f.AddDevice(fakeverbs.Config{})
	tr := newTr(t, verbs.DefaultOptions(), f.Opener())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan error, 1)
	go func() {
		c, _, err := ln.Accept(ctx)
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	for _, call := range []string{"ibv_create_qp", "ibv_reg_mr", "ibv_modify_qp", "ibv_create_cq", "ibv_alloc_pd"} {
		h.FailNext(call, unix.ENOMEM)
		_, err := tr.Dial(ctx, 1, ln.Addr())
		if want := call + ": Cannot allocate memory (errno 12)"; err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, unix.ENOMEM) {
			t.Errorf("Dial with %s failing: %v; want an error containing %q", call, err, want)
		}
	}
	// The listener dropped the half-made connections and accepts the next.
	c, err := tr.Dial(ctx, 1, ln.Addr())
	if err != nil {
		t.Fatalf("Dial after the failures: %v", err)
	}
	c.Close()
	if err := <-accepted; err != nil {
		t.Fatalf("Accept: %v", err)
	}
	if n := h.OpenQPs(); n != 0 {
		t.Errorf("%d QPs left after the failed dials and one closed pair", n)
	}
}

func TestStrayAndVersion(t *testing.T) {
	tr, _ := fakeTransport(t, verbs.DefaultOptions())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hostport := strings.TrimPrefix(ln.Addr(), "verbs://")
	hostport = hostport[:strings.Index(hostport, "/")]
	send := func(b []byte) {
		nc, err := net.Dial("tcp", hostport)
		if err != nil {
			t.Fatal(err)
		}
		nc.Write(b)
		nc.Close()
	}
	accepted := make(chan error, 1)
	go func() {
		c, _, err := ln.Accept(ctx)
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	send([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 60))) // a stray: dropped
	rec := verbs.AppendEndpoint(nil, verbs.Endpoint{LID: 1, QPN: 1, MTU: verbs.MTU1024, Slots: 4, SlotSize: 64})
	rec[4] = 9 // version 9
	send(rec)
	err = <-accepted
	if !errors.Is(err, verbs.ErrEndpointVersion) || !strings.Contains(err.Error(), "peer's version 9, this process's 1") {
		t.Fatalf("Accept of a version 9 peer: %v", err)
	}
}

func TestAddresses(t *testing.T) {
	tr, _ := fakeTransport(t, verbs.DefaultOptions())
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"verbs://10.0.0.1:7000/mlx5_0:1", true},
		{"verbs://[::1]:7000/rxe0:2", true},
		{"verbs://10.0.0.1:7000", false},
		{"verbs://10.0.0.1/mlx5_0:1", false},
		{"verbs://10.0.0.1:7000/mlx5_0", false},
		{"verbs://10.0.0.1:7000/mlx5_0:0", false},
		{"tcp://10.0.0.1:7000", false},
	} {
		if got := tr.Reachable(tc.addr); got != tc.ok {
			t.Errorf("Reachable(%q) = %v; want %v", tc.addr, got, tc.ok)
		}
	}
	if _, err := tr.Dial(t.Context(), 0, "verbs://nowhere"); err == nil || !strings.Contains(err.Error(), "want verbs://host:port/device:port") {
		t.Errorf("Dial of a bad address: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o    verbs.Options
		want string
	}{
		{verbs.Options{Port: 256}, "verbs port 256"},
		{verbs.Options{GIDIndex: -2}, "verbs GID index -2"},
		{verbs.Options{SlotSize: 63}, "verbs slot size 63: must be in [64, 16777216]"},
		{verbs.Options{Slots: 3}, "verbs slots 3: must be in [4, 16384]"},
		{verbs.Options{Listen: "nohost"}, `verbs listen address "nohost"`},
		{verbs.Options{Listen: ":99999"}, `port "99999"`},
		{verbs.Options{HandshakeTimeout: -1}, "verbs handshake timeout"},
	} {
		_, err := verbs.NewWithOpener(tc.o, fakeverbs.New().Opener())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewWithOpener(%+v) = %v; want %q", tc.o, err, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	f := fakeverbs.New()
	f.AddDevice(fakeverbs.Config{Name: "ib0"})
	h := f.AddDevice(fakeverbs.Config{Name: "roce0", LinkLayer: verbs.LinkEthernet, ActiveMTU: verbs.MTU1024})
	infos, err := verbs.Describe(f.Opener())
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 2 || infos[0].Name != "ib0" || infos[1].Name != "roce0" {
		t.Fatalf("Describe = %+v", infos)
	}
	ib, roce := infos[0], infos[1]
	if len(ib.Ports) != 1 || ib.Ports[0].LID == 0 || ib.Ports[0].LinkLayer != verbs.LinkInfiniBand || len(ib.Ports[0].GIDs) != 1 {
		t.Errorf("ib0 ports %+v", ib.Ports)
	}
	p := roce.Ports[0]
	if p.LID != 0 || p.ActiveMTU != verbs.MTU1024 || len(p.GIDs) != 4 || p.GIDs[3].Type != verbs.GIDTypeRoCEv2 || p.GIDs[3].GID.String() != "10.0.0.2" {
		t.Errorf("roce0 port %+v", p)
	}
	if ib.MaxQP == 0 || ib.MaxMRSize == 0 || ib.FWVersion == "" || verbs.GUIDString(ib.NodeGUID) != "0002:c903:00a0:0000" {
		t.Errorf("ib0 attributes %+v (GUID %s)", ib.DeviceAttr, verbs.GUIDString(ib.NodeGUID))
	}
	if n := h.OpenDevices(); n != 0 {
		t.Errorf("Describe left %d handles open", n)
	}
}
