#!/usr/bin/env python3
"""Rebuilds the nccl-tests output excerpts of this folder from the public rows of
data/public-benchmarks/nccl_tests_allreduce_measurements.csv, in nccl-tests' own layout
(NVIDIA/nccl-tests src/util.cu: writeResultHeader, writeBenchmarkLinePreamble/Body, the
"Using devices" lines, writeResultFooter). The numbers are the published ones; hosts, PIDs and
bus ids are placeholders (the sources did not publish them all).

    tests/import/data/make_nccl_tests_excerpts.py   (from the repository root)
"""
import csv
import os

ROOT = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(ROOT, "../../../data/public-benchmarks/nccl_tests_allreduce_measurements.csv")


def rows_of(dataset):
    with open(CSV, newline="") as f:
        return [r for r in csv.DictReader(f) if r["dataset"] == dataset]


def fmt_float(value, width):  # getFloatStr of util.cu
    for spec in ("%*.2f", "%*.1f", "%*.0f"):
        s = spec % (width, value)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


def new_layout(dataset, host_of, gpu, version, nccl_info=()):
    rows = rows_of(dataset)
    n = int(rows[0]["n_gpus"])
    out = ["# nccl-tests version 2.13.8 nccl-headers=%s nccl-library=%s" % (version, version),
           "# Collective test starting: all_reduce_perf",
           "# nThread 1 nGpus 1 minBytes %s maxBytes %s step: 2(factor) warmup iters: 5 iters: 20 "
           "agg iters: 1 validation: 1 graph: 0" % (rows[0]["size_bytes"], rows[-1]["size_bytes"]),
           "#", "# Using devices"]
    for r in range(n):
        out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
                   % (r, 0, 4100 + r, host_of(r), r % 8, 0, 0x3b + r, 0, gpu))
    out += list(nccl_info)
    out.append("#")
    out.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""))
    out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
        "algbw", "busbw", "#wrong", 0, ""))
    out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
        "(GB/s)", "", 0, ""))
    busbw = []
    for r in rows:
        line = "%12li  %12li  %8s  %6s  %6s" % (int(r["size_bytes"]), int(r["count"]), r["dtype"], "sum", "%6i" % -1)
        for p in ("oop", "ip"):
            line += "  %7s  %6s  %6s  %6g" % (fmt_float(float(r[p + "_time_us"]), 7),
                                             fmt_float(float(r[p + "_algbw_GBps"]), 6),
                                             fmt_float(float(r[p + "_busbw_GBps"]), 6), 0)
            busbw.append(float(r[p + "_busbw_GBps"]))
        out.append(line)
    out.append("# %-20s : %d %s" % ("Out of bounds values", 0, "OK"))
    out.append("# %-20s : %g %s" % ("Avg bus bandwidth", sum(busbw) / len(busbw), ""))
    out += ["#", "# Collective test concluded: all_reduce_perf", ""]
    return "\n".join(out)


def old_layout(dataset, host_of, gpu, nccl_info=()):
    """nccl-tests before the root column (2.10 and older): 'error' columns, no Group."""
    rows = rows_of(dataset)
    n = int(rows[0]["n_gpus"])
    out = ["# nThread 1 nGpus 1 minBytes %s maxBytes %s step: 2(factor) warmup iters: 5 iters: 20 "
           "validation: 1 " % (rows[0]["size_bytes"], rows[-1]["size_bytes"]), "#",
           "# Using devices"]
    for r in range(n):
        out.append("#   Rank %2d Pid %6d on %10s device %2d [0x%02x] %s"
                   % (r, 7000 + r, host_of(r), r % 8, r, gpu))
    out += list(nccl_info)
    out.append("#")
    out.append("#                                                       out-of-place                       in-place          ")
    out.append("#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error")
    out.append("#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ")
    busbw = []
    for r in rows:
        line = "%12li  %12li  %8s  %6s" % (int(r["size_bytes"]), int(r["count"]), r["dtype"], "sum")
        for p in ("oop", "ip"):
            line += "  %7s  %6s  %6s  %5.0e" % (fmt_float(float(r[p + "_time_us"]), 7),
                                               fmt_float(float(r[p + "_algbw_GBps"]), 6),
                                               fmt_float(float(r[p + "_busbw_GBps"]), 6), 0)
            busbw.append(float(r[p + "_busbw_GBps"]))
        out.append(line)
    out.append("# Out of bounds values : 0 OK")
    out.append("# Avg bus bandwidth    : %g " % (sum(busbw) / len(busbw)))
    out += ["#", ""]
    return "\n".join(out)


def main():
    files = {
        "nccl_tests_pcie3_2x2080ti.txt": new_layout(
            "pcie3_2x2080ti_noP2P", lambda r: "autodl-c1", "NVIDIA GeForce RTX 2080 Ti", "21903"),
        "nccl_tests_efa_2node_t4.txt": old_layout(
            "efa_2node_2xT4", lambda r: "ip-10-0-1-%d" % (10 + r), "Tesla T4",
            nccl_info=["ip-10-0-1-10:7000:7000 [0] NCCL INFO Bootstrap : Using eth0:10.0.1.10<0>",
                       "ip-10-0-1-10:7000:7000 [0] NCCL INFO NET/OFI Selected Provider is efa",
                       "NCCL version 2.12.7+cuda11.4"]),
        "nccl_tests_dgx1_8xv100.txt": old_layout(
            "nvlink_dgx1_8xV100", lambda r: "dgx1", "Tesla V100-SXM2-16GB"),
    }
    for name, text in files.items():
        with open(os.path.join(ROOT, name), "w") as f:
            f.write(text)
        print("wrote", name)


if __name__ == "__main__":
    main()
