using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>
/// The load generator's own CPU, allocations and busiest socket event thread over the measured window. The process's
/// CPU comes from its CPU clock (<see cref="CpuClock"/>: one clock_gettime, to the nanosecond), not from
/// Process.TotalProcessorTime, which parses /proc/self/stat in 10 ms ticks: at the ~2,500 requests a second of a JSON
/// endpoint a tick at each end of a 10 s window is ±0.4 µs a request, and that parsing (a Process object, file reads,
/// string splits) ran at the window's start, where its first calls past the runtime's call count were compiled again
/// at tier 1 inside the window.
/// </summary>
internal sealed class GeneratorMeter
{
    private readonly long _cpuAtStart;
    private readonly long _allocatedAtStart;
    private readonly bool _onLoops;
    private readonly Dictionary<int, long> _eventNsAtStart;

    private GeneratorMeter(bool onLoops)
    {
        _cpuAtStart = ProcessCpuNanoseconds();
        _allocatedAtStart = GC.GetTotalAllocatedBytes();
        _onLoops = onLoops;
        _eventNsAtStart = SocketEventThreads.CpuNanoseconds(onLoops);
    }

    /// <param name="onLoops">Every scenario's requests travel on the lab's event loops: only their threads are read.</param>
    public static GeneratorMeter Start(bool onLoops) => new(onLoops);

    /// <summary>This process's CPU time so far (every thread, user + system) in nanoseconds.</summary>
    internal static long ProcessCpuNanoseconds()
    {
        if (OperatingSystem.IsLinux() && CpuClock.ProcessNanoseconds(Environment.ProcessId) is { } ns)
        {
            return ns;
        }
        using var process = Process.GetCurrentProcess(); // elsewhere the runtime's reading
        return process.TotalProcessorTime.Ticks * 100;
    }

    public GeneratorUsage Stop(long measureStart, long ended, long requests, string transport)
    {
        var cpuSeconds = (ProcessCpuNanoseconds() - _cpuAtStart) / 1e9;
        var allocated = GC.GetTotalAllocatedBytes() - _allocatedAtStart;
        var wallSeconds = Stopwatch.GetElapsedTime(measureStart, ended).TotalSeconds;
        var eventThreadBusy = SocketEventThreads.BusiestShare(_eventNsAtStart, SocketEventThreads.CpuNanoseconds(_onLoops), wallSeconds);
        var cores = Environment.ProcessorCount;
        var coresUsed = wallSeconds > 0 ? cpuSeconds / wallSeconds : 0;
        return new GeneratorUsage(cpuSeconds, wallSeconds, coresUsed, cores,
            coresUsed >= GeneratorUsage.SaturationThreshold * cores || eventThreadBusy >= GeneratorUsage.SaturationThreshold,
            requests > 0 ? cpuSeconds * 1e6 / requests : 0,
            requests > 0 ? allocated / (double)requests : 0,
            eventThreadBusy,
            transport);
    }
}
