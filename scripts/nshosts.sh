#!/usr/bin/env bash
# nshosts.sh: hosts on this one machine for the tests and scripts that run
# across hosts: network namespaces, each with its own address on one
# network, its own host name (through the launcher script) and this
# machine's file system.
#
#   scripts/nshosts.sh up DIR [N [OWNER]]
#                                   make N hosts (2 to 8, default 2) for
#                                   the process OWNER (default: the caller)
#                                   and
#                                   write, in DIR:
#                                     hosts   one line per host: namespace,
#                                             address, host name
#                                     nsexec  the launcher script: nsexec
#                                             HOST CMD... runs CMD (one
#                                             shell word list, as rsh and
#                                             ssh take it) on HOST (an
#                                             address or a host name of
#                                             hosts), with HOST's name
#                                   and print DIR/hosts
#   scripts/nshosts.sh down DIR     delete the namespaces DIR/hosts lists
#                                   (their links go with them)
#   scripts/nshosts.sh throttle DIR HOST RATE
#                                   limit HOST's link (a host name or
#                                   address of DIR/hosts) to RATE (tc's
#                                   spelling: 200mbit) both ways, with a
#                                   token bucket filter on its hb0 and on
#                                   its port of the bridge (netem is not in
#                                   this kernel); it goes with the hosts
#   scripts/nshosts.sh sweep        delete the namespaces of earlier runs
#                                   whose creator is gone (a test killed
#                                   before its cleanup): hb<PID>_<K><letter>
#                                   and hb<PID>_<K>sw with no process PID
#
# The network: a namespace hb<PID>_<K>sw holds a bridge (K: the owner's
# K-th set of hosts); each host hb<PID>_<K>a, hb<PID>_<K>b... has a veth
# whose end in the host is named hb0 (the name to give HPCBENCH_IFACE,
# Hydra's -iface, Open MPI's if_include) with the address
# 10.213.<20+PID%200>.<i+1>/24, and whose other end is a port of the
# bridge. Traffic goes only between these namespaces.
#
# Needs root (CAP_NET_ADMIN), ip (iproute2) and unshare (util-linux).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd=${1:-}
dir=${2:-}
n=${3:-2}
owner=${4:-$PPID}

# bad says what is wrong with the command line, on one line, and exits 2.
bad() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 2
}
usage() { bad "usage: scripts/nshosts.sh up DIR [N [OWNER]] | down DIR | throttle DIR HOST RATE | sweep"; }

# The iface name every host has on the hosts' network.
iface=hb0

down() {
	[[ -f $dir/hosts ]] || return 0
	local ns _
	while read -r ns _; do
		ip netns del "$ns" 2>/dev/null || true
	done <"$dir/hosts"
	[[ -f $dir/switch ]] && ip netns del "$(<"$dir/switch")" 2>/dev/null || true
	rm -f "$dir/hosts" "$dir/switch" "$dir/nsexec"
}

sweep() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ $ns =~ ^hb([0-9]+)_[0-9]([a-h]|sw)$ ]] || continue
		pid=${BASH_REMATCH[1]}
		[[ -d /proc/$pid ]] && continue
		ip netns del "$ns" 2>/dev/null && hb_log "nshosts: deleted $ns (its creator, pid $pid, is gone)"
	done
}

