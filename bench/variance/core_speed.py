#!/usr/bin/env python3
"""How fast the cores run, second by second, on the CPU clock (no load is sent anywhere).

  bench/variance/core_speed.py cores [SECONDS]   a fixed task on CPU 0 and CPU 1 at once: each core's speed over time
                                                 (CV per 0.5 s) and whether the two move together
  bench/variance/core_speed.py probe [SECONDS]   on CPU 0, a small fixed task (the probe) alternating with different work
                                                 (JSON, sorting): whether the probe's slowdowns are the work's
  bench/variance/core_speed.py neighbour         a fixed task on CPU 0 with CPU 1 idle, busy (a bounded busy loop), idle
                                                 again: whether one core slows the other
Each run is bounded by SECONDS (default 20 and 30)."""
import json, os, random, statistics as st, sys, time


def buckets(ts, xs, width):
    d = {}
    for t, x in zip(ts, xs):
        d.setdefault(int(t / width), []).append(x)
    return {k: st.mean(v) for k, v in d.items() if len(v) > 3}


def spin(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def one_core(cpu, seconds, out):
    os.sched_setaffinity(0, {cpu})
    ts, cs = [], []
    end = time.time() + seconds
    while time.time() < end:
        c0 = time.thread_time()
        spin(300_000)
        ts.append(time.time())
        cs.append(time.thread_time() - c0)
    json.dump([ts, cs], open(out, "w"))


def cores(seconds):
    pids = []
    for cpu in (0, 1):
        pid = os.fork()
        if pid == 0:
            one_core(cpu, seconds, f"/tmp/core_speed_{cpu}.json")
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    a, b = (buckets(*json.load(open(f"/tmp/core_speed_{c}.json")), 0.5) for c in (0, 1))
    keys = sorted(set(a) & set(b))
    xa, xb = [a[k] for k in keys], [b[k] for k in keys]
    print(f"{len(keys)} half-seconds: CPU 0 CV {st.stdev(xa) / st.mean(xa) * 100:.1f} %, CPU 1 CV {st.stdev(xb) / st.mean(xb) * 100:.1f} %, "
          f"correlation {st.correlation(xa, xb):+.2f}")
    print("ms per task, CPU 0/CPU 1, by half-second:", " ".join(f"{a[k] * 1000:.0f}/{b[k] * 1000:.0f}" for k in keys[:40]))


def probe(seconds):
    os.sched_setaffinity(0, {0})
    data = [{"id": i, "name": f"customer {i}", "total": i * 1.5, "lines": [{"p": j, "q": j * 2} for j in range(5)]} for i in range(60)]
    arr = [random.random() for _ in range(20000)]
    ts, ps, ws = [], [], []
    end = time.time() + seconds
    while time.time() < end:
        c0 = time.thread_time()
        spin(30_000)
        c1 = time.thread_time()
        json.loads(json.dumps(data))
        sorted(arr)
        c2 = time.thread_time()
        ts.append(time.time()); ps.append(c1 - c0); ws.append(c2 - c1)
    for width in (0.25, 1.0):
        p, w = buckets(ts, ps, width), buckets(ts, ws, width)
        keys = sorted(set(p) & set(w))
        xp, xw = [p[k] for k in keys], [w[k] for k in keys]
        r = [y / x for x, y in zip(xp, xw)]
        print(f"{width} s: probe CV {st.stdev(xp) / st.mean(xp) * 100:.1f} %, work CV {st.stdev(xw) / st.mean(xw) * 100:.1f} %, "
              f"work/probe CV {st.stdev(r) / st.mean(r) * 100:.1f} %, correlation {st.correlation(xp, xw):+.2f}")


def neighbour(_seconds):
    os.sched_setaffinity(0, {0})

    def task_seconds():
        runs = []
        for _ in range(6):
            c0 = time.thread_time()
            spin(3_000_000)
            runs.append(time.thread_time() - c0)
        return f"min {min(runs):.3f} s, median {sorted(runs)[3]:.3f} s"

    import subprocess
    print("CPU 1 idle:", task_seconds())
    # The busy loop is bounded by timeout and killed as a group, so no loop outlives the script.
    hog = subprocess.Popen(["taskset", "-c", "1", "timeout", "20", "sh", "-c", "while :; do :; done"], start_new_session=True)
    try:
        time.sleep(0.5)
        print("CPU 1 busy:", task_seconds())
    finally:
        os.killpg(hog.pid, 9)
        hog.wait()
    time.sleep(0.5)
    print("CPU 1 idle:", task_seconds())


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("cores", "probe", "neighbour"):
        print(__doc__)
        sys.exit(2)
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else (20 if mode == "cores" else 30)
    {"cores": cores, "probe": probe, "neighbour": neighbour}[mode](seconds)
