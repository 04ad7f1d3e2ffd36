#!/usr/bin/env bash
# slurm.sh: a two-node Slurm of the tests' own on this machine, so that the
# end-to-end tests run the benchmarks under `srun --mpi=pmi2` as a site's
# Slurm starts them (Slurm's pmi2 plugin answers PMI-1 on PMI_FD), on one
# node (srun -N1) and across two (srun -N2).
#
#   scripts/slurm.sh start DIR   start munged (when no munge daemon answers),
#                                slurmctld, and one slurmd for each of the
#                                nodes n1 and n2, with a slurm.conf of their
#                                own in DIR, and wait until both nodes are
#                                idle; prints SLURM_CONF=DIR/slurm.conf
#   scripts/slurm.sh stop DIR    stop the daemons start started (both
#                                slurmd, slurmctld, munged if it started
#                                it), by the pids recorded in DIR
#
# The two nodes are two slurmd on this one machine (Debian's Slurm is built
# with --enable-multiple-slurmd), each started with -N NODE and with a port,
# spool directory (DIR/spool/NODE), TmpFS (DIR/tmp/NODE: srun --mpi=pmix's
# two step daemons of one step collide in a shared one), pid file and log of
# its own. Each node declares all of this machine's CPUs. The nodes share
# the machine's host name, file system and network: a job across them spans
# two Slurm nodes (SLURMD_NODENAME, SLURM_NODEID) but one host.
#
# Nothing outside DIR is written but munge's run directory: the system's
# /etc/slurm is not touched, the ports are picked at random from 16817 up
# so that a Slurm already on the machine keeps its own, and every command
# that should use this Slurm needs SLURM_CONF in its environment. Needs root
# (the daemons run as root, as SlurmUser=root says) and Debian's slurm-wlm
# and munge.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd=${1:-}
dir=${2:-}
[[ -n $cmd && -n $dir ]] || hb_die "usage: scripts/slurm.sh start|stop DIR"

# The Slurm nodes, one slurmd each.
nodes=(n1 n2)

# stop ends every daemon start started, each by the pid in its file in DIR:
# the slurmds (SlurmdPidFile=DIR/slurmd-NODE.pid), slurmctld, and munged
# when start started it (DIR/munged.started).
stop() {
	local f n pid pidfiles=()
	for n in "${nodes[@]}"; do
		pidfiles+=("$dir/slurmd-$n.pid")
	done
	for f in "${pidfiles[@]}" "$dir"/slurmctld.pid "$dir"/munged.started; do
		[[ -f $f ]] || continue
		pid=$(<"$f")
		if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
		rm -f "$f"
	done
}

# conf prints the slurm.conf: slurmctld on port PORT, node i of nodes on
# PORT+i, each with CPUS CPUs.
conf() {
	local port=$1 cpus=$2 i n
	cat <<EOF
ClusterName=hpcbenchtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
EOF
	for i in "${!nodes[@]}"; do
		n=${nodes[i]}
		echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 1 + i)) CPUs=$cpus State=UNKNOWN"
	done
	local IFS=,
	echo "PartitionName=debug Nodes=${nodes[*]} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:64"
}

start() {
	command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null ||
		hb_die "slurmctld, slurmd or munged is missing (Debian: apt-get install slurm-wlm munge)"
	[[ $(id -u) == 0 ]] || hb_die "the daemons run as root (SlurmUser=root): run as root"
	local n
	mkdir -p "$dir"/state "$dir"/log
	for n in "${nodes[@]}"; do
		mkdir -p "$dir/spool/$n" "$dir/tmp/$n"
	done
	dir=$(cd "$dir" && pwd)

	# munge: the one Slurm authenticates with. Reuse a daemon that answers.
	if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		mkdir -p /run/munge /var/log/munge /var/lib/munge
		chown munge:munge /run/munge /var/log/munge /var/lib/munge
		[[ -f /etc/munge/munge.key ]] || hb_die "/etc/munge/munge.key is missing (reinstall munge)"
		rm -f /run/munge/munged.pid
		su -s /bin/sh munge -c /usr/sbin/munged
		for _ in $(seq 50); do
			[[ -s /run/munge/munged.pid ]] && break
			sleep 0.1
		done
		[[ -s /run/munge/munged.pid ]] || hb_die "munged did not start"
		cp /run/munge/munged.pid "$dir"/munged.started
		munge -n | unmunge >/dev/null || hb_die "munge does not authenticate (munge -n | unmunge failed)"
	fi

	# Ports of our own, so that a Slurm already on the machine keeps its.
	conf $((16817 + RANDOM % 2000)) "$(nproc)" >"$dir"/slurm.conf
	export SLURM_CONF=$dir/slurm.conf
	slurmctld -c -f "$SLURM_CONF"
	for n in "${nodes[@]}"; do
		slurmd -N "$n" -f "$SLURM_CONF"
	done
	# Up when sinfo says every node is idle, one line a node; 30 s at most.
	local states="" idle=0 deadline=$((SECONDS + 30))
	while ((SECONDS < deadline)); do
		states=$(sinfo -h -N -o '%N %t' 2>/dev/null || true)
		idle=$(grep -c ' idle$' <<<"$states" || true)
		((idle == ${#nodes[@]})) && break
		sleep 0.2
	done
	if ((idle != ${#nodes[@]})); then
		local logs=("$dir"/log/slurmctld.log)
		for n in "${nodes[@]}"; do
			logs+=("$dir/log/slurmd-$n.log")
		done
		tail -n 5 "${logs[@]}" >&2 || true
		stop
		hb_die "nodes ${nodes[*]} did not all come up idle in 30 s (sinfo says '$(tr '\n' ' ' <<<"${states:-nothing}")'); logs above"
	fi
	echo "SLURM_CONF=$SLURM_CONF"
}

case $cmd in
start) start ;;
stop) stop ;;
*) hb_die "usage: scripts/slurm.sh start|stop DIR" ;;
esac
