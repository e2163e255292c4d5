using PerfLab.Hosts;
using PerfLab.Load;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// Generators whose clocks disagree by a known offset: their runs put on the controller's clock line up second for second.
/// </summary>
public sealed class ControllerClockTests
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 26, 10, 0, 0, TimeSpan.Zero);

    [Fact]
    public void Align_GeneratorClockThreeSecondsAhead_ItsWindowAndSecondsMoveBackOntoTheControllers()
    {
        var ahead = Run("gen-2", T0.AddSeconds(3), requestsPerSecond: 10);

        var aligned = ControllerClock.Align(ahead, new ClockOffset(3000, 0.2, 0.4));

        Assert.Equal((T0.AddSeconds(-1), T0, T0.AddSeconds(4)),
            (aligned.Result.StartedUtc, aligned.Result.MeasuredFromUtc, aligned.Result.EndedUtc));
        Assert.Equal(Enumerable.Range(-1, 5).Select(s => T0.ToUnixTimeSeconds() + s),
            aligned.Result.Scenarios[0].Timeline.Select(t => t.UnixSecond));
        Assert.Equal(Enumerable.Range(-1, 5).Select(s => T0.AddSeconds(s)), aligned.Intervals.Select(i => i.Start));
        // Latencies are each measured on one clock: untouched.
        Assert.Equal(ahead.Result.Scenarios[0].Latency, aligned.Result.Scenarios[0].Latency);
    }

    [Fact]
    public void Merge_TwoGeneratorsWithAKnownOffsetAligned_OneTimelineOfTheRunsOwnSeconds()
    {
        var onTime = Run("gen-1", T0, requestsPerSecond: 10);
        var ahead = Run("gen-2", T0.AddSeconds(3), requestsPerSecond: 30);

        var unaligned = LoadMerge.Merge([onTime, ahead]).Merged;
        var aligned = LoadMerge.Merge([onTime, ControllerClock.Align(ahead, new ClockOffset(2800, 0.2, 0.4))]).Merged;

        // Not aligned, the run would span 8 seconds with each generator's load alone in some; aligned, 5 seconds of both.
        Assert.Equal(8, unaligned.Scenarios[0].Timeline.Count);
        Assert.Equal(5, aligned.Scenarios[0].Timeline.Count);
        Assert.All(aligned.Scenarios[0].Timeline, t => Assert.Equal(40, t.Requests));
        Assert.Equal(T0, aligned.MeasuredFromUtc);
        Assert.Equal(T0.AddSeconds(4.2), aligned.EndedUtc);
        // The merged percentiles of each second come from both generators' interval histograms: 10 at 20 ms, 30 at 40 ms.
        Assert.All(aligned.Scenarios[0].Timeline, t => Assert.InRange(t.P50Ms, 39.9, 40.1));
    }

    [Fact]
    public void Align_NoOffset_TheRunAsItCame()
    {
        var run = Run("local", T0, requestsPerSecond: 10);

        Assert.Same(run, ControllerClock.Align(run, new ClockOffset(0, 0, 0)));
    }

    /// <summary>A generator's run as its clock saw it: a 1 s warm-up from <paramref name="from"/> - 1 s, then 4 s measured.</summary>
    private static GeneratorRun Run(string host, DateTimeOffset from, int requestsPerSecond)
    {
        // gen-1 answers in 20 ms, the others in 40 ms: a second's merged median tells whose histograms it holds.
        var micros = host == "gen-1" ? 20_000 : 40_000;
        var seconds = Enumerable.Range(-1, 5).Select(s => from.AddSeconds(s)).ToList();
        var intervals = seconds.Select(s =>
        {
            var h = new LatencyHistogram();
            for (var i = 0; i < requestsPerSecond; i++)
            {
                h.Record(micros);
            }
            return new LogInterval(s, s.AddSeconds(1), "s", h);
        }).ToList();
        var window = IntervalLog.Merge(intervals.Skip(1));
        var timeline = seconds.Select((s, i) => new LoadSecond(s.ToUnixTimeSeconds(), i == 0, requestsPerSecond, requestsPerSecond,
            micros / 1000.0, micros / 1000.0, 0, 2)).ToList();
        var scenario = new ScenarioResult("s", new ClosedModel(2), "/x", 2, requestsPerSecond * 4, requestsPerSecond,
            LatencyStats.From(window), null, 0, new ErrorCounts(0, new Dictionary<string, long>()), null, null, null, timeline) { Histogram = window };
        var generator = new GeneratorUsage(0.1, 4, 0.025, 2, false, 10, 100, 0.01, "HTTP/1.1");
        var result = new LoadResult(from.AddSeconds(-1), from, from.AddSeconds(4), false, null, generator, [scenario]);
        return new GeneratorRun(new HostRef("load", host), result, intervals, [new LogInterval(from, from.AddSeconds(4), "s", window)]);
    }
}
