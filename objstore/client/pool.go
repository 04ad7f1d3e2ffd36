package client

import (
	"context"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/rpc"
)

// Query describes the engine's pool.
func (c *Client) Query(ctx context.Context) (object.PoolInfo, error) {
	rep, err := c.call(ctx, &rpc.Msg{Op: rpc.OpQuery}, nil)
	if err != nil {
		return object.PoolInfo{}, err
	}
	ts, err := rpc.DecodeTargets(rep.Data)
	if err != nil {
		return object.PoolInfo{}, c.wrap(rpc.OpQuery, err)
	}
	return object.PoolInfo{UUID: rep.S1, Targets: ts}, nil
}

// CreateCont creates a container in the engine's pool.
func (c *Client) CreateCont(ctx context.Context, label string, props object.ContProps) error {
	m := rpc.Msg{Op: rpc.OpCreateCont, S1: label}
	m.SetProps(props)
	_, err := c.call(ctx, &m, nil)
	return err
}

// OpenCont opens a container of the engine's pool; the handle forwards
// its calls to the engine.
func (c *Client) OpenCont(ctx context.Context, label string) (object.Container, error) {
	rep, err := c.call(ctx, &rpc.Msg{Op: rpc.OpOpenCont, S1: label}, nil)
	if err != nil {
		return nil, err
	}
	return &Cont{c: c, handle: rep.Handle, props: rep.Props()}, nil
}

// ListConts lists the engine's containers.
func (c *Client) ListConts(ctx context.Context) ([]string, error) {
	rep, err := c.call(ctx, &rpc.Msg{Op: rpc.OpListConts}, nil)
	if err != nil {
		return nil, err
	}
	ls, err := rpc.DecodeStrings(rep.Data)
	if err != nil {
		return nil, c.wrap(rpc.OpListConts, err)
	}
	return ls, nil
}

// QueryCont describes a container of the engine's pool.
func (c *Client) QueryCont(ctx context.Context, label string) (object.ContInfo, error) {
	rep, err := c.call(ctx, &rpc.Msg{Op: rpc.OpQueryCont, S1: label}, nil)
	if err != nil {
		return object.ContInfo{}, err
	}
	return object.ContInfo{Label: rep.S1, UUID: rep.S2, Props: rep.Props(), Objects: rep.A, ArrayBytes: rep.B}, nil
}

// DestroyCont destroys a container of the engine's pool.
func (c *Client) DestroyCont(ctx context.Context, label string) error {
	_, err := c.call(ctx, &rpc.Msg{Op: rpc.OpDestroyCont, S1: label}, nil)
	return err
}
