package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hpcbench/hpcbench/fabric/ofi"
	"github.com/hpcbench/hpcbench/internal/transport"
)

// runFabricInfo lists the providers and their devices with their limits,
// as fi_info and ibv_devinfo do.
func runFabricInfo(ctx context.Context, stdout io.Writer, args []string) error {
	fs := newFlagSet("fabric info")
	provider := fs.StringP("provider", "p", "", "list only this provider: tcp, shm, verbs, ucx, ofi (libfabric's providers) or ofi:PROVIDER")
	device := fs.StringP("device", "d", "", "list only this device (a tcp interface, a verbs device, a UCX device, a libfabric domain)")
	if err := parseFlags(fs, args, stdout, "hpcbench fabric info [-p PROVIDER] [-d DEVICE]"); err != nil {
		if err == errHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usagef("fabric info: unexpected argument %q", fs.Arg(0))
	}
	provs := transport.Providers()
	if *provider != "" {
		if _, isOFI, _ := ofi.ParseProvider(*provider); !isOFI && !slices.Contains(transport.Providers(), *provider) {
			return usagef("fabric info: -p %s: no such provider: want one of %s", *provider, strings.Join(transport.Providers(), ", "))
		}
		provs = []string{*provider}
	}
	if *device != "" && *provider == "" {
		return usagef("fabric info: -d needs -p (a device belongs to one provider)")
	}
	var b bytes.Buffer
	for _, p := range provs {
		fmt.Fprintf(&b, "provider: %s\n", p)
		if err := transport.Info(&b, p, *device); err != nil {
			return usagef("fabric info: %v", err)
		}
	}
	_, err := stdout.Write(b.Bytes())
	return err
}
