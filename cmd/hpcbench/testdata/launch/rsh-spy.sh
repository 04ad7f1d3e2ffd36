#!/bin/sh
# rsh-spy.sh DIR HOST CMD...: a fake remote shell for launch's tests across
# hosts. It runs CMD here with HPCBENCH_HOSTNAME=HOST, as
# --rsh 'env HPCBENCH_HOSTNAME={host}' does, after writing the control
# address from the launcher's line on stdin (its fourth word; not the
# secret, the fifth) to DIR/addr, for a test to play an impostor on.
dir=$1 host=$2
shift 2
IFS= read -r line
addr=$(printf '%s\n' "$line" | cut -d' ' -f4)
printf '%s\n' "$addr" >"$dir/addr.$host" && mv "$dir/addr.$host" "$dir/addr"
{ printf '%s\n' "$line"; exec cat; } | HPCBENCH_HOSTNAME=$host "$@"
