using System.Globalization;

namespace PerfLab.Common;

/// <summary>The machine's run-queue load (Linux /proc/loadavg), to say when other work competed for its cores.</summary>
public static class MachineLoad
{
    /// <summary>The one-minute load average; null where the system does not publish it.</summary>
    public static double? OneMinute()
    {
        try
        {
            return File.Exists("/proc/loadavg")
                && double.TryParse(File.ReadAllText("/proc/loadavg").Split(' ')[0], NumberStyles.Float, CultureInfo.InvariantCulture,
                    out var load)
                ? load : null;
        }
        catch (IOException)
        {
            return null;
        }
    }

    /// <summary>Busy: twice as many runnable tasks as cores, on average, so every process waits for a core about half the time.</summary>
    public static bool IsBusy(double? load) => load > 2 * Environment.ProcessorCount;
}
