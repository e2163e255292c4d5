using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Results;
using PerfLab.Tests.Reports;

namespace PerfLab.Tests.Results;

/// <summary>
/// no-worse as non-inferiority and the change gates on the interval's worse end: comparisons with known intervals and
/// noise floors, so which end a gate read, and against which margin, shows in whether it held.
/// </summary>
public sealed class IntervalGateTests
{
    [Fact]
    public void NoWorse_AaLikeIntervalWithinTheNoiseFloor_Passes()
    {
        // An A/A's change: +0.5 % [-2, +3], floor 5 %: the worse end -2 % lies within -5 %.
        var check = Single("no-worse", Compared("rps", 0.5, -2, 3, Verdict.Equivalent));

        Assert.True(check.Passed, check.Observed);
        Assert.Equal("RPS +0.5 %; worse end -2 % within the margin -5 % (noise floor)", check.Observed);
    }

    [Fact]
    public void NoWorse_InconclusiveWideInterval_FailsAndSaysWhatWouldDecideIt()
    {
        // -1 % [-12, +10] from 3 blocks: inconclusive, which the old gate passed. The worse end -12 % is beyond -5 %. On the
        // log scale the interval was taken on, a half-width under ln(0.99 / 0.95) (4.2 %) would decide it: about
        // 3 × (ln(0.99 / 0.88) / ln(0.99 / 0.95))² = 24.5, so 25 blocks.
        var check = Single("no-worse", Compared("rps", -1, -12, 10, Verdict.Inconclusive));

        Assert.False(check.Passed);
        Assert.Equal("RPS -1 %; worse end -12 % beyond the margin -5 % (noise floor); undecided: a 95 % half-width under 4.2 % "
            + "would decide it (--precision 4.2%, about 25 blocks, e.g. --repeat 25)", check.Observed);
    }

    [Fact]
    public void NoWorse_WorseVerdict_FailsAndSaysMoreBlocksWillNotPassIt()
    {
        var check = Single("no-worse", Compared("rps", -10, -13, -7, Verdict.Worse));

        Assert.False(check.Passed);
        Assert.EndsWith("beyond the margin -5 % (noise floor); the change itself is past it: more blocks will not pass it",
            check.Observed, StringComparison.Ordinal);
    }

    [Fact]
    public void NoWorse_LowerIsBetter_ReadsTheIntervalsHighEndAsItsWorse()
    {
        // Cost per request +2 % [-1, +7]: up to 7 % dearer, beyond a 5 % floor; the same interval on RPS would pass.
        var check = Single("no-worse", Compared("cpu-per-request", 2, -1, 7, Verdict.Inconclusive));

        Assert.False(check.Passed);
        Assert.StartsWith("CPU per request +2 %, read as -2 % (lower is better); worse end -7 % beyond", check.Observed,
            StringComparison.Ordinal);
        Assert.True(Single("no-worse", Compared("rps", 2, -1, 7, Verdict.Inconclusive)).Passed);
    }

    [Fact]
    public void NoWorse_StatedMargin_ReplacesTheNoiseFloor_AndTheGatesOwnMarginWins()
    {
        // -4 % [-8, 0]: beyond the 5 % floor, within a stated 10 %.
        var comparison = Compared("rps", -4, -8, 0, Verdict.Inconclusive);

        Assert.False(Single("no-worse", comparison).Passed);
        var stated = Single(Threshold.Parse("no-worse").WithMargin(10), comparison);
        Assert.True(stated.Passed, stated.Observed);
        Assert.Contains("within the margin -10 % (stated)", stated.Observed, StringComparison.Ordinal);
        Assert.True(Single("no-worse(9%)", comparison).Passed);
        Assert.False(Single(Threshold.Parse("no-worse(3%)").WithMargin(10), comparison).Passed);
    }

    [Theory]
    [InlineData("margin: 10%\n", null, true)]
    [InlineData("margin: 10%\n", 3.0, false)]
    [InlineData("", null, false)]
    [InlineData("", 9.0, true)]
    public void Gated_FilesMarginOrTheCommandLines_IsNoWorsesMargin(string margin, double? commandLine, bool passes)
    {
        // -4 % [-8, 0]: beyond the 5 % floor, within 9 or 10 %, beyond 3 %. The file's margin: is read by the loader.
        var file = Path.Combine(PerfLabPaths.RepoRoot, "samples", "ci", "perf", "pr.yaml");
        var definition = ExperimentLoader.Parse(File.ReadAllText(file) + margin, file) with { Name = "api" };
        var results = Results(Compared("rps", -4, -8, 0, Verdict.Inconclusive));

        var gated = LabRun.Gated(results, [definition], [Threshold.Parse("no-worse")], commandLine);

        Assert.Equal(passes, Assert.Single(gated.Thresholds).Passed);
    }

