import json,glob,statistics as st
rows={}
for w in (0,60):
    for f in sorted(glob.glob(f'/tmp/ab-wait/w{w}-*.json')):
        d=json.load(open(f))
        for c in d['compute']:
            rows.setdefault((w,c['micro_batch']),[]).append((sum(l['forward_time_s']+l['backward_time_s'] for l in c['layers']),c['optimizer_time_s'],c['data_time_s'],c['step_overhead_time_s']))
for k in sorted(rows):
    v=rows[k]; print('profile wait %2d mb %d: layers %.4f opt %.4f data %.4f ovh %.4f  (n=%d; opt each %s)'%(k[0],k[1],*(st.median(x[i] for x in v) for i in range(4)),len(v),[round(x[1]*1e3,1) for x in v]))
for pat,name in (('run-*','2-rank run mb24'),('run1-*','1-rank run mb24')):
    R=[]
    for f in sorted(glob.glob(f'/tmp/ab-wait/{pat}.json')):
        d=json.load(open(f)); rk=d['ranks']; m=lambda k: st.median(x[k] for x in rk)
        R.append((m('forward_time_s')+m('backward_time_s'),m('optimizer_time_s'),m('data_time_s'),m('step_time_s')))
    print(name, 'fb %.4f opt %.4f data %.4f step %.4f'%tuple(st.median(x[i] for x in R) for i in range(4)), '(n=%d; opt each %s)'%(len(R),[round(x[1]*1e3,1) for x in R]))
