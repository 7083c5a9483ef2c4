import json,glob,statistics as st,collections
g=collections.defaultdict(list)
for f in sorted(glob.glob('/tmp/kexp/r*.json')):
    k=f.split('/')[-1].rsplit('-',1)[0]
    d=json.load(open(f))
    for r in d['ranks']:
        g[k].append((r['forward_time_s']+r['backward_time_s'], r['optimizer_time_s']+r['data_time_s'], r['step_time_s']))
for k,v in sorted(g.items()):
    print("%-10s n=%d fb %.4f (%.4f-%.4f) opt+data %.4f step %.4f"%(k,len(v),st.median(x[0] for x in v),min(x[0] for x in v),max(x[0] for x in v),st.median(x[1] for x in v),st.median(x[2] for x in v)))
