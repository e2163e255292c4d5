using System.Globalization;
using PerfLab.Common;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// CPU time of the generator's socket event threads (its own loops', "perflab sockets", or the runtime's, ".NET
/// Sockets"), read from /proc/self/task on Linux. Those threads run the generator's whole request loop, so one of
/// them busy all the time limits the generator even when the process as a whole uses less than its cores.
/// </summary>
internal static class SocketEventThreads
{
    private const string RuntimeThreadName = ".NET Sockets";

    /// <summary>User + system ticks per event thread id; empty where /proc is not available.</summary>
    public static Dictionary<int, long> CpuTicks()
    {
        var ticks = new Dictionary<int, long>();
        if (!OperatingSystem.IsLinux())
        {
            return ticks;
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
                ticks[int.Parse(Path.GetFileName(task), CultureInfo.InvariantCulture)] = ProcStat.Read(Path.Combine(task, "stat")).CpuTicks;
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException)
        {
            // A thread ended while being read, or /proc is unusual: the figure is then a lower bound.
        }
        return ticks;
    }

    /// <summary>The busiest event thread's share of <paramref name="wallSeconds"/> between two readings (0..1).</summary>
    public static double BusiestShare(Dictionary<int, long> before, Dictionary<int, long> after, double wallSeconds)
    {
        if (wallSeconds <= 0)
        {
            return 0;
        }
        long busiest = 0;
        foreach (var (tid, ticks) in after)
        {
            busiest = Math.Max(busiest, ticks - before.GetValueOrDefault(tid));
        }
        return Math.Min(1, busiest / ProcStat.TicksPerSecond / wallSeconds);
    }
}
