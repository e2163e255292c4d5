using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// The budget's plan of real experiment files with known durations: warm-ups at their cap, the time outside
/// measurement per block and per trace, and the time preparing already took out of the budget.
/// </summary>
public sealed class BudgetPlanTests
{
    private static readonly IReadOnlyList<ExperimentDefinition> _all = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder);

    private static ExperimentDefinition Named(string name) => _all.First(e => e.Name == name);

    [Fact]
    public void Minimum_WarmupsThatNeverSettle_PlannedAtTheirCap()
    {
        // framework's quick profile: warm-up until steady with a 25 s cap (tiering keeps it from settling: every warm-up
        // of a busy run hit the cap), 5 slots of 2 s, in alternating blocks of 3 variants.
        var framework = Named("framework");
        var profile = framework.Profiles[ProfileName.Quick];
        Assert.Equal((25.0, 10.0, 5), (profile.Warmup.TotalSeconds, profile.Duration.TotalSeconds, profile.Slots));

        var traced = RunOpening.Minimum(framework, profile, (3, 3), traced: true);
        var untraced = RunOpening.Minimum(framework, profile, (3, 3), traced: false);

        // 3 blocks × (3 × (25 + 5 × (2 + 0.5)) + 3 × 4 s of starts) + 5 s per experiment + 3 × 7 s of traces: its
        // runtimes tier, so its variants warm up in turn.
        Assert.Equal(25, traced.WarmupSeconds);
        Assert.Equal(25, traced.WarmupFloorSeconds); // its runtimes tier: the budget may not cut the warm-up
        Assert.Equal(3 * (3 * (25 + (5 * 2.5)) + (3 * 4)) + 5 + (3 * 7), traced.Seconds, 6);
        Assert.Equal(3 * 7, traced.Seconds - untraced.Seconds, 6);
        Assert.Equal(3 * 3 * (25 + (5 * 2.5)), traced.KnownSeconds, 6);
    }

    [Fact]
    public void Minimum_SingleRuns_StartInAFewSeconds()
    {
        // db-wait runs one SUT at a time (no slots): 3 s to start, confirm and stop each.
        var dbWait = Named("db-wait");
        var profile = dbWait.Profiles[ProfileName.Quick];
        Assert.Null(profile.Slots);

        var minimum = RunOpening.Minimum(dbWait, profile, (3, 2), traced: false);

        Assert.Equal((3 * 2 * 3) + 5, minimum.Seconds - minimum.KnownSeconds, 6);
    }

    [Theory]
    [InlineData(0, 15.0, false)]    // 174.5 s in a 3 min budget: unchanged
    [InlineData(20, 10.0, false)]   // 160 s left: warm-up caps 15 s -> 10 s (159.5 s), "went to preparing" said
    [InlineData(90, 5.0, true)]     // 90 s left: shortest, said to overrun, not refused (the timed part fits 3 min)
    public void FitBudget_TimeSpentPreparing_PlansIntoWhatIsLeft(int spentSeconds, double warmup, bool overrun)
    {
        // gc's quick minimum: 3 blocks × (15 + 3 × 3 × 2.5 + 3 × 4) + 5 + 3 × 7 = 174.5 s (its variants warm up at once).
        var gc = Named("gc");
        var changes = new List<string>();

        var fitted = RunOpening.FitBudget([gc], ProfileName.Quick, TimeSpan.FromMinutes(3), TimeSpan.FromSeconds(spentSeconds),
            traced: true, _ => (3, 3), changes);

        var profile = fitted.Experiments[0].Profiles[ProfileName.Quick];
        Assert.InRange(profile.Warmup.TotalSeconds, warmup - 1, warmup + 1);
        Assert.Equal(spentSeconds > 0, changes.Any(c => c.StartsWith($"{spentSeconds} s", StringComparison.Ordinal)
            && c.Contains("of the 3 min budget went to preparing", StringComparison.Ordinal)));
        Assert.Equal(overrun, changes.Any(c => c.Contains("min left: the run ends once they are done", StringComparison.Ordinal)));
        Assert.Equal(!overrun, fitted.Fits);
    }

    [Fact]
    public void FitBudget_TimedMinimumOverTheWholeBudget_RefusedWhateverWasSpent()
    {
        var ex = Assert.Throws<PerfLabException>(() =>
            RunOpening.FitBudget([Named("gc")], ProfileName.Quick, TimeSpan.FromSeconds(50), TimeSpan.FromSeconds(30),
                traced: false, _ => (3, 3), []));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("raise --budget to 2 min", ex.Message, StringComparison.Ordinal);
    }
}
