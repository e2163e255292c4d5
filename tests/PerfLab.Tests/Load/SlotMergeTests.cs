using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class SlotMergeTests
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 23, 12, 0, 0, TimeSpan.Zero);

    /// <summary>A slot of <paramref name="seconds"/> measured seconds starting at <paramref name="at"/> s, every request taking <paramref name="ms"/>.</summary>
    private static LoadResult Slot(int at, double seconds, long requests, long ms, double cpu, params (string Kind, long Count)[] errors)
    {
        var h = new LatencyHistogram();
        for (var i = 0; i < requests; i++)
        {
            h.Record(ms * 1000);
        }
        var from = T0.AddSeconds(at);
        var timeline = Enumerable.Range(0, (int)seconds).Select(s => new LoadSecond(from.ToUnixTimeSeconds() + s, false, (long)(requests / seconds),
            requests / seconds, ms, ms, 0, 4)).ToList();
        var scenario = new ScenarioResult("order", new ClosedModel(4), "/x", 4, requests, requests / seconds, LatencyStats.From(h), null, requests * 100,
            new ErrorCounts(errors.Sum(e => e.Count), errors.ToDictionary(e => e.Kind, e => e.Count)), null, null, null, timeline)
        {
            Histogram = h,
            InFlightAtEnd = 4,
            InFlightOldestMs = ms,
        };
        var generator = new GeneratorUsage(cpu, seconds, cpu / seconds, 2, false, cpu * 1e6 / requests, 500, 0.1, "HTTP/1.1 sockets, inline completions");
        return new LoadResult(from.AddSeconds(-1), from, from.AddSeconds(seconds), false, null, generator, [scenario]);
    }

    [Fact]
    public void Merge_TwoSlots_CountsThroughputOverTheirOwnSecondsNotTheSpanBetween()
    {
        // 100 requests of 10 ms in 1 s at t=0, then 300 of 30 ms in 2 s at t=10 (another variant ran in between).
        var merged = SlotMerge.Merge([Slot(0, 1, 100, 10, 0.1, ("http-500", 2)), Slot(10, 2, 300, 30, 0.3, ("http-500", 1), ("timeout", 1))]);

        var s = Assert.Single(merged.Scenarios);
        Assert.Equal(400, s.Requests);
        Assert.Equal(400 / 3.0, s.RequestsPerSecond, 6);          // not 400 / 12 s of span
        Assert.Equal((100 * 10 + 300 * 30) / 400.0, s.Latency.MeanMs, 6); // 25 ms: exact mean of the merged histogram
        Assert.Equal(30, s.Latency.P50Ms, 0);                   // a quarter at 10 ms, three quarters at 30 ms
        Assert.Equal(10, s.Latency.MinMs, 0);
        Assert.Equal(4, s.Errors.Total);
        Assert.Equal(3, s.Errors.ByKind["http-500"]);
        Assert.Equal(1, s.Errors.ByKind["timeout"]);
        Assert.Equal(8, s.InFlightAtEnd);
        Assert.Equal(3, s.Timeline.Count);
        Assert.Equal(40000, s.BytesReceived);
        Assert.Equal(0.4 / 3, merged.Generator.CoresUsed, 6);
        Assert.Equal(1000, merged.Generator.CpuMicrosecondsPerRequest, 6);
        Assert.Equal(T0, merged.MeasuredFromUtc);
        Assert.Equal(T0.AddSeconds(12), merged.EndedUtc);
    }

    [Fact]
    public void Merge_OneSlot_IsThatSlot()
    {
        var only = Slot(0, 2, 50, 5, 0.1);
        Assert.Same(only, SlotMerge.Merge([only]));
    }

    [Fact]
    public void Merge_SlotWithoutHistogram_RefusesRatherThanGuessPercentiles()
    {
        var bare = Slot(5, 1, 10, 5, 0.1);
        bare = bare with { Scenarios = [bare.Scenarios[0] with { Histogram = null }] };
        Assert.Throws<ArgumentException>(() => SlotMerge.Merge([Slot(0, 1, 10, 5, 0.1), bare]));
    }
}
