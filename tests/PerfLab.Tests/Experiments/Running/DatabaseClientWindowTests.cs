using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Load;
using PerfLab.Experiments.Running.Databases;

namespace PerfLab.Tests.Experiments.Running;

public sealed class DatabaseClientWindowTests
{
    // Measured from unix second 1000.5 to 1008.2; the metrics timer ticks at .25 past each second (session start).
    private static readonly DateTimeOffset From = DateTimeOffset.FromUnixTimeMilliseconds(1_000_500);
    private static readonly DateTimeOffset To = DateTimeOffset.FromUnixTimeMilliseconds(1_008_200);
    private const double Phase = 0.25;

    private static CounterRecording Recording(IEnumerable<CounterSample> samples) => new()
    {
        ProcessId = 1,
        IntervalSeconds = 1,
        StartedUnixMs = 990_250,
        EndedUnixMs = 1_010_000,
        Ending = CollectionEnding.Completed,
        Counters = [],
        Samples = samples.ToList(),
        Adjustments = [],
    };

    // An unsteady load: 100 requests in even seconds, 300 in odd ones.
    private static long LoadAt(long second) => second % 2 == 0 ? 100 : 300;

    private static IEnumerable<LoadSecond> Load() =>
        Enumerable.Range(999, 11).Select(s => new LoadSecond(s, s < 1001, LoadAt(s), LoadAt(s), 1, 2, 0, 8));

    // The requests the sample filed under second s covers: [s - 1 + phase, s + phase).
    private static double Covered(long s) => (1 - Phase) * LoadAt(s - 1) + Phase * LoadAt(s);

    private static CounterSample Sample(long second, Dictionary<string, double> values) => new(second, values);

    [Fact]
    public void From_TwoCommandsOfTwentyMsPerRequestUnderUnsteadyLoad_TwoCommandsAndFortyMsPerRequest()
    {
        var samples = Enumerable.Range(999, 11).Select(s => Sample(s, new()
        {
            [CounterNames.NpgsqlCommands] = 2 * Covered(s),
            [CounterNames.NpgsqlCommandTime] = 40 * Covered(s),
            [CounterNames.NpgsqlConnectionsBusy] = 4,
            [CounterNames.NpgsqlConnectionsIdle] = s % 2,
            [CounterNames.NpgsqlPendingRequests] = 0.5,
        }));

        var db = DatabaseClientWindow.From(Recording(samples), From, To, requests: 1600, Load())!;

        Assert.Equal(2, db.CommandsPerRequest, 9);
        Assert.Equal(40, db.CommandMsPerRequest, 9);
        Assert.Equal(4, db.ConnectionsBusyMean);
        // The interior seconds 1002..1007: three odd, three even.
        Assert.Equal(0.5, db.ConnectionsIdleMean);
        Assert.Equal(0.5, db.PendingConnectionRequestsMean);
    }

    [Fact]
    public void From_TheSutsTimerStartedAfterTheCollector_ItsOwnTickSplitsTheSeconds()
    {
        // A SUT still warming up when the window opened: its load climbs from nothing. The collector asked for the
        // session at .00 but the SUT's timer ticks at .25, as on a busy machine (its session enabled 250 ms later).
        long Ramp(long second) => Math.Clamp((second - 1002) * 50, 0, 150);
        var load = Enumerable.Range(999, 11).Select(s => new LoadSecond(s, s < 1001, Ramp(s), Ramp(s), 1, 2, 0, 8));
        var samples = Enumerable.Range(999, 11).Select(s => Sample(s, new()
        {
            [CounterNames.NpgsqlCommands] = (1 - Phase) * Ramp(s - 1) + Phase * Ramp(s),
        }));
        var recording = Recording(samples) with { StartedUnixMs = 989_000, MetersTickUnixMs = 990_250 };

        var db = DatabaseClientWindow.From(recording, From, To, requests: 700, load)!;

        Assert.Equal(1, db.CommandsPerRequest, 9);
        // Split at the collector's .00 instead, the same commands read 487.5 / 450 = 1.083 per request.
        var byCollector = DatabaseClientWindow.From(recording with { MetersTickUnixMs = null }, From, To, requests: 700, load)!;
        Assert.Equal(487.5 / 450, byCollector.CommandsPerRequest, 9);
    }

    [Fact]
    public void From_TickSkippedBeforeTheFirstInteriorSecond_WindowStartsAfterTheLongInterval()
    {
        // The target's timer skipped its tick of second 1001: the sample of 1002 holds two intervals, 1001's and its own.
        var samples = Enumerable.Range(999, 11).Where(s => s != 1001).Select(s => Sample(s, new()
        {
            [CounterNames.NpgsqlCommands] = s == 1002 ? Covered(1001) + Covered(1002) : Covered(s),
            [CounterNames.NpgsqlCommandTime] = 20 * (s == 1002 ? Covered(1001) + Covered(1002) : Covered(s)),
        }));

        var db = DatabaseClientWindow.From(Recording(samples), From, To, requests: 1600, Load())!;

        Assert.Equal(1, db.CommandsPerRequest, 9);
        Assert.Equal(20, db.CommandMsPerRequest, 9);
    }

    [Fact]
    public void From_NoLoadTimeline_TheWindowsMeanRateDividesInstead()
    {
        var samples = Enumerable.Range(1000, 9).Select(s => Sample(s, new() { [CounterNames.NpgsqlCommands] = 150, [CounterNames.NpgsqlCommandTime] = 3000 }));

        // 7.7 s at 100 requests per second.
        var db = DatabaseClientWindow.From(Recording(samples), From, To, requests: 770)!;

        Assert.Equal(1.5, db.CommandsPerRequest, 9);
        Assert.Equal(30, db.CommandMsPerRequest, 9);
    }

    [Fact]
    public void From_NoDurationHistogram_LittlesLawFromTheCommandsExecuting()
    {
        // 3 commands executing on average is 3 s of command time per second; at 100 requests per second, 30 ms each.
        var samples = Enumerable.Range(1000, 9).Select(s => Sample(s, new() { [CounterNames.NpgsqlCommandsExecuting] = s % 2 == 0 ? 2 : 4 }));

        var db = DatabaseClientWindow.From(Recording(samples), From, To, requests: 770)!;

        Assert.True(double.IsNaN(db.CommandsPerRequest));
        Assert.Equal(30, db.CommandMsPerRequest, 9);
    }

    [Fact]
    public void From_NoNpgsqlCounterOrNoRequests_Null()
    {
        var runtimeOnly = Enumerable.Range(1000, 9).Select(s => Sample(s, new() { ["cpu-usage"] = 50 }));
        var npgsql = Enumerable.Range(1000, 9).Select(s => Sample(s, new() { [CounterNames.NpgsqlCommands] = 1 }));

        Assert.Null(DatabaseClientWindow.From(Recording(runtimeOnly), From, To, requests: 770, Load()));
        Assert.Null(DatabaseClientWindow.From(Recording(npgsql), From, To, requests: 0, Load()));
        Assert.Null(DatabaseClientWindow.From(null, From, To, requests: 770, Load()));
    }
}
