import json,glob,sys
for f in sorted(glob.glob('/tmp/gapx/prof-*.json'))+sorted(glob.glob('/tmp/gapx/run-*.json')):
  d=json.load(open(f))
  if 'compute' in d:
    out=[]
    for c in d['compute']:
      fw=sum(l['forward_time_s'] for l in c['layers']); bw=sum(l['backward_time_s'] for l in c['layers'])
      out.append('b%d fw %.4f bw %.4f opt %.4f'%(c['micro_batch'],fw,bw,c['optimizer_time_s']))
    print(f.split('/')[-1], ' | '.join(out))
  else:
    r=d['ranks'][0]; print(f.split('/')[-1], 'b24 fw %.4f bw %.4f opt %.4f step %.4f'%(r['forward_time_s'],r['backward_time_s'],r['optimizer_time_s'],r['step_time_s']))
