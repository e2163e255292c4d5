using PerfLab.Common;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>The budget is one value: asked once, defaulted in one place, handed to a child invocation exactly.</summary>
public sealed class TimeBudgetTests
{
    [Fact]
    public void ForChild_AShare_ReadsBackToTheMillisecondFromNow()
    {
        var share = TimeSpan.FromMilliseconds(123_456.7);
        var before = DateTimeOffset.Now.ToUnixTimeMilliseconds();

        var environment = TimeBudget.ForChild(share);

        Assert.Equal(TimeSpan.FromMilliseconds(123_456), TimeBudget.FromParent(environment[PerfLabSettings.InvocationBudget]));
        var started = long.Parse(environment[PerfLabSettings.InvokedAt], System.Globalization.CultureInfo.InvariantCulture);
        Assert.InRange(started, before, DateTimeOffset.Now.ToUnixTimeMilliseconds());
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("0")]
    [InlineData("-5000")]
    [InlineData("90s")]
    public void FromParent_NotAPositiveMillisecondCount_IsNoShare(string? text)
    {
        Assert.Null(TimeBudget.FromParent(text));
    }

    [Fact]
    public void Asked_ATotal_CountsFromTheInvocationsStart()
    {
        var budget = TimeBudget.Asked(TimeSpan.FromMinutes(5));

        Assert.Equal((TimeSpan.FromMinutes(5), Invocation.StartedAt), (budget.Total, budget.Started));
        Assert.True(budget.Left() < budget.Total);
    }
}
