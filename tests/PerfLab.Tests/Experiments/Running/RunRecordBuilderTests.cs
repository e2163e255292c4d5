using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Experiments.Running;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Running;

public sealed class RunRecordBuilderTests
{
    // The measured window starts at unix second 1000 (500 ms into it) and ends at 1003.
    private static readonly DateTimeOffset From = DateTimeOffset.FromUnixTimeMilliseconds(1_000_500);
    private static readonly DateTimeOffset To = DateTimeOffset.FromUnixTimeMilliseconds(1_003_200);

    private static LoadSecond Second(long unix, double rps, double p50, double p99, long errors, int users, bool warmup = false) =>
        new(unix, warmup, (long)rps, rps, p50, p99, errors, users);

    private static CounterRecording Recording(IEnumerable<CounterSample> samples, IEnumerable<ThreadPoolAdjustment>? adjustments = null) => new()
    {
        ProcessId = 1,
        IntervalSeconds = 1,
        StartedUnixMs = 990_000,
        EndedUnixMs = 1_010_000,
        Ending = CollectionEnding.Completed,
        Counters = [],
        Samples = samples.ToList(),
        Adjustments = adjustments?.ToList() ?? [],
    };

    private static CounterSample Sample(long unix, double threads) =>
        new(unix, new Dictionary<string, double> { ["threadpool-thread-count"] = threads });

    [Fact]
    public void Join_LoadAndCounterSeconds_LineUpByUnixSecondAndSumScenarios()
    {
        var load = new[]
        {
            Second(999, 50, 1, 2, 0, 4, warmup: true),
            Second(1000, 100, 5, 9, 1, 4), Second(1000, 30, 7, 8, 0, 2), // two scenarios in the same second
            Second(1001, 120, 4, 10, 0, 4),
            Second(1003, 80, 6, 12, 2, 4),
        };
        var recording = Recording([Sample(999, 99), Sample(1000, 10), Sample(1002, 14), Sample(1004, 99)]);

        var window = RunRecordBuilder.Join(recording, From, To, load);

        Assert.Equal([0, 1, 2, 3], window.Timeline.Select(p => p.Second));
        var first = window.Timeline[0];
        Assert.Equal(130, first.Rps);
        Assert.Equal(7, first.P50Ms);
        Assert.Equal(9, first.P99Ms);
        Assert.Equal(1, first.Errors);
        Assert.Equal(6, first.Users);
        Assert.Equal(10, first.Counters["threadpool-thread-count"]);
        Assert.Empty(window.Timeline[1].Counters);
        Assert.Equal(0, window.Timeline[2].Rps); // a second with counters and no load figures
        Assert.Equal(14, window.Timeline[2].Counters["threadpool-thread-count"]);
        Assert.Equal(80, window.Timeline[3].Rps);
    }

    [Fact]
    public void Join_WarmupSecondsAndSamplesOutsideTheWindow_AreLeftOut()
    {
        var load = new[] { Second(1000, 500, 1, 1, 0, 1, warmup: true), Second(1001, 100, 1, 1, 0, 1), Second(1005, 100, 1, 1, 0, 1) };
        var recording = Recording([Sample(998, 1000), Sample(1001, 10), Sample(1002, 20), Sample(1004, 1000)]);

        var window = RunRecordBuilder.Join(recording, From, To, load);

        Assert.Equal([1, 2], window.Timeline.Select(p => p.Second));
        Assert.Equal(100, window.Timeline.Sum(p => p.Rps));
        Assert.Equal(15, window.Averages["threadpool-thread-count"]);
    }

    [Fact]
    public void Join_StarvationInjections_CountedOnlyInsideTheWindowByMillisecond()
    {
        var adjustments = new[]
        {
            new ThreadPoolAdjustment(1_000_400, CounterNames.StarvationReason, 5, 0), // 100 ms before the window
            new ThreadPoolAdjustment(1_000_600, CounterNames.StarvationReason, 6, 0),
            new ThreadPoolAdjustment(1_002_000, "climbing move", 7, 0),
            new ThreadPoolAdjustment(1_003_100, CounterNames.StarvationReason, 8, 0),
            new ThreadPoolAdjustment(1_003_300, CounterNames.StarvationReason, 9, 0), // 100 ms after it
        };

        var window = RunRecordBuilder.Join(Recording([], adjustments), From, To, []);

        Assert.Equal(2, window.StarvationInjections);
        Assert.Empty(window.Averages);
    }

