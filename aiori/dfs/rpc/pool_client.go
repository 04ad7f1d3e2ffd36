package rpc

import (
	"context"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Query describes the engine's pool.
func (c *Client) Query(ctx context.Context) (object.PoolInfo, error) {
	rep, err := c.call(ctx, &msg{op: opQuery}, nil)
	if err != nil {
		return object.PoolInfo{}, err
	}
	ts, err := decodeTargets(rep.data)
	if err != nil {
		return object.PoolInfo{}, c.wrap(opQuery, err)
	}
	return object.PoolInfo{UUID: rep.s1, Targets: ts}, nil
}

// CreateCont creates a container in the engine's pool.
func (c *Client) CreateCont(ctx context.Context, label string, props object.ContProps) error {
	m := msg{op: opCreateCont, s1: label}
	putProps(&m, props)
	_, err := c.call(ctx, &m, nil)
	return err
}

// putProps and getProps carry ContProps in a message's c, class and
// dirCls.
func putProps(m *msg, p object.ContProps) {
	m.c, m.class, m.dirCls = p.ChunkSize, p.OClass, p.DirOClass
}

func getProps(m *msg) object.ContProps {
	return object.ContProps{ChunkSize: m.c, OClass: m.class, DirOClass: m.dirCls}
}

// OpenCont opens a container of the engine's pool; the handle forwards
// its calls to the engine.
func (c *Client) OpenCont(ctx context.Context, label string) (object.Container, error) {
	rep, err := c.call(ctx, &msg{op: opOpenCont, s1: label}, nil)
	if err != nil {
		return nil, err
	}
	return &Cont{c: c, handle: rep.handle, props: getProps(&rep)}, nil
}

// ListConts lists the engine's containers.
func (c *Client) ListConts(ctx context.Context) ([]string, error) {
	rep, err := c.call(ctx, &msg{op: opListConts}, nil)
	if err != nil {
		return nil, err
	}
	ls, err := decodeStrings(rep.data)
	if err != nil {
		return nil, c.wrap(opListConts, err)
	}
	return ls, nil
}

// QueryCont describes a container of the engine's pool.
func (c *Client) QueryCont(ctx context.Context, label string) (object.ContInfo, error) {
	rep, err := c.call(ctx, &msg{op: opQueryCont, s1: label}, nil)
	if err != nil {
		return object.ContInfo{}, err
	}
	return object.ContInfo{Label: rep.s1, UUID: rep.s2, Props: getProps(&rep), Objects: rep.a, ArrayBytes: rep.b}, nil
}

// DestroyCont destroys a container of the engine's pool.
func (c *Client) DestroyCont(ctx context.Context, label string) error {
	_, err := c.call(ctx, &msg{op: opDestroyCont, s1: label}, nil)
	return err
}
