#!/usr/bin/env bash
# bench-fabric-hosts.sh: hpcbench fabric allpairs across three hosts of
# network namespaces (scripts/nshosts.sh) under MPICH's Hydra, one rank a
# host, with the third host's link throttled to RATE both ways (a token
# bucket filter), beside libfabric's fi_pingpong on the same links.
#
# For each of REPS rounds, interleaved (the order alternates by round):
#
#   mpiexec.mpich -launcher rsh ... -n 3 -ppn 1 hpcbench fabric allpairs
#       --bw-size 1m --bw-iters BW_ITERS -I ITER
#   fi_pingpong -p tcp -e msg -S 1048576 -I FI_ITER   on nshost1 -> nshost2
#   fi_pingpong ... the same                           on nshost1 -> nshost3
#
# and prints, per link, the medians over the rounds of allpairs' bandwidth
# and latency, fi_pingpong's 1 MiB bandwidth, the median of the rounds'
# ratios allpairs/fi_pingpong (a windowed stream against a ping-pong of
# 1 MiB messages: on the throttled link both are bound by RATE), and each
# link's bandwidth against RATE where it is throttled. Every round's
# outlier lines must name the throttled host, and none may leave it out
# (a link of it may be named too: its latency rises behind the queue the
# bandwidth test leaves in the filter): the script fails otherwise, as it
# does on any command that exits non-zero.
#
# Progress on stderr, the table on stdout. Needs root (namespaces), Debian's
# mpich and libfabric-bin (installed when missing).
#
# Environment:
#   REPS=5               rounds
#   RATE=200mbit         the throttled host's rate (tc's spelling)
#   ITER=1000            allpairs' ping-pong iterations per pair
#   BW_ITERS=32          allpairs' bandwidth messages (1 MiB) per pair
#   FI_ITER=50           fi_pingpong's 1 MiB iterations per link
#   FI_PORT=47620        fi_pingpong's control port (inside the namespaces)
#   HPCBENCH=PATH        benchmark this binary instead of building ./cmd/hpcbench
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
RATE=${RATE:-200mbit}
ITER=${ITER:-1000}
BW_ITERS=${BW_ITERS:-32}
FI_ITER=${FI_ITER:-50}
FI_PORT=${FI_PORT:-47620}
bad() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 2
}
for v in REPS ITER BW_ITERS FI_ITER FI_PORT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || bad "$v=${!v}: want a whole number >= 1"
done
[[ $RATE =~ ^[1-9][0-9]*(k|m|g)bit$ ]] || bad "RATE=$RATE: want a rate such as 200mbit"
[[ $(id -u) == 0 ]] || hb_die "network-namespace hosts need root"

hb_ensure_debs mpich libfabric-bin
command -v mpiexec.mpich >/dev/null || hb_die "mpiexec.mpich not found: install Debian package mpich"
command -v fi_pingpong >/dev/null || hb_die "fi_pingpong not found: install Debian package libfabric-bin"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-fabric-hosts.XXXXXX")
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	[[ -f $tmp/ns/hosts ]] && scripts/nshosts.sh down "$tmp/ns"
	rm -rf "$tmp"
}
trap cleanup EXIT

hpcbench=$(hb_hpcbench "$tmp")

scripts/nshosts.sh up "$tmp/ns" 3 $$ >/dev/null
mapfile -t ns < <(awk '{print $1}' "$tmp/ns/hosts")
mapfile -t addr < <(awk '{print $2}' "$tmp/ns/hosts")
mapfile -t name < <(awk '{print $3}' "$tmp/ns/hosts")
scripts/nshosts.sh throttle "$tmp/ns" "${name[2]}" "$RATE"
hb_log "hosts ${name[*]} (${addr[*]}); ${name[2]} throttled to $RATE"

# allpairs ROUND: one allpairs run; appends "ROUND hb A B LAT BW" rows and
# the run's outlier lines to $tmp/notes.ROUND.
allpairs() {
	local out=$tmp/allpairs.out
	if ! ip netns exec "${ns[0]}" unshare --uts sh -c 'hostname "$0"; exec "$@"' "${name[0]}" \
		env HPCBENCH_IFACE=hb0 mpiexec.mpich -launcher rsh -launcher-exec "$tmp/ns/nsexec" -iface hb0 \
		-hosts "$(IFS=,; echo "${addr[*]}")" -n 3 -ppn 1 \
		"$hpcbench" fabric allpairs -I "$ITER" --bw-size 1m --bw-iters "$BW_ITERS" >"$out" 2>"$tmp/allpairs.err"; then
		hb_die "round $1: allpairs failed: $(tail -n 3 "$tmp/allpairs.err" | tr '\n' ' ')"
	fi
	awk -v r="$1" '/^allpairs:/ { t = 1; next } t && /^-/ { next } t && NF == 5 && $1 != "a" { print r, "hb", $1, $2, $3, $5 } t && NF == 0 && n++ { exit }' \
		"$out" >>"$tmp/rows"
	grep '^slow ' "$out" >"$tmp/notes.$1" || true
}