    [Fact]
    public void ChangeGate_ReadsTheWorseEndNotThePointEstimate()
    {
        // -3 % passes change>-5% as a point; its interval [-7, +1] does not.
        var wide = Single("change>-5%", Compared("rps", -3, -7, 1, Verdict.Inconclusive));
        var narrow = Single("change>-5%", Compared("rps", -3, -4.5, -1.5, Verdict.Inconclusive));

        Assert.False(wide.Passed);
        Assert.Equal("RPS -3 %; worse end -7 % does not hold; undecided: a 95 % half-width under 2.1 % would decide it "
            + "(--precision 2.1%, about 13 blocks, e.g. --repeat 13)", wide.Observed);
        Assert.True(narrow.Passed, narrow.Observed);
    }

    [Fact]
    public void ChangeGate_UpperBound_ReadsTheBetterEnd()
    {
        // change<10%: "at most 10 % better" holds only when the whole interval stays under it.
        Assert.False(Single("change<10%", Compared("rps", 8, 6, 11, Verdict.Better)).Passed);
        Assert.True(Single("change<10%", Compared("rps", 8, 6, 9.5, Verdict.Better)).Passed);
    }

    [Theory]
    [InlineData("no-worse")]
    [InlineData("change>-50%")]
    public void Gate_WithoutAnInterval_FailsAndNamesTheProfile(string gate)
    {
        var check = Single(gate, Compared("rps", 1, double.NaN, double.NaN, Verdict.Inconclusive));

        Assert.False(check.Passed);
        Assert.Contains("no 95 % interval (one repetition): run at least 2 blocks (--profile quick", check.Observed,
            StringComparison.Ordinal);
    }

    [Fact]
    public void Gate_ReadingAComparison_NamesItForJunit()
    {
        var check = Single("no-worse", Compared("rps", -10, -13, -7, Verdict.Worse));

        Assert.Equal(["api / b / all / rps"], check.Reads);
    }

    [Theory]
    [InlineData("no-worse(3%)", 3.0, "no-worse(3%)")]
    [InlineData(" No-Worse ( 2.5 ) ", 2.5, "no-worse(2.5%)")]
    public void Parse_NoWorseWithAMargin_KeepsIt(string text, double margin, string written)
    {
        var t = Threshold.Parse(text);

        Assert.Equal((Threshold.NoWorse, margin, written), (t.Metric, t.Margin, t.Text));
        Assert.True(t.NeedsInterval);
        Assert.False(Threshold.Parse("p99<1s").NeedsInterval);
    }

    [Theory]
    [InlineData("no-worse(0%)")]
    [InlineData("no-worse(big)")]
    public void Parse_NoWorseWithABadMargin_IsAUsageError(string text)
    {
        var ex = Assert.Throws<PerfLabException>(() => Threshold.Parse(text));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("no-worse's margin is a percentage above 0 and below 100", ex.Message, StringComparison.Ordinal);
    }

    private static ThresholdCheck Single(string gate, Comparison comparison) => Single(Threshold.Parse(gate), comparison);

    private static ThresholdCheck Single(Threshold gate, Comparison comparison) =>
        Assert.Single(ThresholdGate.Evaluate(Results(comparison), _ => [gate]));

    /// <summary>One experiment "api", b against a over 3 blocks, decided by the comparison's metric, with that comparison alone.</summary>
    private static RunResults Results(Comparison comparison)
    {
        var sample = ReportFixtures.Sample();
        var experiment = sample.Experiments[0] with
        {
            Name = "api", Baseline = "a", Variants = ["a", "b"], Scenarios = ["s"], DecidedBy = comparison.Metric, Blocks = 3,
            Comparisons = [comparison],
        };
        return sample with { Experiments = [experiment] };
    }

    /// <summary>Variant b against a on <paramref name="metric"/>, all scenarios, paired over 3 blocks, noise floor 5 %.</summary>
    private static Comparison Compared(string metric, double change, double low, double high, Verdict verdict) => new()
    {
        Variant = "b", Scenario = "all", Metric = Metrics.Get(metric), HigherIsBetter = Metrics.Get(metric).HigherIsBetter,
        ChangePercent = change, LowPercent = low, HighPercent = high, NoiseFloorPercent = 5, Method = "paired", Pairs = 3,
        Verdict = verdict,
    };
}
