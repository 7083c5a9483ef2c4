import json,glob,statistics as st
def prof(f):
    d=json.load(open(f)); out={}
    for m in d['compute']:
        fb=sum(l['forward_time_s']+l['backward_time_s'] for l in m['layers'])
        out[m['micro_batch']]=(fb*1e3,m['optimizer_time_s']*1e3,m['data_time_s']*1e3)
    return out
for r in (1,2,3):
    for k in ('alone','pair0','pair1'):
        try: p=prof(f'/tmp/ab-peer/{k}-{r}.json')
        except Exception as e: continue
        print(r,k,' '.join(f"mb{b}: fb {v[0]:.1f} opt {v[1]:.1f} data {v[2]:.1f}" for b,v in sorted(p.items())))
    try:
        d=json.load(open(f'/tmp/ab-peer/run2-{r}.json'))
        for x in d['ranks']:
            print(r,'run2 rank',x.get('rank'),f"fb {(x['forward_time_s']+x['backward_time_s'])*1e3:.1f} opt {x['optimizer_time_s']*1e3:.1f} data {x['data_time_s']*1e3:.1f}")
    except Exception as e: print(e)