# fi ROUND I: fi_pingpong of 1 MiB from host 0 to host I; appends
# "ROUND fi A B LAT BW".
fi_link() {
	local r=$1 i=$2 ok=0 rc=0
	ip netns exec "${ns[i]}" fi_pingpong -p tcp -e msg -B "$FI_PORT" -S 1048576 -I "$FI_ITER" >"$tmp/fi.server" 2>&1 &
	server_pid=$!
	for _ in $(seq 1 20); do
		sleep 0.2
		if ip netns exec "${ns[0]}" fi_pingpong -p tcp -e msg -P "$FI_PORT" -S 1048576 -I "$FI_ITER" "${addr[i]}" \
			>"$tmp/fi.out" 2>"$tmp/fi.err"; then
			ok=1
			break
		fi
	done
	wait "$server_pid" || rc=$?
	server_pid=
	((ok)) || hb_die "round $r: fi_pingpong to ${name[i]} failed: $(tail -n 3 "$tmp/fi.err" | tr '\n' ' ')"
	((rc == 0)) || hb_die "round $r: fi_pingpong's server on ${name[i]} exited $rc"
	awk -v r="$r" -v a="${name[0]}" -v b="${name[i]}" \
		'/^bytes/ { h = 1; next } h && NF >= 8 { print r, "fi", a, b, $7, $6; f = 1; exit } END { if (!f) exit 1 }' \
		"$tmp/fi.out" >>"$tmp/rows" || hb_die "round $r: no table in fi_pingpong's output"
}

: >"$tmp/rows"
: >"$tmp/allnotes"
for ((r = 1; r <= REPS; r++)); do
	hb_log "round $r/$REPS"
	if ((r % 2)); then
		allpairs "$r"
		fi_link "$r" 1
		fi_link "$r" 2
	else
		fi_link "$r" 2
		fi_link "$r" 1
		allpairs "$r"
	fi
	# The throttled host, and no line without it (a link of it may be
	# named too: its latency rises behind the bandwidth test's queue).
	want="slow host: ${name[2]}: "
	if ! grep -q "^$want" "$tmp/notes.$r" || grep -qv "${name[2]}" "$tmp/notes.$r"; then
		hb_die "round $r: allpairs named $(tr '\n' ';' <"$tmp/notes.$r"), want \"$want...\" and nothing without ${name[2]}"
	fi
	cat "$tmp/notes.$r" >>"$tmp/allnotes"
done

rate_mb=$(awk -v r="$RATE" 'BEGIN { n = r + 0; u = substr(r, length(n "") + 1, 1); m = (u == "k") ? 1e3 : (u == "m") ? 1e6 : 1e9; printf "%.2f", n * m / 8 / 1e6 }')
printf 'fabric allpairs across 3 namespace hosts under Hydra, %s rounds; %s throttled to %s (%s MB/s) both ways\n' \
	"$REPS" "${name[2]}" "$RATE" "$rate_mb"
printf 'outlier lines over the rounds (each round named %s, and nothing without it):\n' "${name[2]}"
cut -d: -f1-2 "$tmp/allnotes" | sort | uniq -c
echo
awk -v reps="$REPS" -v slow="${name[2]}" -v rate="$rate_mb" '
function sortv(a, n,   i, j, t) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function med(a, n) { sortv(a, n); return (n % 2) ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
{
	k = ($3 < $4) ? $3 " " $4 : $4 " " $3
	if (!(k in seen)) { seen[k] = 1; links[nl++] = k }
	lat[$2, k, $1] = $5; bw[$2, k, $1] = $6
}
END {
	printf "%-18s %14s %14s %14s %10s %10s\n", "link", "hb lat(us)", "hb MB/s", "fi MB/s", "bw hb/fi", "hb/rate"
	for (l = 0; l < nl; l++) {
		k = links[l]; nh = nf = nr = 0
		for (r = 1; r <= reps; r++) {
			if (("hb", k, r) in bw) { hl[nh] = lat["hb", k, r]; hb[nh++] = bw["hb", k, r] }
			if (("fi", k, r) in bw) { fb[nf++] = bw["fi", k, r]; if (("hb", k, r) in bw) q[nr++] = bw["hb", k, r] / bw["fi", k, r] }
		}
		split(k, ab, " ")
		printf "%-18s %14.2f %14.1f %14s %10s %10s\n", ab[1] "-" ab[2], med(hl, nh), med(hb, nh),
			nf ? sprintf("%.1f", med(fb, nf)) : "-", nr ? sprintf("%.2f", med(q, nr)) : "-",
			(ab[1] == slow || ab[2] == slow) ? sprintf("%.2f", med(hb, nh) / rate) : "-"
	}
}' "$tmp/rows"
