using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments.Running;

public sealed class TimeBudgetTests
{
    [Fact]
    public void AllowanceFor_Experiments_ShareInProportionToPlannedBlockTime()
    {
        var budget = new TimeBudget(TimeSpan.FromMinutes(20), [60, 120, 60]);

        Assert.Equal(TimeSpan.FromMinutes(5), budget.AllowanceFor(0));
    }

    [Fact]
    public void AllowanceFor_UnusedTime_IsCarriedForwardToTheNext()
    {
        var budget = new TimeBudget(TimeSpan.FromMinutes(20), [60, 120, 60]);

        budget.Spend(TimeSpan.FromMinutes(2)); // the first used 2 of its 5 minutes

        Assert.Equal(TimeSpan.FromMinutes(12), budget.AllowanceFor(1)); // 18 left, 120 of the 180 planned
        budget.Spend(TimeSpan.FromMinutes(16)); // the second overran
        Assert.Equal(TimeSpan.FromMinutes(2), budget.AllowanceFor(2));
        budget.Spend(TimeSpan.FromMinutes(5));
        Assert.Equal(TimeSpan.Zero, budget.Left);
    }

    [Theory]
    [InlineData(300, 200, 2, true)]  // 200 + 100 fits in 300
    [InlineData(290, 200, 2, false)]
    [InlineData(300, 0, 0, false)]
    public void HasRoomForBlock_AverageBlockSoFar_MustFitInTheAllowance(int allowance, int elapsed, int blocks, bool expected)
    {
        Assert.Equal(expected, TimeBudget.HasRoomForBlock(TimeSpan.FromSeconds(allowance), TimeSpan.FromSeconds(elapsed), blocks));
    }
}
