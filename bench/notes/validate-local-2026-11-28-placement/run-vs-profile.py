import json,glob,statistics as st,sys,re,collections
base=sys.argv[1]
prof={}
for dev in ['emu-cpu-20','emu-cpu-40']:
  rows=collections.defaultdict(list)
  for f in sorted(glob.glob(base+'/profiles/profile-%s-pass*.json'%dev)):
    d=json.load(open(f))
    for c in d['compute']:
      fw=sum(l['forward_time_s'] for l in c['layers']); bw=sum(l['backward_time_s'] for l in c['layers'])
      rows[c['micro_batch']].append(fw+bw)
  prof[dev]={mb:st.median(v) for mb,v in rows.items()}
def interp(dev,mb):
  p=prof[dev]; ks=sorted(p)
  for a,b in zip(ks,ks[1:]):
    if a<=mb<=b: return p[a]+(p[b]-p[a])*(mb-a)/(b-a)
res=collections.defaultdict(list)
for f in sorted(glob.glob(base+'/runs/*.json')):
  d=json.load(open(f)); lab=re.sub(r'-r\d+\.json','',f.split('/')[-1])
  if 'dsbf16' in lab: continue
  mb=int(re.search(r'mb(\d+)',lab).group(1)); n=len(d['ranks'])
  slow = 'slow' in lab
  slowidx = (1 if n==2 else 3) if slow else -1
  for r in d['ranks']:
    dev='emu-cpu-20' if r['rank']==slowidx else 'emu-cpu-40'
    comp=r['forward_time_s']+r['backward_time_s']
    busy=[0,0]
    for q in d['ranks']:
      qc=q['forward_time_s']+q['backward_time_s']+q['optimizer_time_s']
      busy[q['rank']%2]+=qc/q['step_time_s']
    res[(lab,r['rank'],dev)].append((comp/interp(dev,mb), busy[r['rank']%2], busy[1-r['rank']%2]))
for k,v in res.items():
  print('%-22s rank %d %-10s ratio %.3f  own-cpu busy %.2f other-cpu busy %.2f'%(k[0],k[1],k[2],st.median(x[0] for x in v),st.median(x[1] for x in v),st.median(x[2] for x in v)))
