# ringsize.py LOOP...: the gradient all-reduce at 2 and 4 ranks, three ways: the calibrated link
# (one alpha-beta fit over both ring sizes), the link benchmark's own points interpolated at the
# gradient's size, and the runs' transfer (all-reduce less the wait for the last rank, median over
# ranks and runs) plus the agreement after it (sync, median).
import json,glob,sys,statistics as st
M=None
def interp(pts,m):
  pts=sorted(pts)
  for (a,ta),(b,tb) in zip(pts,pts[1:]):
    if a<=m<=b: return ta+(tb-ta)*(m-a)/(b-a)
for L in sys.argv[1:]:
  links={x['link_class']:x for x in json.load(open(f'{L}/costs.json'))['links']}
  d=json.load(open(glob.glob(f'{L}/runs/r2-mb24-400m-r1.json')[0]))
  # gradient bytes: fp32 parameters of the run's model, from the prediction's bucket? use the profile
  for rate in ('100mbit','400mbit'):
    l=links[f'emu-tbf-{rate}']; bw=l['bandwidth_bytes_per_s']; lat=l['latency_s']
    out=[]
    for n in (2,4):
      b=json.load(open(f'{L}/profiles/links-{rate}-{n}.json'))['allreduce'][0]['points']
      pts=[(p['message_bytes'],p['time_s']) for p in b]
      m=809354*4.0  # the loop model (width 128, depth 4, patch 4, 32x32, 10 classes): 809,354 fp32 parameters
      model=2*(n-1)/n*m/bw+2*(n-1)*lat
      bench=interp(pts,m)
      cfg=f'r{n}-mb24-{rate[:3]}m' if rate=='100mbit' else f'r{n}-mb24-400m'
      T=[];S=[]
      for f in glob.glob(f'{L}/runs/{cfg}-r*.json'):
        for r in json.load(open(f))['ranks']: T.append(r['allreduce_time_s']-r['allreduce_wait_time_s']); S.append(r['sync_time_s'])
      run=f'{st.median(T):.4f}+{st.median(S):.4f}' if T else '-'
      out.append(f'{n} ranks: model {model:.4f} bench {bench:.4f} ({100*(model/bench-1):+.1f} %) run {run}')
    print(L.split('/')[-1],rate,' | '.join(out))
