using PerfLab.Experiments.Analysis;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

/// <summary>The slots' bound under a paired comparison's interval, on known pairs.</summary>
public sealed class SlotSpreadTests
{
    [Fact]
    public void FromBlocks_TwoBlocksOfKnownLogs_PoolsTheirSpreadAboutEachBlocksMean()
    {
        var spread = SlotSpread.FromBlocks([[0.1, 0.3], [0.0, 0.2, 0.4]])!;

        // About their means (0.2 and 0.2): 0.01 + 0.01 and 0.04 + 0 + 0.04, on 1 + 2 degrees of freedom.
        Assert.Equal(3, spread.DegreesOfFreedom);
        Assert.Equal(Math.Sqrt(0.10 / 3), spread.LogSd, 12);
        // The mean of the two blocks' means: each block's variance s²/Sᵦ, over 2².
        Assert.Equal(Math.Sqrt(0.10 / 3) * Math.Sqrt((1.0 / 2) + (1.0 / 3)) / 2, spread.StandardError, 12);
        Assert.Equal(Statistics.TwoSidedT(3) * spread.StandardError, spread.HalfWidth, 12);
    }

    [Fact]
    public void FromBlocks_UnderTwoDegreesOfFreedom_GivesNone()
    {
        Assert.Null(SlotSpread.FromBlocks([[0.1, 0.3], [0.2]]));
        Assert.Null(SlotSpread.FromBlocks([[0.1, 0.3, 0.5]]));
    }

    /// <summary>
    /// Three blocks of an A/A whose three slot pairs scatter ±10 % inside each block, but whose blocks happen to agree:
    /// each block's mean reads −4 %. The blocks alone give an interval of zero width around −4 %, which would call it
    /// better; the slots say a block's mean is known to about ±10 %/√3, so the interval holds zero and it is not called.
    /// </summary>
    [Fact]
    public void CompareOne_BlocksAgreeingByChance_IntervalIsAsWideAsTheSlotsAllowAndNothingIsCalled()
    {
        var runs = new List<RunRecord>();
        for (var block = 1; block <= 3; block++)
        {
            runs.Add(Run("a", block, [1.0, 1.0, 1.0]));
            runs.Add(Run("b", block, [0.96 * 1.1, 0.96, 0.96 / 1.1]));
        }

        var bare = Statistics.ComparePaired(VariantStatistics.Pairs(runs, "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest),
            higherIsBetter: false, noiseFloorPercent: 2);
        var comparison = VariantStatistics.CompareOne(runs, "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest, noiseFloorPercent: 2);

        Assert.Equal(Verdict.Better, bare.Verdict);
        var spread = SlotSpread.FromBlocks([.. Enumerable.Repeat<IReadOnlyList<double>>([Math.Log(1.1), 0, -Math.Log(1.1)], 3)])!;
        Assert.Equal(spread.HalfWidthPercent, comparison.SlotHalfWidthPercent!.Value, 9);
        Assert.InRange(comparison.SlotHalfWidthPercent!.Value, 7.5, 8.5);   // e^(t(6) × ln 1.1 / 3) − 1 = 8.1 %
        Assert.Equal(Verdict.Inconclusive, comparison.Verdict);
        Assert.True(comparison.IntervalFromSlots);
        Assert.True(comparison.LowPercent < 0 && comparison.HighPercent > 0, $"[{comparison.LowPercent}, {comparison.HighPercent}]");
    }

    /// <summary>Blocks that scatter more than their slots: the blocks' own interval stands, the slots' bound beside it.</summary>
    [Fact]
    public void CompareOne_BlocksScatteringMoreThanTheirSlots_KeepsTheBlocksInterval()
    {
        var means = new[] { 0.90, 1.00, 1.10, 0.95 };
        var runs = new List<RunRecord>();
        for (var block = 1; block <= means.Length; block++)
        {
            runs.Add(Run("a", block, [1.0, 1.0, 1.0]));
            runs.Add(Run("b", block, [means[block - 1] * 1.01, means[block - 1], means[block - 1] / 1.01]));
        }

        var bare = Statistics.ComparePaired(VariantStatistics.Pairs(runs, "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest),
            higherIsBetter: false, noiseFloorPercent: 2);
        var comparison = VariantStatistics.CompareOne(runs, "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest, noiseFloorPercent: 2);

        Assert.Equal((bare.Low, bare.High), (comparison.LowPercent, comparison.HighPercent));
        Assert.False(comparison.IntervalFromSlots);
        Assert.True(comparison.SlotHalfWidthPercent < (bare.High - bare.Low) / 2, comparison.SlotHalfWidthPercent.ToString());
    }

    [Fact]
    public void CompareOne_AMetricTheSlotsDoNotCarry_HasNoSlotBound()
    {
        var runs = new List<RunRecord>();
        for (var block = 1; block <= 3; block++)
        {
            runs.Add(Run("a", block, [1.0, 1.0]));
            runs.Add(Run("b", block, [1.0, 1.1]));
        }

        Assert.Null(VariantStatistics.CompareOne(runs, "a", "b", Metric.AllScenarios, Metrics.Rps, 2).SlotHalfWidthPercent);
        Assert.NotNull(VariantStatistics.CompareOne(runs, "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest, 2).SlotHalfWidthPercent);
    }

    /// <summary>A run whose 2 s slots cost the given milliseconds a request, 1000 requests each.</summary>
    private static RunRecord Run(string variant, int block, double[] msPerRequest) =>
        TestRuns.Ok(variant, block, block, 400) with
        {
            Cost = new CpuCost([.. msPerRequest.Select(ms => new CpuWindow(2, 1000, ms, null))]),
        };
}
