import sys,json,glob,statistics as st,collections
d=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    kind,rate,rnd=f.split('/')[-1][:-5].split('-')
    for p in json.load(open(f))['allreduce'][0]['points']:
        d[(rate,int(p['message_bytes']),kind)].append(p['time_s']*1e3)
print('rate     MiB  median-of-iterations (4 runs)         mean-of-iterations (4 runs)        ratio of medians')
for rate in ('400mbit','100mbit'):
    for b in sorted({k[1] for k in d if k[0]==rate}):
        a=d[(rate,b,'median')]; m=d[(rate,b,'mean')]
        print('%-8s %3d  %-36s %-36s %.3f'%(rate,b>>20,' '.join('%.1f'%x for x in a),' '.join('%.1f'%x for x in m),st.median(m)/st.median(a)))
