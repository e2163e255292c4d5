using System.Globalization;
using PerfLab.Common;
using PerfLab.Results;
using PerfLab.Experiments.Running.Databases;

namespace PerfLab.Experiments.Running;

/// <summary>
/// Puts a run's <see cref="Conditions"/> into effect around its SUT: the latency proxy in front of the database
/// (<see cref="DatabasePath"/>) and the CPUs the SUT may use (taskset), and checks through /info that the SUT saw
/// the cores it was given. Users and thread-pool minimums are already in the experiment's scenarios and settings.
/// </summary>
public static class RunConditions
{
    /// <summary>The proxy for a run with a database RTT (null without one), or why it could not be put in place.</summary>
    public static async Task<(DatabasePath? Path, RunFailure? Failure)> OpenDatabasePathAsync(Conditions conditions,
        string connectionString,
        CancellationToken ct)
    {
        if (conditions.DatabaseRttMs is not { } rtt)
        {
            return (null, null);
        }
        try
        {
            return (await DatabasePath.OpenAsync(connectionString, rtt, ct), null);
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            return (null, new RunFailure(FailureKind.Interrupted, "interrupted while the database path was measured"));
        }
        catch (PerfLabException ex)
        {
            return (null, new RunFailure(FailureKind.DatabasePathFailed,
                $"the latency proxy in front of the database failed: {ex.Message}"));
        }
    }

    /// <summary>
    /// The SUT's CPU list: the first <see cref="Conditions.Cores"/> CPUs of the CPUs it would otherwise get (its pinned
    /// set, else every CPU perflab may use); without a cores condition, the layout's own choice.
    /// </summary>
    public static string? CpuSet(Conditions conditions, CoreLayout layout)
    {
        if (conditions.Cores is not { } cores)
        {
            return layout.Sut;
        }
        var available = layout.Sut is { } pinned ? CpuList.Parse(pinned) : CpuList.Allowed();
        if (cores > available.Count)
        {
            throw new PerfLabException(
                $"the SUT was to get {cores} cores, but only {available.Count} ({CpuList.Format(available)}) are available to it here; "
                    + "lower cores or the sweep's values.",
                ExitCode.Environment);
        }
        return CpuList.Format(available.Take(cores));
    }

    /// <summary>Fails early, before anything starts, when a cores condition cannot be met on this machine.</summary>
    public static void CheckCores(IEnumerable<Conditions> conditions, CoreLayout layout)
    {
        var most = conditions.Select(c => c.Cores).Max();
        if (most is null)
        {
            return;
        }
        if (!OperatingSystem.IsLinux() || !File.Exists("/usr/bin/taskset"))
        {
            throw new PerfLabException("giving the SUT a number of cores needs taskset (util-linux) on Linux; install it or drop the cores "
                + "condition.", ExitCode.Environment);
        }
        CpuSet(new Conditions { Cores = most }, layout);
    }

    /// <summary>A failure when the SUT's /info reports another processor count than the cores it was given.</summary>
    public static RunFailure? CoresNotInEffect(Conditions conditions, IReadOnlyDictionary<string, string> info, string? logTail)
    {
        if (conditions.Cores is not { } cores || !info.TryGetValue("processorCount", out var reported)
            || reported == cores.ToString(CultureInfo.InvariantCulture))
        {
            return null;
        }
        return new RunFailure(FailureKind.VariantNotInEffect,
            $"the variant did not take effect: cores: asked for {cores}, /info reports processorCount {reported}", logTail, info);
    }
}

/// <summary>CPU lists as taskset and /proc write them: "0-3,6".</summary>
public static class CpuList
{
    public static IReadOnlyList<int> Parse(string list)
    {
        var cpus = new List<int>();
        foreach (var part in list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var ends = part.Split('-');
            var from = int.Parse(ends[0], CultureInfo.InvariantCulture);
            var to = ends.Length > 1 ? int.Parse(ends[1], CultureInfo.InvariantCulture) : from;
            cpus.AddRange(Enumerable.Range(from, to - from + 1));
        }
        return cpus.Distinct().Order().ToList();
    }

    public static string Format(IEnumerable<int> cpus) => string.Join(',', cpus.Select(c => c.ToString(CultureInfo.InvariantCulture)));

    /// <summary>The CPUs this process may run on (its affinity), from /proc/self/status; 0..n-1 where that cannot be read.</summary>
    public static IReadOnlyList<int> Allowed()
    {
        try
        {
            var line = File.ReadLines("/proc/self/status")
                .FirstOrDefault(l => l.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal));
            if (line is not null)
            {
                return Parse(line["Cpus_allowed_list:".Length..].Trim());
            }
        }
        catch (IOException)
        {
        }
        return Enumerable.Range(0, Environment.ProcessorCount).ToList();
    }
}
