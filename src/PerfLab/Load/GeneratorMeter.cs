using System.Diagnostics;

namespace PerfLab.Load;

/// <summary>The load generator's own CPU, allocations and busiest socket event thread over the measured window.</summary>
internal sealed class GeneratorMeter
{
    private readonly TimeSpan _cpuAtStart;
    private readonly long _allocatedAtStart;
    private readonly Dictionary<int, long> _eventTicksAtStart;

    private GeneratorMeter()
    {
        using var process = Process.GetCurrentProcess();
        _cpuAtStart = process.TotalProcessorTime;
        _allocatedAtStart = GC.GetTotalAllocatedBytes();
        _eventTicksAtStart = SocketEventThreads.CpuTicks();
    }

    public static GeneratorMeter Start() => new();

    public GeneratorUsage Stop(long measureStart, long ended, long requests, string transport)
    {
        using var process = Process.GetCurrentProcess();
        var cpuSeconds = (process.TotalProcessorTime - _cpuAtStart).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes() - _allocatedAtStart;
        var wallSeconds = Stopwatch.GetElapsedTime(measureStart, ended).TotalSeconds;
        var eventThreadBusy = SocketEventThreads.BusiestShare(_eventTicksAtStart, SocketEventThreads.CpuTicks(), wallSeconds);
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
