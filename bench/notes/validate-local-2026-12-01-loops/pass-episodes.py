#!/usr/bin/env python3
"""Each profile pass of a loop, per device: forward + backward per sample (mean over the profiled
micro-batches) relative to the device's median pass. emu-cpu-40 fp32 and ds-bf16 run on emulated
hosts 0 and 2 (CPU 0), emu-cpu-20 on host 1 (CPU 1): a CPU episode slows the devices that share
the CPU in the same passes. Usage: pass-episodes.py LOOP_DIR..."""
import glob
import json
import statistics as st
import sys

for loop in sys.argv[1:]:
    print(loop)
    for dev, cpu in [("emu-cpu-40", 0), ("emu-cpu-40-ds-bf16", 0), ("emu-cpu-20", 1)]:
        vals = []
        for i in range(1, 12):
            files = glob.glob(f"{loop}/profiles/profile-{dev}-pass{i}.json")
            if not files:
                continue
            per = [sum(l["forward_time_s"] + l["backward_time_s"] for l in c["layers"]) / c["micro_batch"]
                   for c in json.load(open(files[0]))["compute"]]
            vals.append(sum(per) / len(per))
        m = st.median(vals)
        print(f"  {dev:<20} CPU {cpu}  pass 1-{len(vals)}: " + " ".join(f"{v / m:.2f}" for v in vals))
