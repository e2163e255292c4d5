using System.Globalization;

namespace PerfLab.Common;

/// <summary>Pins processes to CPU lists with taskset, so the SUT, the generator and PostgreSQL do not compete for a core.</summary>
public static class CpuSets
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(10);

    /// <summary>Pins a running process (all its threads, and children forked later) to a CPU list.</summary>
    public static async Task<bool> PinAsync(int pid, string cpus, CancellationToken ct = default)
    {
        try
        {
            var result = await ProcessRunner.RunAsync("taskset", ["-a", "-p", "-c", cpus, pid.ToString(CultureInfo.InvariantCulture)],
                null, Timeout, ct);
            return result.ExitCode == 0;
        }
        catch (PerfLabException)
        {
            return false;
        }
    }
}
