#!/usr/bin/env bash
# slurm.sh: a one-node Slurm of the tests' own on this machine, so that the
# end-to-end tests run the benchmarks under `srun --mpi=pmi2` as a site's
# Slurm starts them (Slurm's pmi2 plugin answers PMI-1 on PMI_FD).
#
#   scripts/slurm.sh start DIR   start munged (when no munge daemon answers),
#                                slurmctld and slurmd with a slurm.conf of
#                                their own in DIR, and wait until the node
#                                is idle; prints SLURM_CONF=DIR/slurm.conf
#   scripts/slurm.sh stop DIR    stop the daemons start started, by the
#                                pids it recorded in DIR
#
# Nothing outside DIR is written but munge's run directory: the system's
# /etc/slurm is not touched, and every command that should use this Slurm
# needs SLURM_CONF in its environment. Needs root (the daemons run as
# root, as SlurmUser=root says) and Debian's slurm-wlm and munge.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd=${1:-}
dir=${2:-}
[[ -n $cmd && -n $dir ]] || hb_die "usage: scripts/slurm.sh start|stop DIR"

stop() {
	local f pid
	for f in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.started; do
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

start() {
	command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null ||
		hb_die "slurm.sh: slurmctld, slurmd or munged is missing (Debian: apt-get install slurm-wlm munge)"
	[[ $(id -u) == 0 ]] || hb_die "slurm.sh: the daemons run as root (SlurmUser=root): run as root"
	mkdir -p "$dir"/state "$dir"/spool "$dir"/log
	dir=$(cd "$dir" && pwd)

	# munge: the one Slurm authenticates with. Reuse a daemon that answers.
	if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		mkdir -p /run/munge /var/log/munge /var/lib/munge
		chown munge:munge /run/munge /var/log/munge /var/lib/munge
		[[ -f /etc/munge/munge.key ]] || hb_die "slurm.sh: /etc/munge/munge.key is missing (reinstall munge)"
		rm -f /run/munge/munged.pid
		su -s /bin/sh munge -c /usr/sbin/munged
		for _ in $(seq 50); do
			[[ -s /run/munge/munged.pid ]] && break
			sleep 0.1
		done
		[[ -s /run/munge/munged.pid ]] || hb_die "slurm.sh: munged did not start"
		cp /run/munge/munged.pid "$dir"/munged.started
		munge -n | unmunge >/dev/null || hb_die "slurm.sh: munge does not authenticate (munge -n | unmunge failed)"
	fi

	local cpus port
	cpus=$(nproc)
	# Ports of our own, so that a Slurm already on the machine keeps its.
	port=$((16817 + RANDOM % 2000))
	cat >"$dir"/slurm.conf <<EOF
ClusterName=hpcbenchtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
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
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:64
EOF
	export SLURM_CONF=$dir/slurm.conf
	slurmctld -c -f "$SLURM_CONF"
	slurmd -N localhost -f "$SLURM_CONF"
	local state=""
	for _ in $(seq 150); do
		state=$(sinfo -h -N -o %t 2>/dev/null || true)
		[[ $state == idle* ]] && break
		sleep 0.2
	done
	if [[ $state != idle* ]]; then
		tail -n 5 "$dir"/log/slurmctld.log "$dir"/log/slurmd.log >&2 || true
		stop
		hb_die "slurm.sh: the node did not come up idle in 30 s (sinfo says '${state:-nothing}'); logs above"
	fi
	echo "SLURM_CONF=$SLURM_CONF"
}

case $cmd in
start) start ;;
stop) stop ;;
*) hb_die "usage: scripts/slurm.sh start|stop DIR" ;;
esac
