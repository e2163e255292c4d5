using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace PerfLab.Tracing;

/// <summary>
/// CPU samples. The runtime's sampler (Microsoft-DotNETCore-SampleProfiler) suspends the runtime every interval and
/// writes one event per managed thread, whatever it is doing; the payload says Managed when the thread was running
/// managed code (cooperative mode) and External when it was outside it: blocked in a wait, asleep, or in native code
/// (a syscall, the GC's native work). Rule used here: only Managed samples are CPU; External samples are waiting time,
/// used for the blocking-wait analysis. Three honest limits follow: a Managed thread the OS has descheduled still counts
/// (on an oversubscribed machine CPU is overstated), native CPU (syscalls, JIT, the GC) is not in the samples, and
/// threads are stopped at GC-safe points, so a tight loop's samples land on its poll (Thread.PollGC) rather than
/// spread over the loop body. Checked against the SUT's own CPU time on a shared 2-core machine (TraceCulpritTests,
/// several runs): the sampled CPU was 1.0x-1.4x the process's with the locked console, 1.3x-1.8x with eight threads
/// spinning on a lock, 0.7x-1.3x on gc-heavy, and 0.2x-0.9x where most CPU was native (sockets, epoll, timers).
/// So the shares are the finding; milliseconds are a sampled estimate, to be scaled by measured CPU where known.
/// </summary>
internal sealed class SampleTally(ComponentClassifier classifier)
{
    private readonly Dictionary<string[], (long Managed, long External)> _byStack = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<int, (long Count, double First, double Last)> _byThread = [];
    private double _first = double.MaxValue;
    private double _last;

    public long Cpu { get; private set; }
    public long Waiting { get; private set; }
    public double SpanMs => _last > _first ? _last - _first : 0;

    /// <summary>
    /// Time between ticks: every thread is sampled once per tick, so the longest-lived thread's samples give it (the
    /// runtime sleeps 1 ms between ticks by default, plus the time it takes to suspend and walk every thread). A waiting
    /// sample stands for this much time. With <paramref name="gcPausedMs"/>, the time a CPU sample stands for: no
    /// managed code runs while a GC has the runtime suspended, so the pauses come out of the span; left in, they
    /// would be spread over every sampled component and then counted again as the GC's own time.
    /// </summary>
    public double IntervalMs(double gcPausedMs = 0)
    {
        var longest = _byThread.Values.Where(t => t.Count > 1).OrderByDescending(t => t.Count).FirstOrDefault();
        if (longest.Count <= 100)
        {
            return 1.0;
        }
        var span = longest.Last - longest.First;
        // Pauses outside this thread's life could exceed its span; a tenth of the span is the floor.
        return Math.Max(span - gcPausedMs, span / 10) / (longest.Count - 1);
    }

    /// <summary>Share of on-CPU samples with no named frame at all: the trace lacks the events that name methods.</summary>
    public double UnnamedShare => Cpu == 0 ? 0 :
        (double)_byStack.Where(s => s.Key.All(f => FrameNames.MethodPart(f) == "?")).Sum(s => s.Value.Managed) / Cpu;

    public double GcSampleShare => Cpu == 0 ? 0 :
        (double)_byStack.Where(s => classifier.Classify(s.Key) == Component.Gc).Sum(s => s.Value.Managed) / Cpu;

    public void Add(int thread, double ms, bool managed, string[] frames)
    {
        _first = Math.Min(_first, ms);
        _last = Math.Max(_last, ms);
        var t = _byThread.GetValueOrDefault(thread, (0, ms, ms));
        _byThread[thread] = (t.Count + 1, t.First, ms);
        var counts = _byStack.GetValueOrDefault(frames);
        _byStack[frames] = managed ? (counts.Managed + 1, counts.External) : (counts.Managed, counts.External + 1);
        if (managed)
        {
            Cpu++;
        }
        else
        {
            Waiting++;
        }
    }

