using System.Diagnostics;
using System.Globalization;

namespace PerfLab.Common;

/// <summary>
/// When this invocation of perflab began, for a budget that counts everything a user waits for: the ./perflab
/// script's own start (<see cref="PerfLabSettings.InvokedAt"/>, set before it builds perflab and the SUT), else this
/// process's start. A build of several minutes on a busy machine is then inside `--budget`, not beside it.
/// </summary>
public static class Invocation
{
    /// <summary>How long before the process the script's time may lie: a build takes minutes; an older one was inherited.</summary>
    public static readonly TimeSpan LongestBuild = TimeSpan.FromHours(1);

    /// <summary>A process's start time on Linux is derived from the boot time, whole seconds: it may read early.</summary>
    private static readonly TimeSpan ClockSkew = TimeSpan.FromSeconds(5);

    public static DateTimeOffset StartedAt { get; } = Read(Environment.GetEnvironmentVariable(PerfLabSettings.InvokedAt), ProcessStart());

    /// <summary>
    /// The script's time when it is a Unix time in milliseconds no later than the process's start (within a few
    /// seconds' skew) and at most
    /// <see cref="LongestBuild"/> before it (a variable left in a shell or a parent's environment is ignored); else the
    /// process's start.
    /// </summary>
    public static DateTimeOffset Read(string? invokedAt, DateTimeOffset processStart) =>
        long.TryParse(invokedAt, NumberStyles.None, CultureInfo.InvariantCulture, out var ms)
            && DateTimeOffset.FromUnixTimeMilliseconds(ms) is var at
            && at <= processStart + ClockSkew && processStart - at <= LongestBuild
            ? at
            : processStart;

    private static DateTimeOffset ProcessStart()
    {
        using var self = Process.GetCurrentProcess();
        return new DateTimeOffset(self.StartTime.ToUniversalTime(), TimeSpan.Zero);
    }
}
