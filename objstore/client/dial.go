package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/transport"
)

// DialEngine connects rank's client to the engine at addrs (what the
// engine reports, shm first): to the first of them a transport of this
// process reaches (shm on the engine's host, tcp elsewhere), the
// transports objstore/transport chooses for an engine and its clients.
func DialEngine(ctx context.Context, addrs []string, rank int) (*Client, error) {
	trs, err := transport.Engine("")
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, tr := range trs {
		for _, a := range addrs {
			if fabric.Scheme(a) != tr.Name() || !tr.Reachable(a) {
				continue
			}
			c, err := Dial(ctx, tr, a, ClientOptions{Rank: rank})
			if err == nil {
				return c, nil
			}
			errs = append(errs, fmt.Errorf("dial %s: %w", a, err))
		}
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("no transport of this host reaches the engine at %s", strings.Join(addrs, ", "))
	}
	return nil, errors.Join(errs...)
}