    /// <summary>
    /// CPU ms by component: Managed samples times the interval, plus the GC's CPU as Gc. The sampler suspends the
    /// runtime to take a sample, so it cannot sample during a GC pause: the GC's work in its pauses is the CPU the
    /// samples miss (<see cref="GcTally"/> says how it is estimated).
    /// </summary>
    public List<ComponentTime> Components(double intervalMs, double gcCpuMs)
    {
        var samples = new Dictionary<Component, long>();
        var heaviest = new Dictionary<Component, SampledStack>();
        foreach (var stack in Stacks())
        {
            var component = classifier.Classify(stack.Frames);
            samples[component] = samples.GetValueOrDefault(component) + stack.Samples;
            heaviest.TryAdd(component, stack);
        }
        var ms = samples.ToDictionary(s => s.Key, s => s.Value * intervalMs);
        ms[Component.Gc] = ms.GetValueOrDefault(Component.Gc) + gcCpuMs;
        var total = ms.Values.Sum();
        return ms.Where(m => m.Value > 0).OrderByDescending(m => m.Value)
            .Select(m => new ComponentTime(m.Key, m.Value, samples.GetValueOrDefault(m.Key), total > 0 ? m.Value / total : 0,
                heaviest.GetValueOrDefault(m.Key)))
            .ToList();
    }

    /// <summary>Distinct on-CPU stacks (merged by name), heaviest first; samples that came without a stack are left out.</summary>
    public List<SampledStack> Stacks() =>
        _byStack.Where(s => s.Value.Managed > 0 && s.Key.Length > 0)
            .GroupBy(s => string.Join('\n', s.Key))
            .Select(g => new SampledStack(g.First().Key, g.Sum(s => s.Value.Managed)))
            .OrderByDescending(s => s.Samples)
            .ToList();
}

/// <summary>Lock contention, paired per thread: ContentionStart opens a wait, ContentionStop closes it.</summary>
internal sealed class ContentionTally(int exampleFrames, AppCode? app = null)
{
    private readonly Dictionary<int, (double Ms, string[] Frames)> _open = [];
    private readonly Dictionary<string, (long Count, double Ms, string[] Example)> _sites = [];

    public void Start(int thread, double ms, string[] frames) => _open[thread] = (ms, frames);

    /// <param name="durationNs">ContentionStop's own duration (.NET 8+); 0 on older runtimes, then the pair's distance counts.</param>
    public void Stop(int thread, double ms, double durationNs, string[] frames)
    {
        var opened = _open.Remove(thread, out var start);
        if (!opened && durationNs <= 0)
        {
            return; // the wait began before the trace and its length is unknown
        }
        var blocked = durationNs > 0 ? durationNs / 1e6 : ms - start.Ms;
        var stack = opened && start.Frames.Length > 0 ? start.Frames : frames;
        if (FrameNames.OutermostBlockingWait(stack) >= 0)
        {
            // A thread woken from Task.Wait() takes the event's own lock (Monitor.Wait inside ManualResetEventSlim):
            // that collision belongs to the blocking wait, which the wait analysis reports at its caller.
            return;
        }
        var site = FrameNames.CallSite(stack, stack.Length - 1);
        var key = site >= 0 ? stack[site] : "?";
        var previous = _sites.GetValueOrDefault(key, (0, 0, stack));
        _sites[key] = (previous.Count + 1, previous.Ms + blocked, previous.Example);
    }

    /// <summary>
    /// Contention events only see threads that gave up spinning and blocked; a lock's waiters first spin on a CPU.
    /// On-CPU stacks inside a lock's slow path (<paramref name="cpuStacks"/>) add that CPU to the same call sites.
    /// </summary>
    public List<ContentionSite> Sites(IEnumerable<SampledStack> cpuStacks, double sampleMs)
    {
        var spins = new Dictionary<string, (long Samples, string[] Example)>();
        foreach (var stack in cpuStacks)
        {
            var frames = stack.Frames as string[] ?? stack.Frames.ToArray();
            var acquire = FrameNames.OutermostLockSpin(frames);
            if (acquire < 0 || FrameNames.OutermostBlockingWait(frames) >= 0)
            {
                continue;
            }
            var site = FrameNames.CallSite(frames, acquire - 1);
            if (site < 0)
            {
                continue; // an unnamed site points nowhere
            }
            var key = frames[site];
            var previous = spins.GetValueOrDefault(key, (0, frames));
            spins[key] = (previous.Samples + stack.Samples, previous.Example);
        }
        return _sites.Keys.Union(spins.Keys)
            .Select(key => Site(key, _sites.GetValueOrDefault(key), spins.GetValueOrDefault(key), sampleMs))
            .OrderByDescending(s => s.BlockedMs + s.AcquireCpuMs)
            .ToList();
    }

