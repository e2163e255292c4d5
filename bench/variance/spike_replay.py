"""Replays the spike rule (docs/cost.md, "Spikes") on runs' results.json: each CPU-bound comparison's change and 95 %
interval from its blocks' full-speed cost per request, over every slot and then without the spikes (a slot over 1.5
times its run's median slot, where a run has three or more). Blocks alone (t over the blocks), without the slots' bound
perflab adds under an interval, so a figure here can be narrower than the report's.
  python3 bench/variance/spike_replay.py OUT/results.json...
"""
import json,math,statistics as st,sys
T={1:12.706,2:4.303,3:3.182,4:2.776,5:2.571,6:2.447,7:2.365,8:2.306,9:2.262,10:2.228}  # t at 95 %, by degrees of freedom
def fs(w): return (w['appCpuSeconds']+(w['databaseCpuSeconds'] or 0))*1000/w['requests']/w['slowdown']
def cost(ws,rule):
    if rule and len(ws)>=3:
        m=st.median(fs(w) for w in ws); ws=[w for w in ws if fs(w)<=1.5*m]
    return sum((w['appCpuSeconds']+(w['databaseCpuSeconds'] or 0))/w['slowdown'] for w in ws)*1000/sum(w['requests'] for w in ws)
for path in sys.argv[1:]:
  r=json.load(open(path))
  for e in r['experiments']:
    if e['name'] not in ('gc','gc-aa','logging','serializer','platform'): continue
    base=e['baseline']; blocks={}
    spikes=0; n=0
    for x in e['runs']:
      c=x.get('cost')
      if c and c.get('windows'):
        blocks.setdefault(x['repetition'],{})[x['variant']]=c['windows']
        ws=c['windows']; n+=len(ws)
        if len(ws)>=3:
          m=st.median(fs(w) for w in ws); spikes+=sum(fs(w)>1.5*m for w in ws)
    out=[]
    for v in sorted({v for b in blocks.values() for v in b}-{base}):
      row=[]
      for rule in (False,True):
        xs=[math.log(cost(b[v],rule)/cost(b[base],rule)) for b in blocks.values() if v in b and base in b]
        m=st.mean(xs); h=T.get(len(xs)-1,2.2)*st.stdev(xs)/math.sqrt(len(xs))
        row.append('%+.1f %% [%+.1f, %+.1f]'%(100*(math.exp(m)-1),100*(math.exp(m-h)-1),100*(math.exp(m+h)-1)))
      out.append('%s: %s -> %s'%(v[:14],row[0],row[1]))
    print('%-12s %-10s spikes %d of %d | %s'%(path.split('/')[-2],e['name'],spikes,n,' | '.join(out)))
