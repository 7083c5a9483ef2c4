#!/usr/bin/env python3
"""What the rows of a loop would read with the runs' own wait for the last rank in place of the
model's (a diagnosis, not a prediction: the runs' wait is the measurement under test). Reads the
loop's notes folder: phases.txt (../validate-local-2026-12-02-copy/phases.py: epoch and step,
measured and predicted) and wait.txt (../validate-local-2026-12-02-twice/wait.py: the runs' median
wait and the model's). Where the ranks are alike (not the 1-rank or slowed rows), each row's error
moves by (model's wait - runs' wait) / measured step. Usage: wait-swap.py NOTES_DIR"""
import re, statistics as st, sys
d = sys.argv[1]
ph = {}
for l in open(d + '/phases.txt'):
    f = l.split()
    if len(f) > 5 and f[0].startswith('r') and f[0] != 'label':
        ph[f[0]] = (float(f[1]), float(f[2]), float(f[4]))
wt = {}
for l in open(d + '/wait.txt'):
    m = re.match(r'^(\S+)\s+(\d+)\s+\|\s+([\d.]+)\s+[\d.]+-\s*[\d.]+\s+\|\s+([\d.]+)', l)
    if m: wt[m.group(1)] = (float(m.group(3)), float(m.group(4)))
errs = []
print("%-22s %7s %9s %9s %8s" % ("label", "error_%", "model_ms", "runs_ms", "swapped"))
for k, (em, ep, sm) in ph.items():
    e = 100 * (ep / em - 1); wm, wp = wt[k]
    alike = 'slow' not in k and not k.startswith('r1-')
    s = e - ((wp - wm) / 1e3 / sm * 100 if alike else 0)
    errs.append(s)
    print("%-22s %+7.2f %9.1f %9.1f %+8.2f" % (k, e, wp, wm, s))
print("swapped: median |error| %.2f %%, worst %.2f %%, %d too slow / %d too fast"
      % (st.median(abs(x) for x in errs), max(abs(x) for x in errs),
         sum(x > 0 for x in errs), sum(x < 0 for x in errs)))
