using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Experiments.Running.Blocks;

namespace PerfLab.Tests.Experiments.Running;

// --invocations N splits the budget evenly; a share the minimum blocks overrun is refused before the first invocation.
public sealed class InvocationSharesTests
{
    private static readonly ExperimentDefinition SyncAsync =
        ExperimentLoader.LoadFile(Path.Combine(PerfLabPaths.RepoRoot, "experiments", "sync-async.yaml"));

    private static readonly LabRunChoices Quick = new(ProfileName.Quick);

    [Fact]
    public void Check_TenInvocationsOfSyncAsyncIn20Minutes_RefusedNamingTheShareTheNeedAndABudgetThatFits()
    {
        var ex = Assert.Throws<PerfLabException>(() => InvocationShares.Check([SyncAsync], Quick, 10, TimeSpan.FromMinutes(20)));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.StartsWith("--invocations 10 gives each invocation 2 min of the budget, but each needs about ", ex.Message);
        var raise = System.Text.RegularExpressions.Regex.Match(ex.Message, @"raise --budget to (\d+)m or use fewer invocations$");
        Assert.True(raise.Success, ex.Message);
        // What it proposes fits: ten shares of it pass the same check.
        InvocationShares.Check([SyncAsync], Quick, 10, TimeSpan.FromMinutes(int.Parse(raise.Groups[1].Value,
            System.Globalization.CultureInfo.InvariantCulture)));
    }

    [Fact]
    public void Check_TwoInvocationsOfSyncAsyncIn20Minutes_Fits()
    {
        InvocationShares.Check([SyncAsync], Quick, 2, TimeSpan.FromMinutes(20));
    }

    // Seen on a busy machine: six invocations of sync-async in 30 minutes took 5.2-6.0 min each for 5-minute shares,
    // so the sixth got 1.7 minutes and was refused.
    [Theory]
    [InlineData(24.2, new[] { 5.5 }, 5, 4)]
    [InlineData(24.2, new[] { 4.8 }, 5, 5)]
    [InlineData(4.0, new[] { 5.2, 5.9 }, 2, 0)]
    [InlineData(30.0, new double[0], 6, 6)]
    public void Fitting_AtThePaceOfTheFinishedOnes_HowManyMoreTheTimeLeftHolds(double leftMinutes, double[] tookMinutes, int wanted,
        int expected)
    {
        var fitting = InvocationShares.Fitting(TimeSpan.FromMinutes(leftMinutes), [.. tookMinutes.Select(TimeSpan.FromMinutes)], wanted);

        Assert.Equal(expected, fitting);
    }
}
