# patch.py LOOP OUT: copies a loop's profiles into OUT/profiles, giving each profile a started_utc
# 90 s before the first profile of its pass was written (the trainer now records when its process
# started; loops before it did not). Passes are >= 4 minutes apart, so no two passes overlap.
import json,glob,re,sys,os,datetime as dt
L,O=sys.argv[1:3]; os.makedirs(O+'/profiles',exist_ok=True)
fs=glob.glob(L+'/profiles/*.json'); first={}
P=lambda s: dt.datetime.strptime(s,'%Y-%m-%dT%H:%M:%SZ')
for f in fs:
  m=re.search(r'pass(\d+)',f)
  if m: c=P(json.load(open(f))['context']['created_utc']); k=m.group(1); first[k]=min(first.get(k,c),c)
for f in fs:
  d=json.load(open(f)); m=re.search(r'pass(\d+)',f)
  if m: d['context']['started_utc']=(first[m.group(1)]-dt.timedelta(seconds=90)).strftime('%Y-%m-%dT%H:%M:%SZ')
  json.dump(d,open(O+'/profiles/'+os.path.basename(f),'w'))
