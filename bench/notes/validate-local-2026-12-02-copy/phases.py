#!/usr/bin/env python3
"""Per configuration of a validate-local loop: the median run's epoch against the prediction, then
its phases per step against the prediction's, with the bucket copy apart: the slowest rank's
forward + backward, the ranks' mean bucket copy (bucket_copy_time_s; with overlap off a part of
the all-reduce), the ranks' work (their mean step less the all-reduce, plus the copy: everything
but the transfer and the wait) against the prediction's compute (every sleep of a rank: data,
forward, backward, copy, optimizer, overhead, the first step's share), the all-reduce's transfer
(the all-reduce less the wait for the last rank, as the trainer estimates it, less the copy)
against the prediction's exposed communication, and the optimizer + data + sync. Each rank's
phases are its means per step where the run log has them (rank_means[], logs since 2026-12-03:
what the epoch pays), else its medians (ranks[]); the header says which.
Usage: phases.py LOOP_DIR"""
import json, glob, csv, sys, statistics as st, collections
loop = sys.argv[1]
pred = {}
for f in glob.glob(loop + '/prediction-*.ranks.csv'):
    for r in csv.DictReader(open(f)):
        pred.setdefault(r['configuration'], []).append(r)
predc = {}
for f in [g for g in glob.glob(loop + '/prediction-*.csv') if not g.endswith('ranks.csv')]:
    for r in csv.DictReader(open(f)):
        predc[r['label']] = r
rows = collections.defaultdict(list)
stats = set()
for f in sorted(glob.glob(loop + '/runs/*.json')):
    d = json.load(open(f)); lab = f.split('/')[-1].rsplit('-r', 1)[0]
    R = d.get('rank_means') or d['ranks']
    stats.add('means' if d.get('rank_means') else 'medians')
    comp = max(r['forward_time_s'] + r['backward_time_s'] for r in R)
    copy = st.mean(r.get('bucket_copy_time_s', 0) for r in R)
    ar = st.mean(r['allreduce_time_s'] for r in R)
    arw = st.mean(r.get('allreduce_wait_time_s', 0) for r in R)
    step = st.mean(r['step_time_s'] for r in R)
    oth = st.mean(r['optimizer_time_s'] + r['data_time_s'] + r.get('sync_time_s', 0) for r in R)
    ep = d['epochs'][0]['epoch_time_s']; steps = d['epochs'][0]['steps']
    rows[lab].append((ep, steps, step, comp, copy, ar, arw, oth))
print("# ranks' phases per step: " + " and ".join(sorted(stats)))
print("%-20s %6s %6s | %6s %6s | %6s %6s %6s %6s | %6s %6s %6s %5s | %6s"
      % ("label", "ep_m", "ep_p", "stepm", "stepp", "f+b_m", "copy_m", "work_m", "comp_p",
         "xfer_m", "wait_m", "comm_p", "ratio", "rest_m"))
for lab in sorted(rows):
    v = rows[lab]
    m = lambda i: st.median(x[i] for x in v)
    p = pred.get(lab); pc = predc.get(lab)
    cp = max(float(x['compute_time_s']) for x in p)
    cm = max(float(x['exposed_comm_time_s']) for x in p)
    xfer = m(5) - m(6) - m(4)
    ratio = "%5.2f" % (xfer / cm) if cm > 1e-6 else "    -"
    print("%-20s %6.2f %6.2f | %6.3f %6.3f | %6.3f %6.4f %6.3f %6.3f | %6.3f %6.3f %6.3f %s | %6.3f"
          % (lab, m(0), float(pc['epoch_time_s']), m(2), float(pc['step_time_s']), m(3), m(4),
             m(2) - m(5) + m(4), cp, xfer, m(6), cm, ratio, m(7)))
