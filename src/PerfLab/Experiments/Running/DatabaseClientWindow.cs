using PerfLab.Counters;
using PerfLab.Results;

namespace PerfLab.Experiments.Running;

/// <summary>The database client's view of a measured window, per completed request, from the Npgsql meter's counters.</summary>
public static class DatabaseClientWindow
{
    /// <summary>
    /// Commands and command time per request, and the pool's mean busy, idle and pending figures over the counter
    /// samples of [<paramref name="measuredFrom"/>, <paramref name="ended"/>] (whole UTC seconds, as the counters'
    /// window); null when the SUT published no Npgsql counter in it (an endpoint that never opened a connection) or
    /// nothing completed.
    /// </summary>
    public static DatabaseClientStats? From(CounterRecording? recording, DateTimeOffset measuredFrom, DateTimeOffset ended, long requests)
    {
        var seconds = (ended - measuredFrom).TotalSeconds;
        if (recording is null || requests <= 0 || seconds <= 0)
        {
            return null;
        }
        var from = measuredFrom.ToUnixTimeSeconds();
        var to = ended.ToUnixTimeSeconds();
        var samples = recording.Samples.Where(s => s.UnixSeconds >= from && s.UnixSeconds <= to).ToList();
        if (!samples.Any(s => s.Values.Keys.Any(k => k.StartsWith("npgsql-", StringComparison.Ordinal))))
        {
            return null;
        }
        var requestsPerSecond = requests / seconds;

        // Rates are summed over every sample of the window and divided by the time they cover, so a second in which
        // the histogram published nothing counts as a second without commands. The counters' whole-second window is
        // up to a second longer than the load's; a mean per second, not a total, is what may be set against the RPS.
        double PerSecond(string name) => samples.Sum(s => s.Get(name) ?? 0) / (samples.Count * recording.IntervalSeconds);
        double Mean(string name) => samples.Select(s => s.Get(name)).OfType<double>().DefaultIfEmpty(0).Average();

        var hasHistogram = samples.Any(s => s.Get(CounterNames.NpgsqlCommands) is not null);
        return new DatabaseClientStats
        {
            // Without the duration histogram (a runtime before .NET 8 publishes no count) the commands are not counted.
            CommandsPerRequest = hasHistogram ? PerSecond(CounterNames.NpgsqlCommands) / requestsPerSecond : double.NaN,
            // From the duration histogram's sum when published; else Little's law: the mean number of commands executing
            // is command seconds per second, so mean executing x window / requests is the command time per request.
            CommandMsPerRequest = hasHistogram
                ? PerSecond(CounterNames.NpgsqlCommandTime) / requestsPerSecond
                : Mean(CounterNames.NpgsqlCommandsExecuting) * 1000 / requestsPerSecond,
            ConnectionsBusyMean = Mean(CounterNames.NpgsqlConnectionsBusy),
            ConnectionsIdleMean = Mean(CounterNames.NpgsqlConnectionsIdle),
            PendingConnectionRequestsMean = Mean(CounterNames.NpgsqlPendingRequests),
        };
    }
}
