#!/bin/bash
# A/B: the link benchmark's busy time before each all-reduce spins in registers (A, today) or
# sweeps a buffer of SWEEP_MB MiB (default 128, above the CPU's last-level cache), one write per
# 64-byte line (B), so that the all-reduce meets cold caches as after a training step's backward.
# Needs a vitsim-train built with sweep.patch (B reads its VITSIM_EXP_SWEEP_MB; without the patch A
# and B are the same). Usage (root, repository root):
#   bench/notes/validate-local-2026-12-03-means/sweep-ab.sh OUT
exec "$(dirname "$0")/link-ab.sh" "${1:?OUT}" VITSIM_EXP_SWEEP_MB "${SWEEP_MB:-128}"
