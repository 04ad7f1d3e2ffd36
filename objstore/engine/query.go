package engine

import (
	"context"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// PoolStatus is what a pool query says of a pool (hpcbench dfs pool
// query, as dmg pool query).
type PoolStatus struct {
	// Info is the pool's uuid and targets.
	Info object.PoolInfo
	// Containers are the labels of its containers.
	Containers []string
	// Engine is the addresses the standalone engine that holds the pool
	// published (PublishedAddrs), nil when none runs.
	Engine []string
	// Capacity is its targets' room, each file system counted once.
	Capacity Capacity
}

// QueryPool describes the pool in dir, which it opens for management
// (AdminPool): directly, or through the standalone engine that holds it.
func QueryPool(ctx context.Context, dir string) (PoolStatus, error) {
	pool, closePool, err := AdminPool(ctx, dir)
	if err != nil {
		return PoolStatus{}, err
	}
	defer closePool()
	info, err := pool.Query(ctx)
	if err != nil {
		return PoolStatus{}, err
	}
	labels, err := pool.ListConts(ctx)
	if err != nil {
		return PoolStatus{}, err
	}
	st := PoolStatus{Info: info, Containers: labels, Capacity: CapacityOf(info.Targets)}
	if addrs, err := PublishedAddrs(dir); err == nil {
		st.Engine = addrs
	}
	return st, nil
}

// Capacity is the room of a pool's targets, each file system counted
// once: targets on one file system share its room.
type Capacity struct {
	// TotalBytes and FreeBytes add up the file systems' sizes and room,
	// TotalInodes and FreeInodes their inodes.
	TotalBytes, FreeBytes, TotalInodes, FreeInodes uint64
	// FileSystems is how many file systems the targets are on.
	FileSystems int
}

// CapacityOf adds up the room of targets by file system
// (object.TargetInfo.FSID), each file system once.
func CapacityOf(targets []object.TargetInfo) Capacity {
	var c Capacity
	seen := map[string]bool{}
	for _, t := range targets {
		if seen[t.FSID] {
			continue // targets on one file system share its room
		}
		seen[t.FSID] = true
		c.TotalBytes += t.TotalBytes
		c.FreeBytes += t.FreeBytes
		c.TotalInodes += t.TotalInodes
		c.FreeInodes += t.FreeInodes
	}
	c.FileSystems = len(seen)
	return c
}
