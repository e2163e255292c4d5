using PerfLab.Experiments.Running.Warmup;

namespace PerfLab.Tests.Experiments.Running;

public sealed class TieringRuleTests
{
    private static List<JitSecond> Seconds(params int[] compiles) =>
        compiles.Select((c, i) => new JitSecond(i, 0, c, 0)).ToList();

    [Theory]
    [InlineData(10_000, new[] { 30, 37 }, true)]        // the never-ending trickle after 10,000 methods: 100/s allowed
    [InlineData(10_000, new[] { 37, 101 }, false)]      // one second over 1 %
    [InlineData(1_000, new[] { 800, 400, 9, 10 }, true)] // a wave of 1,200 then 9 and 10 (allowed 22 and 22)
    [InlineData(1_000, new[] { 800, 400, 23, 10 }, false)]
    [InlineData(0, new[] { 3, 5 }, true)]               // nothing compiled before: the floor of 5 a second
    [InlineData(0, new[] { 3, 6 }, false)]
    [InlineData(50_000, new[] { 0 }, false)]            // one second is not enough
    public void IsSettled_KnownSeconds_HoldsOnlyWhenTheLastTwoStayUnderTheirAllowance(long before, int[] compiles, bool settled) =>
        Assert.Equal(settled, TieringRule.IsSettled(Seconds(compiles), before, queued: 0));

    [Theory]
    [InlineData(-1)]   // the background tier-1 worker is running a batch
    [InlineData(101)]  // it stopped with more queued than a second's allowance (1 % of 10,000)
    public void IsSettled_TierOneWorkerBusy_False(int queued) =>
        Assert.False(TieringRule.IsSettled(Seconds(0, 0), 10_000, queued));

    [Fact]
    public void IsSettled_FewMethodsQueued_TrueWhileTheyAreUnderOneSecondsAllowance() =>
        Assert.True(TieringRule.IsSettled(Seconds(0, 0), 10_000, queued: 100));

    [Fact]
    public void Allowance_SmallAndLargeCode_FloorThenOnePercent()
    {
        Assert.Equal(5, TieringRule.Allowance(100));
        Assert.Equal(120, TieringRule.Allowance(12_000), precision: 6);
    }

    [Theory]
    [InlineData(200, 10_000, 0, true)]     // 2 s of pulse at 1 % of 10,000 a second: 200 allowed
    [InlineData(201, 10_000, 0, false)]
    [InlineData(10, 0, 0, true)]           // the floor of 5 a second, over 2 s
    [InlineData(11, 0, 0, false)]
    [InlineData(0, 10_000, -1, false)]     // the worker still compiling when the pause ended
    [InlineData(0, 10_000, 101, false)]    // it stopped with more queued than a second's allowance
    public void IsPulseSettled_KnownPulse_HoldsOnlyUnderTheAllowanceWithTheWorkerIdle(long inPulse, long before, int queued, bool settled) =>
        Assert.Equal(settled, TieringRule.IsPulseSettled(inPulse, pulseSeconds: 2, before, queued));
}
