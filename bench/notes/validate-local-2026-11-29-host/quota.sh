#!/bin/bash
# quota.sh NAME PERIOD_US QUOTA_US CPU PROGRAM ARGS...: runs PROGRAM in a new cgroup-v1 cpu group
# with that CFS period and quota (-1: none), pinned to CPU (as root; the group is removed after).
set -eu
cg=/sys/fs/cgroup/cpu/host-note-$1; mkdir -p "$cg"
echo "$2" > "$cg/cpu.cfs_period_us"; echo "$3" > "$cg/cpu.cfs_quota_us"
cpu=$4; shift 4
bash -c "echo \$\$ > $cg/tasks; exec taskset -c $cpu $*"
rmdir "$cg" 2>/dev/null || true
