using PerfLab.Experiments.Analysis;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

/// <summary>Short windows' pairing rule on synthetic windows whose cores' speed changes at a known window.</summary>
public sealed class CostPairsTests
{
    /// <summary>
    /// Eight 250 ms windows a side, 100 requests each: the baseline costs 1.0 ms a request at full speed, the variant
    /// 10 % more. The cores slow 1.7x from the fifth pair on, and the fifth pair straddles the change: its baseline window
    /// ran at full speed, its variant's slow (the kernel charged it 1.7x the CPU).
    /// </summary>
    private static (RunRecord Baseline, RunRecord Candidate) SpeedChangeAtPairFive(int block = 1)
    {
        var speed = new[] { 1.0, 1.0, 1.0, 1.0, 1.0, 1.7, 1.7, 1.7 };
        var candidateSpeed = new[] { 1.0, 1.0, 1.0, 1.0, 1.7, 1.7, 1.7, 1.7 };
        CpuWindow Window(double msAtFullSpeed, double slowdown) => new(0.25, 100, 100 * msAtFullSpeed * slowdown / 1000, null, 0, slowdown);
        return (Run("a", block, speed.Select(s => Window(1.0, s))), Run("b", block, candidateSpeed.Select(s => Window(1.1, s))));
    }

    [Fact]
    public void Kept_PairStraddlingASpeedChange_IsDroppedAndTheKernelCostReadsTheTrueTenPercent()
    {
        var (a, b) = SpeedChangeAtPairFive();

        var kept = CostPairs.Kept(a, b, Metrics.CpuPerRequest)!.Value;

        // Kept: pairs 1-4 at full speed and 6-8 at 1.7x, both sides alike: (4 × 100 + 3 × 170) / 700 = 1.3 ms, and 1.43.
        Assert.Equal(1.3, kept.Baseline, 9);
        Assert.Equal(1.43, kept.Candidate, 9);
        // Over all eight windows the straddling pair would read +17.6 % instead of +10 %.
        var all = Metrics.CpuPerRequest.Read(b, Metric.AllScenarios) / Metrics.CpuPerRequest.Read(a, Metric.AllScenarios);
        Assert.Equal(1188.0 / 1010, all, 9);
    }

    [Fact]
    public void Kept_AtFullSpeed_EachKeptWindowDividedByItsSlowdown()
    {
        var (a, b) = SpeedChangeAtPairFive();

        var kept = CostPairs.Kept(a, b, Metrics.CpuPerRequestAtFullSpeed)!.Value;

        Assert.Equal(1.0, kept.Baseline, 9);
        Assert.Equal(1.1, kept.Candidate, 9);
    }

    [Theory]
    [InlineData(1.0, 1.10, true)]
    [InlineData(1.10, 1.0, true)]
    [InlineData(1.0, 1.11, false)]
    [InlineData(1.7, 1.0, false)]
    public void Matched_SlowdownsWithinTenPercent_Kept(double x, double y, bool kept) =>
        Assert.Equal(kept, CostPairs.Matched(new CpuWindow(0.25, 10, 0.01, null, 0, x), new CpuWindow(0.25, 10, 0.01, null, 0, y)));

    [Fact]
    public void Matched_WindowWithoutRequestsOrOneSpeedUnknown_Dropped()
    {
        // One window's database edge not answered: its cost is the app's alone, no pair for one with the database's.
        Assert.False(CostPairs.Matched(new CpuWindow(0.25, 10, 0.01, 0.004, 0, 1.0), new CpuWindow(0.25, 10, 0.01, null, 0, 1.0)));
        Assert.True(CostPairs.Matched(new CpuWindow(0.25, 10, 0.01, 0.004, 0, 1.0), new CpuWindow(0.25, 10, 0.01, 0.003, 0, 1.0)));
        Assert.False(CostPairs.Matched(new CpuWindow(0.25, 0, 0.01, null, 0, 1.0), new CpuWindow(0.25, 10, 0.01, null, 0, 1.0)));
        Assert.False(CostPairs.Matched(new CpuWindow(0.25, 10, 0.01, null, 0, 1.0), new CpuWindow(0.25, 10, 0.01, null)));
        Assert.True(CostPairs.Matched(new CpuWindow(0.25, 10, 0.01, null), new CpuWindow(0.25, 10, 0.01, null)));
    }

    [Fact]
    public void Kept_TwoSecondSlotsOrAnotherMetric_RuleDoesNotApply()
    {
        var slow = new CpuWindow(2, 100, 0.1, null, 0, 1.0);
        var fast = new CpuWindow(2, 100, 0.2, null, 0, 1.7);
        Assert.Null(CostPairs.Kept(Run("a", 1, [slow, slow]), Run("b", 1, [fast, slow]), Metrics.CpuPerRequest));
        var (a, b) = SpeedChangeAtPairFive();
        Assert.Null(CostPairs.Kept(a, b, Metrics.Rps));
    }

    [Fact]
    public void Kept_NoPairAtAMatchingSpeed_BlockGivesNoPair()
    {
        var a = Run("a", 1, [new CpuWindow(0.25, 100, 0.1, null, 0, 1.0)]);
        var b = Run("b", 1, [new CpuWindow(0.25, 100, 0.17, null, 0, 1.7)]);

        var kept = CostPairs.Kept(a, b, Metrics.CpuPerRequest)!.Value;

        Assert.True(double.IsNaN(kept.Baseline) && double.IsNaN(kept.Candidate));
        Assert.Empty(VariantStatistics.Pairs([a, b], "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest));
    }

    [Fact]
    public void CompareOne_ShortWindowsWithASpeedChangeInEveryBlock_ReadsTheTrueChange()
    {
        var runs = Enumerable.Range(1, 3).SelectMany(block => SpeedChangeAtPairFive(block) is var (a, b) ? new[] { a, b } : []).ToList();

        var c = VariantStatistics.CompareOne(runs, "a", "b", Metric.AllScenarios, Metrics.CpuPerRequest, 2);

        Assert.Equal(3, c.Pairs);
        Assert.Equal(10, c.ChangePercent, 6);
    }

    private static RunRecord Run(string variant, int block, IEnumerable<CpuWindow> windows) =>
        TestRuns.Ok(variant, block, block, 400) with { Cost = new CpuCost([.. windows]) };
}
