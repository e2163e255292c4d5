using System.Globalization;
using PerfLab.Common;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// CPU time of the generator's socket event threads (its own loops', "perflab sockets", or the runtime's, ".NET
/// Sockets"). Those threads run the generator's whole request loop, so one of them busy all the time limits the
/// generator even when the process as a whole uses less than its cores. The lab's loops are read from their thread
/// CPU clocks (nanoseconds, no file read: the window's edges once read every thread's /proc files, enough calls
/// to have the runtime compile the file-reading code again at tier 1 inside the window); the runtime's from
/// /proc/self/task, on Linux.
/// </summary>
internal static class SocketEventThreads
{
    private const string RuntimeThreadName = ".NET Sockets";

    /// <summary>
    /// CPU nanoseconds per event thread id; empty where neither the loops' clocks nor /proc can be read.
    /// <paramref name="onLoops"/>: the requests travel on the lab's loops only, so their clocks are all that is read
    /// (the runtime's socket threads, if any, carry none of them).
    /// </summary>
    public static Dictionary<int, long> CpuNanoseconds(bool onLoops)
    {
        var loops = onLoops ? EpollLoop.ThreadIds : [];
        if (loops.Count == 0)
        {
            return FromProc();
        }
        var times = new Dictionary<int, long>();
        foreach (var tid in loops)
        {
            if (CpuClock.ThreadNanoseconds(tid) is { } ns)
            {
                times[tid] = ns;
            }
        }
        return times;
    }

    /// <summary>CPU nanoseconds (in 10 ms ticks) per thread named as an event thread, from /proc/self/task.</summary>
    internal static Dictionary<int, long> FromProc()
    {
        var times = new Dictionary<int, long>();
        if (!OperatingSystem.IsLinux())
        {
            return times;
        }
        try
        {
            foreach (var task in Directory.EnumerateDirectories("/proc/self/task"))
            {
                var name = File.ReadAllText(Path.Combine(task, "comm")).TrimEnd('\n');
                if (name is not (RuntimeThreadName or EpollLoop.ThreadName))
                {
                    continue;
                }
                var ticks = ProcStat.Read(Path.Combine(task, "stat")).CpuTicks;
                times[int.Parse(Path.GetFileName(task), CultureInfo.InvariantCulture)] = (long)(ticks * (1e9 / ProcStat.TicksPerSecond));
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException)
        {
            // A thread ended while being read, or /proc is unusual: the figure is then a lower bound.
        }
        return times;
    }

    /// <summary>The busiest event thread's share of <paramref name="wallSeconds"/> between two readings (0..1).</summary>
    public static double BusiestShare(Dictionary<int, long> before, Dictionary<int, long> after, double wallSeconds)
    {
        if (wallSeconds <= 0)
        {
            return 0;
        }
        long busiest = 0;
        foreach (var (tid, ns) in after)
        {
            busiest = Math.Max(busiest, ns - before.GetValueOrDefault(tid));
        }
        return Math.Min(1, busiest / 1e9 / wallSeconds);
    }
}
