"""CPU-seconds by kind of process while something runs (a CI, a suite): every process's utime + stime read from
/proc/PID/stat every 0.5 s, its last reading kept, summed by its command line's kind (the SUT, perflab, the test host,
MSBuild, PostgreSQL, ...) until STOP exists; the table goes to OUT. docs/benchmarks/tests.md.
  python3 bench/tests/cpu_by_process.py STOP OUT &  (then the work, then touch STOP)
"""
import collections, os, sys, time
stop=sys.argv[1]; out=sys.argv[2]
hz=os.sysconf('SC_CLK_TCK')
seen={}  # pid,starttime -> (cat, max ticks)
def cat(cmd,comm):
    for k,c in [('PerfLab.Sut.dll','sut'),('perflab.dll','perflab'),('testhost','testhost'),('TinyShop','tinyshop'),
                ('MSBuild','msbuild'),('csc.dll','csc'),('VBCSCompiler','csc'),('postgres','postgres'),('chrom','chromium'),
                ('BlockingApp','blockingapp'),('dotnet test','dotnet-test'),('vstest','vstest'),('sshd','sshd'),('npm','npm'),('node','node')]:
        if k in cmd: return c
    return 'comm:'+comm
while not os.path.exists(stop):
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            st=open('/proc/%s/stat'%pid).read()
            r=st.rsplit(')',1)[1].split()
            comm=st.split('(',1)[1].rsplit(')',1)[0]
            ticks=int(r[11])+int(r[12]); start=r[19]
            key=(pid,start)
            if key not in seen:
                cmd=open('/proc/%s/cmdline'%pid).read().replace('\0',' ')
                seen[key]=[cat(cmd,comm),ticks]
            else: seen[key][1]=max(seen[key][1],ticks)
        except Exception: pass
    time.sleep(0.5)
tot=collections.Counter(); n=collections.Counter()
for (c,t) in seen.values(): tot[c]+=t/hz; n[c]+=1
with open(out,'w') as f:
    for c,v in tot.most_common(30): f.write('%-22s %7.0f CPU-s over %d processes\n'%(c,v,n[c]))
    f.write('total %7.0f\n'%sum(tot.values()))
