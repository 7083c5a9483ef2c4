#!/usr/bin/env python3
"""A loop's steady step split in two, per configuration: communication + waits (the run log's
all-reduce, its wait and sync; the prediction's exposed communication and idle time) and the rest
(the run's forward, backward, optimizer, data and copy; the prediction's compute, which holds
the modelled straggler wait), medians over ranks and runs. Usage: comm.py LOOP_DIR"""
import csv,glob,json,statistics as st,sys
L=sys.argv[1]
pred={}
for f in glob.glob(f'{L}/prediction-*.ranks.csv'):
  for r in csv.DictReader(open(f)):
    pred.setdefault(r['configuration'],[]).append(r)
print(f"{'config':<22} {'step run':>8} {'model':>7} | {'comm+wait run':>13} {'model':>7} | {'compute run':>11} {'model':>7}  (s, rank medians; run: steady steps)")
for cfg in sorted(pred):
  rows=pred[cfg]
  runs=[json.load(open(f)) for f in glob.glob(f'{L}/runs/{cfg}-r*.json')]
  if not runs: continue
  step=st.median(st.median(r['step_time_s'] for r in d['ranks']) for d in runs)
  comm=st.median(st.median(r['allreduce_time_s']+r['allreduce_wait_time_s']+r['sync_time_s'] for r in d['ranks']) for d in runs)
  comp=st.median(st.median(r['forward_time_s']+r['backward_time_s']+r['optimizer_time_s']+r['data_time_s']+r['host_to_device_time_s'] for r in d['ranks']) for d in runs)
  mstep=float(rows[0]['step_time_s'])
  mcomm=st.median(float(r['exposed_comm_time_s'])+float(r['idle_time_s']) for r in rows)
  mcomp=st.median(float(r['compute_time_s']) for r in rows)
  print(f"{cfg:<22} {step:8.4f} {mstep:7.4f} | {comm:13.4f} {mcomm:7.4f} | {comp:11.4f} {mcomp:7.4f}")
