using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments.Running;

public sealed class BudgetFitTests
{
    // 3 blocks of 3 variants, 15 s warm-up, 3 slots of 2 s (+0.5 s re-warm each), 10 s outside measurement per block:
    // 3 × (3 × (15 + 7.5) + 10) = 232.5 s.
    private static MinimumBlocks Serializer => new("serializer", 3, 3, 15, 3, 2, 10);

    [Fact]
    public void Plan_MinimumWithinBudget_Unchanged()
    {
        var fit = BudgetFit.Plan([Serializer], TimeSpan.FromMinutes(4));

        Assert.True(fit.Fits);
        Assert.Equal(232.5, fit.NeededSeconds, 6);
        Assert.Empty(fit.Changes);
        Assert.Equal("the minimum blocks fit the budget as planned", fit.Describe(TimeSpan.FromMinutes(4)));
    }

    [Fact]
    public void Plan_SomewhatOver_WarmupsShortenedJustEnough()
    {
        // 200 s: 32.5 s too many; warm-ups down to 5 s would save 90 s, so each cap drops by 36 % of its 10 s,
        // rounded down: 11 s (196.5 s).
        var fit = BudgetFit.Plan([Serializer], TimeSpan.FromSeconds(200));

        Assert.True(fit.Fits);
        Assert.Equal(11, fit.Planned[0].WarmupSeconds);
        Assert.Equal(3, fit.Planned[0].Slots);
        Assert.Equal(["serializer: warm-up cap 15 s -> 11 s"], fit.Changes);
        Assert.InRange(fit.NeededSeconds, 0, 200);
    }

    [Fact]
    public void Plan_FarOver_WarmupsAtTheirShortestThenFewerSlots()
    {
        // 5 s warm-ups: 3 × (3 × 12.5 + 10) = 142.5 s; 2 slots: 3 × (3 × 10 + 10) = 120 s.
        var fit = BudgetFit.Plan([Serializer], TimeSpan.FromSeconds(125));

        Assert.True(fit.Fits);
        Assert.Equal((5.0, 2), (fit.Planned[0].WarmupSeconds, fit.Planned[0].Slots));
        Assert.Equal(["serializer: warm-up cap 15 s -> 5 s", "serializer: 3 slots -> 2 per variant"], fit.Changes);
    }

    [Fact]
    public void Plan_WarmupsAtOnce_ABlockCountsOneWarmupAndKeepsItsSlots()
    {
        // Warmed up together, a block's three warm-ups last one cap: 3 × (15 + 3 × 7.5 + 10) = 142.5 s, which 150 s holds
        // as planned; in turn (232.5 s) the same budget cuts every warm-up from 15 s to 5 s (142.5 s).
        var fit = BudgetFit.Plan([Serializer with { WarmupsAtOnce = true }], TimeSpan.FromSeconds(150));
        var inTurn = BudgetFit.Plan([Serializer], TimeSpan.FromSeconds(150));

        Assert.Equal(142.5, fit.NeededSeconds, 6);
        Assert.Empty(fit.Changes);
        Assert.Equal(["serializer: warm-up cap 15 s -> 5 s"], inTurn.Changes);
    }

    // framework's minimum: 3 blocks of 3 tiered runtimes, a 25 s warm-up the budget may not cut, 5 slots of 2 s:
    // 3 × (3 × (25 + 12.5) + 10) = 367.5 s.
    private static MinimumBlocks Framework => new("framework", 3, 3, 25, 5, 2, 10, WarmupFloorSeconds: 25);

    [Fact]
    public void Plan_ATieredRuntimeBesideAnother_ItsWarmupKeptWholeTheOthersCutThenItsSlots()
    {
        // 232.5 + 367.5 = 600 s against 500: serializer's warm-ups alone can give 90 s, so they go to 5 s (510 s); then
        // framework's slots, the most, 5 -> 4: 3 × (3 × (25 + 10) + 10) = 345 s, 487.5 s in all.
        var fit = BudgetFit.Plan([Serializer, Framework], TimeSpan.FromSeconds(500));

        Assert.True(fit.Fits);
        Assert.Equal((5.0, 3), (fit.Planned[0].WarmupSeconds, fit.Planned[0].Slots));
        Assert.Equal((25.0, 4), (fit.Planned[1].WarmupSeconds, fit.Planned[1].Slots));
        Assert.Equal(487.5, fit.NeededSeconds, 6);
        Assert.Equal(["serializer: warm-up cap 15 s -> 5 s",
            "framework: warm-up cap 25 s kept (its runtimes tier: it ends once tiering settles)",
            "framework: 5 slots -> 4 per variant"], fit.Changes);
    }

    [Theory]
    // serializer at 2 slots and 5 s warm-ups: 3 × (3 × (5 + 5) + 10) = 120 s.
    [InlineData(false, 60, 120, "the minimum blocks need 2 min even with 2 slots and 5 s warm-ups, more than the budget of 1 min: " +
        "raise --budget to 2 min or run fewer experiments")]
    // framework at 2 slots, its warm-up kept: 3 × (3 × (25 + 5) + 10) = 300 s.
    [InlineData(true, 200, 300, "the minimum blocks need 5 min even with 2 slots and 5 s warm-ups (kept whole where runtimes " +
        "tier: framework's 25 s), more than the budget of 3.3 min: raise --budget to 5 min or run fewer experiments")]
    public void Plan_EvenTheShortestOver_RefusedWithWhatWouldFit(bool tiered, int budgetSeconds, double needed, string message)
    {
        var fit = BudgetFit.Plan([tiered ? Framework : Serializer], TimeSpan.FromSeconds(budgetSeconds));

        Assert.False(fit.Fits);
        Assert.Equal(needed, fit.NeededSeconds, 6);
        Assert.Equal(message, fit.Describe(TimeSpan.FromSeconds(budgetSeconds)));
    }
}
