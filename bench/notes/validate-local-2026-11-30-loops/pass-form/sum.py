import json,glob,re,statistics as st
res={}
for f in sorted(glob.glob('/tmp/gapy/prof-*.json')):
  tag=re.search(r'prof-(.*)\.json',f).group(1)
  d=json.load(open(f))
  e=d['compute'][0]
  fw=sum(l['forward_time_s'] for l in e['layers']); bw=sum(l['backward_time_s'] for l in e['layers'])
  res[tag]=fw+bw
  print(tag, f"mb {e['micro_batch']} fw+bw {fw+bw:.4f}")
for form in 'OS':
  v=[x for t,x in res.items() if t.startswith(form) and t[1:].isdigit()]
  if v: print(form, 'n',len(v),'median',round(st.median(v),4),'min',round(min(v),4),'max',round(max(v),4))
pairs=[(res['O'+str(i)],res['S'+str(i)]) for i in range(1,20) if 'O'+str(i) in res and 'S'+str(i) in res]
if pairs: print('O/S ratios', [round(a/b,3) for a,b in pairs], 'median', round(st.median(a/b for a,b in pairs),3))
runs={}
for f in sorted(glob.glob('/tmp/gapy/run-*.json')):
  tag=re.search(r'run-(.*)\.json',f).group(1); d=json.load(open(f)); r=d['ranks'][0]
  runs[tag]=r['forward_time_s']+r['backward_time_s']; print(tag,'fw+bw',round(runs[tag],4),'step',round(r['step_time_s'],4))
for i in range(11,20):
  k=str(i)
  if 'R'+k in runs and 'O'+k in res and 'S'+k in res: print(k,'O/R',round(res['O'+k]/runs['R'+k],3),'S/R',round(res['S'+k]/runs['R'+k],3))
