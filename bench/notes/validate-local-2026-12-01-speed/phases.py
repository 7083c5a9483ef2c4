#!/usr/bin/env python3
"""Per configuration of a validate-local loop: the median run's epoch against the prediction, then
its phases per step (the slowest rank's forward + backward, the ranks' mean all-reduce, the rest)
against the prediction's compute and exposed communication; then the all-reduce's transfer (the
all-reduce less the wait for the last rank, as the trainer estimates it) against the prediction's.
Usage: phases.py LOOP_DIR"""
import json,glob,csv,sys,statistics as st,collections
loop=sys.argv[1]
pred={}
for f in glob.glob(loop+'/prediction-*.ranks.csv'):
    for r in csv.DictReader(open(f)):
        pred.setdefault(r['configuration'],[]).append(r)
predc={}
for f in [g for g in glob.glob(loop+'/prediction-*.csv') if not g.endswith('ranks.csv')]:
    for r in csv.DictReader(open(f)):
        predc[r['label']]=r
rows=collections.defaultdict(list)
for f in sorted(glob.glob(loop+'/runs/*.json')):
    d=json.load(open(f)); lab=f.split('/')[-1].rsplit('-r',1)[0]
    R=d['ranks']; n=len(R)
    comp=max(r['forward_time_s']+r['backward_time_s'] for r in R)
    ar=st.mean(r['allreduce_time_s'] for r in R)
    arw=st.mean(r.get('allreduce_wait_time_s',0) for r in R)
    step=st.mean(r['step_time_s'] for r in R)
    opt=st.mean(r['optimizer_time_s']+r['data_time_s']+r['sync_time_s'] for r in R)
    ep=d['epochs'][0]['epoch_time_s']; steps=d['epochs'][0]['steps']
    rows[lab].append((ep,steps,step,comp,ar,arw,opt))
print("%-18s %7s %7s | %6s %6s | %6s %6s | %6s %6s | %6s %6s| untimed"%("label","ep_m","ep_p","stepm","stepp","compm","compp","commm","commp","othm","o"))
for lab,v in rows.items():
    m=lambda i: st.median(x[i] for x in v)
    p=pred.get(lab); pc=predc.get(lab)
    cp=max(float(x['compute_time_s']) for x in p); cm=max(float(x['exposed_comm_time_s']) for x in p)
    steps=v[0][1]
    print("%-18s %7.2f %7.2f | %6.3f %6.3f | %6.3f %6.3f | %6.3f %6.3f | %6.3f | %6.2f"%(lab,m(0),float(pc['epoch_time_s']),m(2),float(pc['step_time_s']),m(3),cp,m(4),cm,m(6),m(0)-steps*m(2)))
print()
for lab,v in rows.items():
    m=lambda i: st.median(x[i] for x in v)
    p=pred.get(lab)
    cm=max(float(x['exposed_comm_time_s']) for x in p)
    if cm < 1e-6: continue  # one rank: no exchange
    print("%-18s transfer (ar-wait) %.3f  wait %.3f  pred comm %.3f  ratio %.2f"%(lab,m(4)-m(5),m(5),cm,(m(4)-m(5))/cm))