up() {
	command -v ip >/dev/null && command -v unshare >/dev/null ||
		hb_die "nshosts: ip or unshare is missing (Debian: apt-get install iproute2 util-linux)"
	[[ $(id -u) == 0 ]] || hb_die "nshosts: network namespaces need root (CAP_NET_ADMIN)"
	[[ $n =~ ^[2-8]$ ]] || bad "nshosts: N=$n: want 2 to 8 hosts"
	[[ $owner =~ ^[1-9][0-9]{0,6}$ && -d /proc/$owner ]] || bad "nshosts: OWNER=$owner: want the pid of a running process"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	[[ ! -f $dir/hosts ]] || hb_die "nshosts: $dir/hosts exists: run down first"
	# The owner's pid names the namespaces, so that sweep knows when it is
	# gone: OWNER, else the parent of this script (the test or script that
	# will run down; not a $(...) subshell, which ends at once).
	local id=$owner k=0 net sw i ns addr name letters=abcdefgh
	net=$((20 + id % 200))
	# One owner may make several sets: the first free instance k wins
	# (creating the switch's namespace is the lock).
	until ip netns add "hb${id}_${k}sw" 2>/dev/null; do
		((++k < 10)) || hb_die "nshosts: 10 sets of hosts for pid $id already: run down or sweep"
	done
	sw=hb${id}_${k}sw
	echo "$sw" >"$dir/switch"
	trap 'down' ERR
	ip -n "$sw" link add br0 type bridge
	ip -n "$sw" link set br0 up
	for ((i = 0; i < n; i++)); do
		ns=hb${id}_${k}${letters:i:1}
		addr=10.213.$net.$((i + 1))
		name=nshost$((i + 1))
		ip netns add "$ns"
		printf '%s %s %s\n' "$ns" "$addr" "$name" >>"$dir/hosts" # down deletes what is listed
		ip link add "${ns}v" type veth peer name "${ns}p"
		ip link set "${ns}v" netns "$ns"
		ip link set "${ns}p" netns "$sw"
		ip -n "$ns" link set "${ns}v" name "$iface"
		ip -n "$ns" addr add "$addr/24" dev "$iface"
		ip -n "$ns" link set "$iface" up
		ip -n "$ns" link set lo up
		ip -n "$sw" link set "${ns}p" master br0
		ip -n "$sw" link set "${ns}p" up
	done
	trap - ERR

	local cases="" ns_ addr_ name_
	while read -r ns_ addr_ name_; do
		cases+="$addr_|$name_) ns=$ns_ name=$name_ ;;"$'\n'
	done <"$dir/hosts"
	cat >"$dir/nsexec" <<EOF
#!/bin/sh
# nsexec HOST CMD...: run CMD on namespace host HOST, with its host name
# (made by scripts/nshosts.sh up $dir). Hydra's rsh launcher puts -x first.
host=\$1; shift
[ "\$host" = "-x" ] && { host=\$1; shift; }
case \$host in
${cases}*) echo "nsexec: unknown host \$host" >&2; exit 255 ;;
esac
exec $(command -v ip) netns exec "\$ns" $(command -v unshare) --uts sh -c "hostname \$name; \$*"
EOF
	chmod 755 "$dir/nsexec"
	cat "$dir/hosts"
}

throttle() {
	local host=$1 rate=$2 ns addr name found=""
	[[ $rate =~ ^[1-9][0-9]*(k|m|g)?bit$ ]] || bad "nshosts: RATE=$rate: want a rate such as 200mbit"
	[[ -f $dir/hosts ]] || bad "nshosts: $dir/hosts: no hosts there"
	while read -r ns addr name; do
		[[ $host == "$addr" || $host == "$name" ]] && found=$ns
	done <"$dir/hosts"
	[[ -n $found ]] || bad "nshosts: HOST=$host: not a host of $dir/hosts"
	command -v tc >/dev/null || hb_die "nshosts: tc is missing (Debian: apt-get install iproute2)"
	ip netns exec "$found" tc qdisc add dev "$iface" root tbf rate "$rate" burst 64kb latency 50ms
	ip netns exec "$(<"$dir/switch")" tc qdisc add dev "${found}p" root tbf rate "$rate" burst 64kb latency 50ms
}

case $cmd in
throttle) [[ -n $dir && $# == 4 ]] || usage; throttle "$3" "$4" ;;
up) [[ -n $dir ]] || usage; up ;;
down) [[ -n $dir ]] || usage; down ;;
sweep) sweep ;;
*) usage ;;
esac
