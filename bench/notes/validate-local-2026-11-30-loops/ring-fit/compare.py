"""compare.py LOOP BEFORE AFTER: two `vitsim validate` tables' rows side by side (error %, in the
80 % interval) and their summary lines (median, worst, runs inside)."""
import re
import sys


def rows(path):
    out, summary = {}, {}
    for line in open(path):
        f = line.split()
        if len(f) > 9 and f[0].startswith("emulated") and f[3].isdigit():
            out[(f[0], f[2], f[3], f[5])] = (float(f[8]), f[10])
        for key in ("median absolute error", "worst absolute error", "runs inside their interval"):
            if line.startswith(key):
                summary[key] = re.sub(r"\s+", " ", line.split(":", 1)[1].strip())[:40]
    return out, summary


loop, before, after = sys.argv[1:4]
(b, bs), (a, as_) = rows(before), rows(after)
print(f"== {loop}")
for k in sorted(b, key=lambda k: (k[0], int(k[1]), int(k[2]))):
    mark = "" if abs(a[k][0] - b[k][0]) < 0.005 else "  *"
    print(f"  {k[0]:<22} {k[1]} ranks b{k[2]:<3} {k[3]:<8} {b[k][0]:+6.2f} -> {a[k][0]:+6.2f} %"
          f"  in {b[k][1]}/{a[k][1]}{mark}")
for key in bs:
    print(f"  {key}: {bs[key]}  ->  {as_[key]}")
