using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

using PerfLab.Common;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// How fast each core runs right now, sampled all along: a thread pinned to each core wakes every
/// <see cref="Interval"/> and times one fixed unit of work on its own CPU clock (about 0.1 ms at full speed, so under
/// 1 % of a core). A shared host slows a core (a busy sibling hyperthread, its frequency) in stretches of seconds, by
/// up to 1.7x on this kind of machine, each core on its own; CPU time charged in such a stretch is inflated with it,
/// and that is much of what makes CPU per request vary from slot to slot and run to run. <see cref="Read"/> gives cumulative figures;
/// two readings give a window's slowdown (<see cref="SlowdownBetween"/>), weighted by how busy each core was.
/// </summary>
public sealed class CoreSpeed
{
    public static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(25);

    private static readonly Lazy<CoreSpeed?> SharedInstance = new(Start);

    private readonly int[] _cpus;
    private readonly long[] _unitNs;
    private readonly long[] _units;
    private readonly long _started = Environment.TickCount64;
    private long _fastestNs = long.MaxValue;
    private long _referenceNs;

    private CoreSpeed(int[] cpus)
    {
        _cpus = cpus;
        _unitNs = new long[cpus.Length];
        _units = new long[cpus.Length];
    }

    /// <summary>A sampler that samples nothing, its reference given: for reading windows of known figures.</summary>
    internal CoreSpeed(int[] cpus, long referenceNs)
        : this(cpus)
    {
        _referenceNs = referenceNs;
    }

    /// <summary>
    /// The process's one sampler over the CPUs it may use; null off Linux. A core its thread cannot be pinned to is not
    /// sampled.
    /// </summary>
    public static CoreSpeed? Shared => SharedInstance.Value;

    /// <summary>How long the sampler looks for its reference before it is fixed.</summary>
    public static readonly TimeSpan ReferencePeriod = TimeSpan.FromSeconds(2);

    /// <summary>
    /// The fastest unit of any core in the sampler's first <see cref="ReferencePeriod"/> (ns), fixed from then on so
    /// that every window of the invocation is measured against the same full speed; 0 until then.
    /// </summary>
    public long ReferenceNs => Volatile.Read(ref _referenceNs);

    /// <summary>The cumulative figures now: per core, the CPU time of the units timed and their count; and its busy ticks.</summary>
    public Reading Read()
    {
        var busy = ProcStatCpus.BusyTicks();
        var ns = new long[_cpus.Length];
        var units = new long[_cpus.Length];
        var weights = new long[_cpus.Length];
        for (var i = 0; i < _cpus.Length; i++)
        {
            ns[i] = Interlocked.Read(ref _unitNs[i]);
            units[i] = Interlocked.Read(ref _units[i]);
            weights[i] = busy is not null && _cpus[i] < busy.Length ? busy[_cpus[i]] : 0;
        }
        return new Reading(ns, units, weights);
    }

    /// <summary>
    /// The window's slowdown: each core's mean unit time in it over its fastest, averaged with the core's busy ticks in
    /// the window as weights (equal weights when the ticks are not known); 1 is full speed. Null without samples.
    /// </summary>
    public double? SlowdownBetween(Reading from, Reading to)
    {
        var reference = ReferenceNs;
        if (reference <= 0)
        {
            return null;
        }
        double weighted = 0, weights = 0;
        var ticksKnown = to.BusyTicks.Zip(from.BusyTicks).Sum(p => p.First - p.Second) > 0;
        for (var i = 0; i < _cpus.Length; i++)
        {
            var units = to.Units[i] - from.Units[i];
            if (units <= 0)
            {
                continue;
            }
            var slowdown = (to.UnitNs[i] - from.UnitNs[i]) / (double)units / reference;
            var weight = ticksKnown ? to.BusyTicks[i] - from.BusyTicks[i] : 1;
            weighted += slowdown * weight;
            weights += weight;
        }
        return weights > 0 ? weighted / weights : null;
    }

    private static CoreSpeed? Start()
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }
        var speed = new CoreSpeed([.. CpuList.Allowed()]);
        for (var i = 0; i < speed._cpus.Length; i++)
        {
            var core = i;
            new Thread(() => speed.Sample(core)) { IsBackground = true, Name = $"perflab core speed {speed._cpus[core]}" }.Start();
        }
        return speed;
    }

    private void Sample(int core)
    {
        if (!PinCurrentThread(_cpus[core]))
        {
            return;
        }
        var memory = new ulong[WorkWords];
        // For the process's lifetime (a background thread): the sampler is one per process.
        while (true)
        {
            var started = CpuClock.CurrentThreadNanoseconds();
            Unit(memory);
            var ns = CpuClock.CurrentThreadNanoseconds() - started;
            Interlocked.Add(ref _unitNs[core], ns);
            Interlocked.Increment(ref _units[core]);
            Reference(ns);
            Thread.Sleep(Interval);
        }
    }

    private void Reference(long ns)
    {
        if (Volatile.Read(ref _referenceNs) > 0)
        {
            return;
        }
        if (Environment.TickCount64 - _started < ReferencePeriod.TotalMilliseconds)
        {
            long seen;
            while (ns < (seen = Interlocked.Read(ref _fastestNs)) && Interlocked.CompareExchange(ref _fastestNs, ns, seen) != seen)
            {
            }
            return;
        }
        var fastest = Interlocked.Read(ref _fastestNs);
        Interlocked.CompareExchange(ref _referenceNs, fastest == long.MaxValue ? ns : fastest, 0);
    }

    private const int WorkWords = 8192; // 64 KB: L1 and L2, as a request's working set mostly is

    /// <summary>
    /// One unit: integer mixing, dependent loads and stores over 64 KB and a data-dependent branch, so that it slows as
    /// request-handling code slows (not only the ALU); compiled fully optimized at once so its speed never changes tier.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization | MethodImplOptions.NoInlining)]
    internal static ulong Unit(ulong[] memory)
    {
        var x = 0x9E3779B97F4A7C15UL;
        for (var i = 0; i < 12_000; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ref var slot = ref memory[(int)(x & (WorkWords - 1))];
            slot = slot * 31 + x;
            if ((slot & 4) == 0)
            {
                x += slot;
            }
        }
        return x;
    }

    private static bool PinCurrentThread(int cpu)
    {
        var mask = new ulong[(cpu / 64) + 1];
        mask[cpu / 64] = 1UL << (cpu % 64);
        return sched_setaffinity(0, (nint)(mask.Length * sizeof(ulong)), mask) == 0;
    }

#pragma warning disable SYSLIB1054 // DllImport keeps the project free of unsafe code; this marshals trivially.
    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, nint size, ulong[] mask);
#pragma warning restore SYSLIB1054

    /// <summary>Cumulative figures per sampled core, in the order of the cores sampled.</summary>
    public sealed record Reading(long[] UnitNs, long[] Units, long[] BusyTicks);
}
