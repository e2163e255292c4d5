using PerfLab.Experiments.Analysis;
using PerfLab.Results;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments;

public sealed class AnalysisTests
{
    private static RunRecord Run(string variant, double rps, double meanMs) => new()
    {
        Variant = variant,
        Repetition = 1,
        Order = 1,
        Status = RunStatus.Ok,
        StartedAt = DateTimeOffset.UnixEpoch,
        Scenarios =
        [
            new ScenarioStats
            {
                Scenario = "s", Requests = (long)(rps * 10), Rps = rps, MeanMs = meanMs, StdDevMs = 1, MinMs = 1, P50Ms = meanMs,
                P75Ms = meanMs, P90Ms = meanMs, P95Ms = meanMs, P99Ms = meanMs * 2, P999Ms = meanMs * 2, MaxMs = meanMs * 3,
                BytesReceived = 0, Errors = 0,
            },
        ],
        Counters = new Dictionary<string, double>(),
        StarvationInjections = 0,
        Timeline = [],
        GeneratorCpuPercent = 10,
        GeneratorSaturated = false,
    };

    [Fact]
    public void Interleave_ThreeVariantsThreeTimes_RotatesSoEachRunsFirstOnce()
    {
        var order = RunPlan.Interleave(["A", "B", "C"], 3).Select(x => x.Variant);
        Assert.Equal(["A", "B", "C", "B", "C", "A", "C", "A", "B"], order);
    }

    [Fact]
    public void FalsePositiveRate_RunsOfOneConfiguration_CallsADifferenceAboutFivePercentOfTheTime()
    {
        var random = new Random(3);
        var runs = Enumerable.Range(0, 24).Select(_ => Run("a", 1000 * (1 + 0.05 * (random.NextDouble() - 0.5)), 10)).ToList();
        var rate = VariantStatistics.FalsePositiveRate(runs, "all", Metrics.Rps, groupSize: 3, noiseFloorPercent: 0);
        // A 95 % interval calls a difference between two groups of one configuration about 5 % of the time: neither
        // never (the lower bound) nor often.
        Assert.InRange(rate, 0.02, 0.08);
        Assert.Equal(0, VariantStatistics.FalsePositiveRate(runs, "all", Metrics.Rps, groupSize: 3, noiseFloorPercent: 10));
    }

    [Fact]
    public void CompareOne_TenPercentFaster_IsBetterOnRpsAndMean()
    {
        var runs = new[] { Run("a", 100, 10), Run("a", 101, 10.1), Run("a", 99, 9.9), Run("b", 110, 9), Run("b", 111, 9.1), Run("b", 109, 8.9) };
        var rps = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.Rps, 2);
        var mean = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.MeanMs, 2);
        Assert.Equal(Verdict.Better, rps.Verdict);
        Assert.InRange(rps.ChangePercent, 9.5, 10.5);
        Assert.Equal(Verdict.Better, mean.Verdict);
        Assert.InRange(mean.ChangePercent, -10.5, -9.5);
    }
}