    [Fact]
    public void Join_NoRecording_GivesTheLoadTimelineWithoutCounters()
    {
        var window = RunRecordBuilder.Join(null, From, To, [Second(1002, 42, 1, 2, 0, 3)]);

        var point = Assert.Single(window.Timeline);
        Assert.Equal(2, point.Second);
        Assert.Equal(42, point.Rps);
        Assert.Equal(0, window.StarvationInjections);
    }

    [Fact]
    public void FromLoad_ScenarioResult_CopiesWindowFieldsAndWarmup()
    {
        var latency = new LatencyStats(10, 2, 0.5, 1, 2, 2.5, 3, 3.5, 4, 4.5, 5);
        var scenario = new ScenarioResult("s", new ClosedModel(4), "http://x/", 4, 10, 5, latency, null, 1234,
            new ErrorCounts(3, new Dictionary<string, long> { [ErrorCounts.HttpKind(503)] = 3 }), null, null, null, [Second(1001, 5, 2, 4, 3, 4)])
        {
            InFlightAtEnd = 4,
            InFlightOldestMs = 850,
            BoundedByWindow = true,
        };
        var generator = new GeneratorUsage(1, 2, 0.5, 2, false, 10, 100, 0.1, "HTTP/1.1");
        var load = new LoadResult(From.AddSeconds(-2), From, To, false, null, generator, [scenario]) { WarmupSeconds = 2.5, Settled = false };

        var record = RunRecordBuilder.FromLoad(new RunIdentity("a", 2, 7, From), new Dictionary<string, string>(), load, null);

        Assert.Equal(RunStatus.Ok, record.Status);
        Assert.Equal((2, 7), (record.Repetition, record.Order));
        var stats = Assert.Single(record.Scenarios);
        Assert.Equal((10L, 5.0, 2.0, 4.0, 3L), (stats.Requests, stats.Rps, stats.MeanMs, stats.P99Ms, stats.Errors));
        Assert.Equal(3, stats.ErrorsByKind["http-503"]);
        Assert.Equal((4L, 850.0, true), (stats.InFlightAtEnd, stats.InFlightOldestMs, stats.BoundedByWindow));
        Assert.Equal((2.5, false), (record.WarmupSeconds, record.Settled));
        Assert.Equal(50, record.GeneratorCpuPercent);
        Assert.Equal(5, Assert.Single(record.Timeline).Rps);
    }

    [Theory]
    [InlineData(FailureKind.SutDidNotStart)]
    [InlineData(FailureKind.DatabaseDown)]
    [InlineData(FailureKind.Interrupted)]
    public void Failed_AnyKind_IsAFailedRecordWithThatKindAndNoFigures(FailureKind kind)
    {
        var info = new Dictionary<string, string> { ["gc"] = "server" };
        var record = RunRecordBuilder.Failed(new RunIdentity("b", 1, 2, From), new RunFailure(kind, "why", "tail", info));

        Assert.Equal(RunStatus.Failed, record.Status);
        Assert.Equal(kind, record.FailureKind);
        Assert.Equal(("why", "tail"), (record.FailureReason, record.LogTail));
        Assert.Equal("server", record.SutInfo["gc"]);
        Assert.Empty(record.Scenarios);
        Assert.Empty(record.Timeline);
    }

    [Fact]
    public void MarkFailed_MeasuredRecord_KeepsItsFiguresAndTakesTheKind()
    {
        var window = RunRecordBuilder.Join(null, From, To, [Second(1001, 9, 1, 1, 0, 1)]);
        var ok = RunRecordBuilder.Failed(new RunIdentity("a", 1, 1, From), new RunFailure(FailureKind.LoadFailed, "x")) with
        {
            Status = RunStatus.Ok, FailureKind = null, FailureReason = null, Timeline = window.Timeline,
        };

        var failed = RunRecordBuilder.MarkFailed(ok, FailureKind.DatabaseDown, "the database stopped");

        Assert.Equal((RunStatus.Failed, FailureKind.DatabaseDown), (failed.Status, failed.FailureKind));
        Assert.Equal(9, Assert.Single(failed.Timeline).Rps);
    }
}
