#!/usr/bin/env python3
"""Per run of one configuration of a validate-local loop: its epoch, the ranks' mean step, each
rank's forward + backward (its median step's, from the run log), the slowest rank's against the
others' median (%), and the ranks' mean all-reduce and wait for the last rank. Shows whether a
row's slow runs have one rank slow for the whole run or every rank slow.
Usage: ranks.py LOOP_DIR LABEL"""
import json, glob, sys, statistics as st
loop, label = sys.argv[1], sys.argv[2]
print("%-4s %7s %7s | %-24s %7s | %7s %7s" % ("run", "ep_s", "step_s", "f+b per rank, s",
                                              "slowest", "ar_s", "wait_s"))
for f in sorted(glob.glob('%s/runs/%s-r*.json' % (loop, label))):
    d = json.load(open(f)); R = d['ranks']
    fb = [r['forward_time_s'] + r['backward_time_s'] for r in R]
    top = max(fb); rest = sorted(fb)[:-1]
    lead = 100 * (top / st.median(rest) - 1) if rest else 0.0
    print("%-4s %7.2f %7.3f | %-24s %+6.1f%% | %7.3f %7.3f"
          % (f.rsplit('-', 1)[1][:-5], d['epochs'][0]['epoch_time_s'],
             st.mean(r['step_time_s'] for r in R), ' '.join('%.3f' % v for v in fb), lead,
             st.mean(r['allreduce_time_s'] for r in R),
             st.mean(r.get('allreduce_wait_time_s', 0) for r in R)))
