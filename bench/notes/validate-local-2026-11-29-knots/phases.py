import json,glob,statistics as st,sys,csv,collections
L=sys.argv[1]
pred={}
for f in glob.glob(L+'/prediction-*.ranks.csv'):
    for r in csv.DictReader(open(f)):
        pred[r['configuration']]=(float(r['compute_time_s']),float(r['exposed_comm_time_s']),float(r['step_time_s']),float(r['epoch_time_s']))
cfgs=collections.defaultdict(list)
for f in sorted(glob.glob(L+'/runs/*.json')):
    name=f.split('/')[-1].rsplit('-r',1)[0]
    d=json.load(open(f))
    for r in d['ranks']:
        cfgs[name].append(r)
    cfgs[name+'#epoch'].append(d['epochs'][0]['epoch_time_s'])
print("%-22s %7s %8s %7s %7s %7s %7s | %7s %7s %7s"%("config","fwdbwd","opt+data","ar","sync","step","epoch","p_comp","p_comm","p_step"))
for k in sorted(cfgs):
    if k.endswith('#epoch'): continue
    rs=cfgs[k]
    m=lambda key: st.median(r[key] for r in rs)
    p=pred.get(k,(0,0,0,0))
    print("%-22s %7.4f %7.4f %7.4f %7.4f %7.4f %7.2f | %7.4f %7.4f %7.4f %7.2f"%(k,m('forward_time_s')+m('backward_time_s'),m('optimizer_time_s')+m('data_time_s'),m('allreduce_time_s'),m('sync_time_s'),m('step_time_s'),st.median(cfgs[k+'#epoch']),p[0],p[1],p[2],p[3]))
