using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments.Running;

public sealed class StoppingRuleTests
{
    private static readonly ProfileDefinition Fixed = new(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(5), 3, 1);

    [Fact]
    public void Decide_NoPrecision_StopsExactlyAtTheRepeatCount()
    {
        var rule = StoppingRule.For(Fixed, repeat: null, precisionPercent: null);

        Assert.False(rule.Decide(2, double.PositiveInfinity, true).Stop);
        var decision = rule.Decide(3, double.PositiveInfinity, true);
        Assert.True(decision.Stop);
        Assert.Equal("fixed repetitions", decision.Reason);
    }

    [Fact]
    public void Decide_BeforeTheMinimum_GoesOnEvenWhenPreciseAndOutOfBudget()
    {
        var rule = new StoppingRule(3, 10, 5);

        Assert.False(rule.Decide(2, 0.1, roomForAnotherBlock: false).Stop);
    }

    [Fact]
    public void Decide_WidestWithinTarget_StopsWithPrecisionReached()
    {
        var rule = new StoppingRule(3, 10, 5);

        Assert.False(rule.Decide(3, 5.01, true).Stop);
        var decision = rule.Decide(4, 4.96, true);
        Assert.True(decision.Stop);
        Assert.Equal("precision reached: widest half-width 5.0 % <= 5 %", decision.Reason);
    }

    [Fact]
    public void Decide_AtMaxBlocks_StopsEvenWhenNotPrecise()
    {
        var decision = new StoppingRule(3, 6, 5).Decide(6, 12.34, true);

        Assert.True(decision.Stop);
        Assert.StartsWith("maximum of 6 blocks reached: widest half-width 12.3 %", decision.Reason);
    }

    [Fact]
    public void Decide_NoRoomForAnotherBlock_StopsWithBudgetSpent()
    {
        var decision = new StoppingRule(3, 20, 5).Decide(4, double.PositiveInfinity, roomForAnotherBlock: false);

        Assert.True(decision.Stop);
        Assert.Equal("budget spent: widest half-width not yet computable, target 5 %", decision.Reason);
    }

    [Theory]
    [InlineData(4.234, "4.2 %")]
    [InlineData(1000, "1000.0 %")]
    [InlineData(20581024.0, "over 1000 %")]
    [InlineData(double.PositiveInfinity, "not yet computable")]
    [InlineData(double.NaN, "not yet computable")]
    public void Describe_WidestHalfWidth_AsTheProgressLineSaysIt(double percent, string expected) =>
        Assert.Equal(expected, StoppingRule.Describe(percent));

    [Fact]
    public void Decide_TwoBlocksOfANoisyRatio_SaysOver1000PercentNotItsDigits()
    {
        var decision = new StoppingRule(2, 20, 5).Decide(2, 20581024.0, roomForAnotherBlock: false);

        Assert.Equal("budget spent: widest half-width over 1000 %, target 5 %", decision.Reason);
    }

    [Fact]
    public void For_CommandLineOverrides_TakePrecedenceOverTheProfile()
    {
        var adaptive = Fixed with { PrecisionPercent = 10, MaxRepeat = 8 };

        Assert.Equal(new StoppingRule(3, 8, 10), StoppingRule.For(adaptive, null, null));
        Assert.Equal(new StoppingRule(5, 8, 2.5), StoppingRule.For(adaptive, 5, 2.5));
        Assert.Equal(new StoppingRule(3, StoppingRule.DefaultMaxBlocks, 5), StoppingRule.For(Fixed, null, 5));
        Assert.Equal(new StoppingRule(9, 9, 10), StoppingRule.For(adaptive, 9, null));
    }

    private static Comparison Change(string variant, string scenario, string metric, double low, double high) => new()
    {
        Variant = variant,
        Scenario = scenario,
        Metric = Metrics.Get(metric),
        HigherIsBetter = metric == "rps",
        ChangePercent = (low + high) / 2,
        LowPercent = low,
        HighPercent = high,
        NoiseFloorPercent = 5,
        Verdict = Verdict.Inconclusive,
    };

    [Fact]
    public void WidestHalfWidth_PrimaryComparisons_TakesTheWidestAndIgnoresOthers()
    {
        var comparisons = new[]
        {
            Change("b", "all", "rps", -2, 6),       // half-width 4
            Change("c", "all", "rps", 10, 16),      // 3
            Change("b", "all", "p99-ms", -50, 50),  // not primary
            Change("b", "orders", "rps", -40, 40),  // not primary
        };

        Assert.Equal(4, StoppingRule.WidestHalfWidth(comparisons), 9);
        Assert.Equal(7, StoppingRule.WidestHalfWidth([Change("b", "all", "batch-mean-ms", -9, 5)]), 9);
    }

    [Theory]
    [InlineData(-2, 6, 4)]            // small changes: points and ratio agree, the points are narrower here
    [InlineData(10, 16, 2.6911)]      // a gain: √(1.16 / 1.10) − 1
    [InlineData(675, 860, 11.2973)]   // nine-fold: ±92.5 points, ×/÷ 1.113 relative to itself
    [InlineData(-81.4, -78.6, 1.4)]   // a five-fold drop in time: 1.4 points, ×/÷ 1.073
    [InlineData(-110, -90, 10)]       // an interval reaching below zero has no ratio: points
    public void HalfWidth_OfAnInterval_IsTheNarrowerOfPointsAndRatio(double low, double high, double expected)
    {
        Assert.Equal(expected, Statistics.HalfWidth(low, high), 3);
    }

    [Fact]
    public void WidestHalfWidth_ComparisonWithoutInterval_IsInfinite()
    {
        var comparisons = new[] { Change("b", "all", "rps", -1, 1), Change("c", "all", "rps", double.NaN, double.NaN) };

        Assert.Equal(double.PositiveInfinity, StoppingRule.WidestHalfWidth(comparisons));
    }
}
