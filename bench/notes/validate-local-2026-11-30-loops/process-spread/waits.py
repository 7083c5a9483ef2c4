import json,glob,sys,statistics as st
E={2:0.564,3:0.846,4:1.029}
for L in sys.argv[1:]:
  acc={}
  for f in glob.glob(L+'/runs/*.json'):
    n=f.split('/')[-1]
    if 'slow' in n or n.startswith('r1-'): continue
    d=json.load(open(f)); k=len(d['ranks'])
    comp=st.mean(r['forward_time_s']+r['backward_time_s']+r['optimizer_time_s'] for r in d['ranks'])
    w=st.mean(r['allreduce_wait_time_s'] for r in d['ranks'])
    acc.setdefault(k,[]).append(w/comp)
  print(L,' '.join(f"{k}: wait {100*st.median(v):.1f} % of compute (=> sigma {100*st.median(v)/E[k]:.1f} %)" for k,v in sorted(acc.items())))
