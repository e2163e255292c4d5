using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Databases;

/// <summary>The database client's view of a measured window, per completed request, from the Npgsql meter's counters.</summary>
public static class DatabaseClientWindow
{
    /// <summary>
    /// Commands and command time per request, and the pool's mean busy, idle and pending figures over the counter
    /// samples of [<paramref name="measuredFrom"/>, <paramref name="ended"/>] (whole UTC seconds, as the counters'
    /// window); null when the SUT published no Npgsql counter in it (an endpoint that never opened a connection) or
    /// nothing completed.
    /// </summary>
    /// <param name="requests">The requests completed in the window: the divisor when the load's seconds are not given.</param>
    /// <param name="loadSeconds">The load's per-second timeline (scenarios summed by second): the requests are then
    /// counted over the very intervals the counter samples cover, which keeps an unsteady run honest.</param>
    public static DatabaseClientStats? From(CounterRecording? recording, DateTimeOffset measuredFrom, DateTimeOffset ended, long requests,
        IEnumerable<LoadSecond>? loadSeconds = null)
    {
        var seconds = (ended - measuredFrom).TotalSeconds;
        if (recording is null || requests <= 0 || seconds <= 0)
        {
            return null;
        }
        var samples = Interior(recording, measuredFrom, ended);
        if (samples.Count == 0)
        {
            return null;
        }
        // The samples cover the seconds they span (a publication that slipped into the next second still counts once).
        var span = (samples[^1].UnixSeconds - samples[0].UnixSeconds + 1) * recording.IntervalSeconds;
        var served = RequestsCovered(samples, recording, loadSeconds) ?? requests / seconds * span;
        double PerRequest(string name) => samples.Sum(s => s.Get(name) ?? 0) / served;
        double Mean(string name) => samples.Select(s => s.Get(name)).OfType<double>().DefaultIfEmpty(0).Average();

        var hasHistogram = samples.Any(s => s.Get(CounterNames.NpgsqlCommands) is not null);
        return new DatabaseClientStats
        {
            // Without the duration histogram (a runtime before .NET 8 publishes no count) the commands are not counted.
            CommandsPerRequest = hasHistogram ? PerRequest(CounterNames.NpgsqlCommands) : double.NaN,
            // From the duration histogram's sum when published; else Little's law: the mean number of commands executing
            // is command seconds per second, so mean executing x window / requests is the command time per request.
            CommandMsPerRequest = hasHistogram
                ? PerRequest(CounterNames.NpgsqlCommandTime)
                : Mean(CounterNames.NpgsqlCommandsExecuting) * span * 1000 / served,
            ConnectionsBusyMean = Mean(CounterNames.NpgsqlConnectionsBusy),
            ConnectionsIdleMean = Mean(CounterNames.NpgsqlConnectionsIdle),
            PendingConnectionRequestsMean = Mean(CounterNames.NpgsqlPendingRequests),
        };
    }

    // The samples of the window in which Npgsql published. A sample filed under second S covers the interval whose
    // tick fell in [S, S + 1) (MeterIntervals): only those from floor(from) + 2 to floor(ended) - 1 lie wholly inside
    // the load; a partly loaded edge second would dilute the rates. A tick the target's timer skipped (its thread
    // woke over an interval late) leaves a second without a sample and the next sample holding two intervals, so the
    // window starts at a sample whose second before has one. A window too short for any interior second falls back to
    // all of its samples.
    private static List<CounterSample> Interior(CounterRecording recording, DateTimeOffset measuredFrom, DateTimeOffset ended)
    {
        var from = measuredFrom.ToUnixTimeSeconds();
        var to = ended.ToUnixTimeSeconds();
        var npgsql = recording.Samples
            .Where(s => s.UnixSeconds >= from && s.UnixSeconds <= to
                && s.Values.Keys.Any(k => k.StartsWith("npgsql-", StringComparison.Ordinal)))
            .OrderBy(s => s.UnixSeconds)
            .ToList();
        var seconds = npgsql.Select(s => s.UnixSeconds).ToHashSet();
        var interior = npgsql.Where(s => s.UnixSeconds >= from + 2 && s.UnixSeconds <= to - 1)
            .SkipWhile(s => !seconds.Contains(s.UnixSeconds - 1))
            .ToList();
        return interior.Count > 0 ? interior : npgsql;
    }

    // The requests completed in the intervals the samples cover. The target's metrics timer ticks once a second, so
    // the sample of second S covers [S - 1 + phase, S + phase): (1 - phase) of the load's second S - 1 and phase of
    // its second S. The phase is the target's own tick: the collector's start came 250-380 ms before it on a busy
    // machine, and a load still climbing through the window (a SUT not warm when the window opened) then read 1.08 to
    // 1.12 commands per request. Null (use the window's mean rate) when a second is missing or was warm-up, the
    // interval is not a second, or nothing completed.
    private static double? RequestsCovered(List<CounterSample> samples, CounterRecording recording, IEnumerable<LoadSecond>? loadSeconds)
    {
        if (loadSeconds is null || recording.IntervalSeconds != 1)
        {
            return null;
        }
        var bySecond = loadSeconds.GroupBy(p => p.UnixSecond)
            .ToDictionary(g => g.Key, g => (Warmup: g.Any(p => p.Warmup), Requests: g.Sum(p => p.Requests)));
        var tick = recording.MetersTickUnixMs ?? recording.StartedUnixMs;
        var phase = (tick % 1000 + 1000) % 1000 / 1000.0;
        var total = 0.0;
        for (var second = samples[0].UnixSeconds; second <= samples[^1].UnixSeconds; second++)
        {
            if (!bySecond.TryGetValue(second - 1, out var before) || !bySecond.TryGetValue(second, out var at) || before.Warmup
                || at.Warmup)
            {
                return null;
            }
            total += (1 - phase) * before.Requests + phase * at.Requests;
        }
        return total > 0 ? total : null;
    }
}
