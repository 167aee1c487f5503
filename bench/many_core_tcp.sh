#!/usr/bin/env bash
# The TCP comparison at 8, 16 and 32 streams on a many-core machine, as one command that
# ends inside a 10-minute slot: loopback and veth, the sendfile, copy and neper cells, 2 runs
# of 3 s after a 1 s warm-up each (72 tool runs, about 7 minutes).
#
#   bench/many_core_tcp.sh TOOLS OUT
#
# TOOLS: a folder with x86-64 builds of fabric_probe, iperf3-3.21 and neper-tcp_stream (copy
#        them there: such a machine may reach nothing else), and in TOOLS/lib the shared
#        libraries fabric_probe needs that the machine may not have:
#          strip -o TOOLS/fabric_probe build/bin/fabric_probe; mkdir -p TOOLS/lib
#          ldd TOOLS/fabric_probe | awk '/=> \// && $1 !~ /^(libc|libm|libgcc_s|libstdc\+\+)\./ \
#            {print $3}' | xargs cp -t TOOLS/lib
# OUT:   receives host.txt (kernel, CPUs, load), many_core.log (the benchmark's output) and
#        many_core.json (bench/tcp_probe_vs_iperf3.py --json).
#
# Needs root, python3, ip and tc. It checks the machine first and stops with the reason
# where the comparison would mean nothing: inside gVisor (its kernel reports 4.4.0 and TCP
# there is gVisor's own user-space stack, not Linux's) or without network namespaces.
#
# RUNS, DURATION, STREAMS, CELLS and PATHS override the defaults (a short trial on a small
# machine: RUNS=1 DURATION=1 STREAMS=8 CELLS=copy PATHS=loopback).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 TOOLS OUT  (TOOLS holds fabric_probe, iperf3-3.21, neper-tcp_stream)" >&2
  exit 2
fi
tools=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

for tool in fabric_probe iperf3-3.21 neper-tcp_stream; do
  if [[ ! -x $tools/$tool ]]; then
    echo "$0: $tools/$tool: no such executable (copy it into TOOLS)" >&2
    exit 2
  fi
done
mkdir -p "$out"
if [[ -d $tools/lib ]]; then
  export LD_LIBRARY_PATH=$tools/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

{
  echo "kernel: $(uname -srm)"
  echo "cpus: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'))"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/host.txt"

why_not=""
if [[ $(uname -r) == 4.4.0 ]] || dmesg 2>/dev/null | grep -qi gvisor; then
  why_not="this is a gVisor sandbox: its TCP is gVisor's user-space stack, not Linux's"
elif [[ $(id -u) -ne 0 ]]; then
  why_not="not root: the paths run in network namespaces"
elif ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  why_not="ip or tc is not installed (iproute2)"
elif missing=$(ldd "$tools/fabric_probe" | awk '/not found/ {printf "%s ", $1}') && [[ -n $missing ]]; then
  why_not="fabric_probe's libraries are missing here (put them in $tools/lib): $missing"
elif ! ip netns add fl-many-core-check 2>/dev/null; then
  why_not="network namespaces cannot be made here"
else
  ip netns del fl-many-core-check
fi
if [[ -n $why_not ]]; then
  echo "not run: $why_not" | tee -a "$out/host.txt"
  exit 3
fi

PYTHONUNBUFFERED=1 python3 "$here/tcp_probe_vs_iperf3.py" \
  --probe "$tools/fabric_probe" --iperf3 "$tools/iperf3-3.21" \
  --neper "$tools/neper-tcp_stream" --runs "${RUNS:-2}" --duration "${DURATION:-3}" \
  --warmup 1 --paths "${PATHS:-loopback,veth}" --streams "${STREAMS:-8,16,32}" \
  --cells "${CELLS:-sendfile,copy,neper}" --nice -20 --json "$out/many_core.json" 2>&1 |
  tee "$out/many_core.log"
