#!/bin/bash
# A/B: the link benchmark's compute before each all-reduce ends on the wall clock (A: at the start
# of a CFS period, quota fresh) or at a random point of the quota window (B: + U[0, TAIL) ms of CPU
# time, TAIL=4 by default). Needs a vitsim-train built with phase-tail.patch (B reads its
# VITSIM_EXP_CPU_TAIL_MS; without the patch A and B are the same). Usage (root, repository root):
#   bench/notes/validate-local-2026-12-03-means/phase-ab.sh OUT
exec "$(dirname "$0")/link-ab.sh" "${1:?OUT}" VITSIM_EXP_CPU_TAIL_MS "${TAIL:-4}"
