#!/usr/bin/env python3
"""The loop's table re-read at the profiles' machine speed from canary.txt's rounded readings, by
canary part (0 latency, 1 throughput, 2 memory): the first look, before vitsim validate
--machine-speed (which reads the samples and the latency part: reread.sh).
Usage: parts.py LOOP_DIR PART"""
import json,glob,csv,sys,statistics as st,collections,os
loop=sys.argv[1]; part=int(sys.argv[2]) if len(sys.argv)>2 else 0
can={}
for l in open(loop+'/canary.txt').read().splitlines()[2:]:
    f=l.split()
    if not f or f[0].startswith('spans') : break
    vals=[v for v in f[1:3] if v!='-']
    if len(vals)==2: can[f[0]]=st.mean(float(v.split('/')[part]) for v in vals)
ref=st.median(v for k,v in can.items() if k.startswith('profile-pass'))
predc={}
for g in glob.glob(loop+'/prediction-*.csv'):
    if g.endswith('ranks.csv'): continue
    for r in csv.DictReader(open(g)): predc[r['label']]=r
pred={}
for g in glob.glob(loop+'/prediction-*.ranks.csv'):
    for r in csv.DictReader(open(g)): pred.setdefault(r['configuration'],[]).append(r)
rows=collections.defaultdict(list)
for f in sorted(glob.glob(loop+'/runs/*.json')):
    run=os.path.basename(f)[:-5]; lab=run.rsplit('-r',1)[0]
    d=json.load(open(f)); ep=d['epochs'][0]['epoch_time_s']
    p=pred[lab]; comp=max(float(x['compute_time_s']) for x in p); step=float(predc[lab]['step_time_s'])
    share=min(1,comp/step)
    c=can[run]/ref
    rows[lab].append((ep, ep/(1+share*(c-1))))
errs=[];errs2=[]
for lab,v in rows.items():
    pe=float(predc[lab]['epoch_time_s'])
    m=st.median(x[0] for x in v); a=st.median(x[1] for x in v)
    errs.append((pe-m)/m*100); errs2.append((pe-a)/a*100)
    print("%-20s raw %+6.2f  adj %+6.2f"%(lab,errs[-1],errs2[-1]))
print("ref",ref,"median raw %.2f worst %.2f | adj median %.2f worst %.2f"%(st.median(map(abs,errs)),max(map(abs,errs)),st.median(map(abs,errs2)),max(map(abs,errs2))))
