# within-launch spread of the ranks' compute (forward+backward medians) in a loop's runs, pooled per rank count
import json,glob,sys,math,statistics as st
for L in sys.argv[1:]:
  acc={}
  for f in glob.glob(L+'/runs/*.json'):
    if 'slow' in f or 'r1-' in f.split('/')[-1]: continue
    d=json.load(open(f)); x=[r['forward_time_s']+r['backward_time_s'] for r in d['ranks']]
    m=st.mean(x); n=len(x)
    a=acc.setdefault(n,[0,0]); a[0]+=sum((v/m-1)**2 for v in x); a[1]+=n-1
  print(L, ' '.join(f"{n} ranks: {100*math.sqrt(s/df):.2f} % ({df} df)" for n,(s,df) in sorted(acc.items())))
