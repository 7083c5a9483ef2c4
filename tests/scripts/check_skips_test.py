#!/usr/bin/env python3
"""scripts/check-skips on hand-made CTest JUnit reports: it passes a GPU test skipping for want of a
CUDA device and the quick validate-local loop skipping for a host its checks measured unable to
emulate, and fails on any other skip (the parity test skipping because python3-torch is missing,
issue 11), on a GPU test skipping for another reason, on the loop skipping for any other reason
or another test giving the loop's reason, and on a report with no test."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "check-skips")


def case(name, skipped_reason=None):
    if skipped_reason is None:
        return f'<testcase name="{name}" classname="{name}" time="0.1" status="run"><system-out>ok</system-out></testcase>'
    out = (f"Running main()\n[ RUN      ] {name}\nfile.cpp:21: Skipped\n{skipped_reason}\n"
           f"[  SKIPPED ] {name} (0 ms)\n")
    return (f'<testcase name="{name}" classname="{name}" time="0.1" status="notrun">'
            f'<skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/><system-out>{out}</system-out>'
            f"</testcase>")


def run(cases):
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?><testsuite name="x" tests="%d">%s</testsuite>'
                % (len(cases), "".join(cases)))
    r = subprocess.run([sys.executable, CHECK, f.name], capture_output=True, text=True)
    os.unlink(f.name)
    return r.returncode, r.stderr


def expect(code, cases, what, needle=""):
    got, err = run(cases)
    if got != code or needle not in err:
        print(f"FAIL: {what}: exit {got} (expected {code}); stderr: {err}")
        return False
    return True


ok = all([
    expect(0, [case("Cluster.Reads"), case("NcclCore.OneRankAllReduceAndBroadcastOnDevice",
                                           "no CUDA device: cudaGetDeviceCount: no driver")],
           "a GPU test without a GPU may skip"),
    expect(1, [case("Cluster.Reads"), case("DistributedSampler.MatchesPyTorch",
                                           "SKIPPED: /usr/bin/python3 cannot import torch")],
           "the parity test may not skip", "DistributedSampler.MatchesPyTorch"),
    expect(1, [case("NcclCore.TwoRanksUnderMpirun", "mpirun not found")],
           "a GPU test skipping for another reason fails"),
    expect(0, [case("ValidateLocal.QuickLoopMeetsLoosenedTargets",
                    "host check 1: a 16-MiB sum 1.20 ms unrestricted, 30.0 ms under 0.2 CPU: 0.20 "
                    "of its share (the loop waits below 0.40)\n" + "x" * 400 + "\nvalidate-local: "
                    "the host could not hold a slowed device's speed before or after the loop")],
           "the quick loop may skip for a host its checks measured", "skipped for the host"),
    expect(1, [case("ValidateLocal.QuickLoopMeetsLoosenedTargets",
                    "validate-local skipped: build/bin/vitsim is not built")],
           "the quick loop may not skip for a missing binary", "QuickLoopMeetsLoosenedTargets"),
    expect(1, [case("Cluster.Reads", "the host could not hold a slowed device's speed")],
           "only the quick loop may give the host's reason", "Cluster.Reads"),
    expect(2, [], "an empty report is an error"),
])
print("check-skips: all cases behave" if ok else "check-skips test FAILED")
sys.exit(0 if ok else 1)