    private ContentionSite Site(string key, (long Count, double Ms, string[]? Example) blocked,
        (long Samples, string[]? Example) spin, double sampleMs)
    {
        var example = blocked.Example ?? spin.Example ?? [];
        return new ContentionSite(FrameNames.Place(key), FrameNames.MethodPart(key), blocked.Count, blocked.Ms,
            example.TakeLast(exampleFrames).ToList(), FrameNames.InnermostApp(example, example.Length - 1, app),
            spin.Samples * sampleMs);
    }
}

/// <summary>
/// GC counts by generation and pause time (SuspendEE for a GC to the RestartEE that ends it). The GC's CPU in the
/// breakdown is the pause time counted once. Server GC's threads, one per heap, work through a pause in parallel, so
/// its CPU can reach the pause times the heaps (GCGlobalHeapHistory, which comes before the restart): that is kept as
/// the upper bound. Measured on the 2-core machine (gc-heavy, server GC at 2 heaps, TraceCulpritTests), the process's
/// own CPU matched the breakdown with pauses counted once within 5 % in one run, and with pauses times heaps within
/// 1 % in another: the truth lies between, so findings give both. Background gen2 work outside the pause is in neither.
/// </summary>
internal sealed class GcTally
{
    private readonly int[] _counts = new int[3];
    private double? _suspendedAt;
    private int _heaps;
    private int _currentHeaps = 1;

    public double PauseMs { get; private set; }
    public double CpuUpperMs { get; private set; }

    public void Start(int depth) => _counts[Math.Clamp(depth, 0, 2)]++;

    public void Suspend(GCSuspendEEReason reason, double ms)
    {
        // The sampler suspends the runtime too (reason SuspendOther) every interval: only GC suspensions are pauses.
        if (reason is GCSuspendEEReason.SuspendForGC or GCSuspendEEReason.SuspendForGCPrep)
        {
            _suspendedAt = ms;
        }
    }

    public void Restart(double ms)
    {
        if (_suspendedAt is { } at)
        {
            PauseMs += ms - at;
            CpuUpperMs += (ms - at) * _currentHeaps;
            _suspendedAt = null;
        }
    }

    public void Heaps(int heaps)
    {
        _currentHeaps = Math.Max(1, heaps);
        _heaps = Math.Max(_heaps, heaps);
    }

    public GcSummary Summary(double tracedMs, double cpuMs, double sampleShare)
    {
        // The trace names no GC mode, only heap counts: more than one heap is server GC; one heap is workstation GC or
        // server GC that DATAS (the .NET 9+ default) has kept at one heap, and the two behave alike at that size.
        var mode = _heaps > 1 ? "server" : _heaps == 1 ? "one heap" : "unknown";
        var upperTotal = cpuMs - PauseMs + CpuUpperMs;
        return new GcSummary(_counts.ToList(), PauseMs, tracedMs > 0 ? PauseMs / tracedMs : 0, PauseMs, CpuUpperMs,
            cpuMs > 0 ? PauseMs / cpuMs : 0, upperTotal > 0 ? CpuUpperMs / upperTotal : 0, sampleShare, _heaps, mode);
    }
}

/// <summary>Thread-pool worker adjustments: how often the pool injected threads because of starvation, and its peak size.</summary>
internal sealed class ThreadPoolTally
{
    // ThreadAdjustmentReason values of the runtime's manifest, as numbers so CooperativeBlocking (.NET 6+) counts too.
    private const int StarvationReason = 6;
    private const int CooperativeBlockingReason = 8;
    private int _starvation;
    private int _blocking;
    private int _adjustments;
    private int _maxWorkers;

    public void Adjust(int reason, long newWorkerCount)
    {
        _adjustments++;
        _starvation += reason == StarvationReason ? 1 : 0;
        _blocking += reason == CooperativeBlockingReason ? 1 : 0;
        Observe(newWorkerCount);
    }

    public void Observe(long workers) => _maxWorkers = Math.Max(_maxWorkers, (int)workers);

    public ThreadPoolSummary Summary() => new(_starvation, _blocking, _adjustments, _maxWorkers);
}
