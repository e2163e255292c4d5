using System.Globalization;

namespace PerfLab.Common;

/// <summary>Each CPU's busy time so far, from /proc/stat's cpuN lines (user, nice, system, irq and softirq ticks).</summary>
public static class ProcStatCpus
{
    /// <summary>Busy ticks indexed by CPU number; null where /proc/stat cannot be read.</summary>
    public static long[]? BusyTicks()
    {
        try
        {
            var busy = new SortedDictionary<int, long>();
            foreach (var line in File.ReadLines("/proc/stat"))
            {
                if (!line.StartsWith("cpu", StringComparison.Ordinal) || line.Length < 4 || !char.IsAsciiDigit(line[3]))
                {
                    continue;
                }
                var f = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                var ticks = f.Skip(1).Select(v => long.Parse(v, CultureInfo.InvariantCulture)).ToArray();
                // user, nice, system, idle, iowait, irq, softirq, ...
                busy[int.Parse(f[0].AsSpan(3), CultureInfo.InvariantCulture)] = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6];
            }
            if (busy.Count == 0)
            {
                return null;
            }
            var result = new long[busy.Keys.Max() + 1];
            foreach (var (cpu, ticks) in busy)
            {
                result[cpu] = ticks;
            }
            return result;
        }
        catch (Exception ex) when (ex is IOException or FormatException or UnauthorizedAccessException or IndexOutOfRangeException)
        {
            return null;
        }
    }
}
