using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Results;
using PerfLab.Tests.Reports;

namespace PerfLab.Tests.Results;

/// <summary>
/// The change gate reads the deciding metric, better positive, on its interval's worse end: results whose cost per request
/// and RPS moved in contrary directions by known amounts (each ±1 point), so which one a gate read shows in whether it held.
/// </summary>
public sealed class ChangeGateTests
{
    [Theory]
    [InlineData("rps-change>-5%", "rps")]
    [InlineData("cost-change>=-3%", "cpu-per-request")]
    [InlineData("cpu-per-request-change>-3%", "cpu-per-request")]
    [InlineData("latency-change>-10%", "p99-ms")]
    [InlineData("p99-change>-10%", "p99-ms")]
    [InlineData("batch-mean-ms-change>-10%", "batch-mean-ms")]
    public void Parse_MetricChange_IsAChangeOfThatMetric(string text, string key)
    {
        var t = Threshold.Parse(text);

        Assert.Equal((Threshold.Change, key, true), (t.Metric, t.ChangeOf?.Key, t.Percent));
        Assert.Null(Threshold.Parse("change>-5%").ChangeOf);
    }

    [Theory]
    [InlineData("speed-change>-5%", "'speed' is not a metric a change can be read of")]
    [InlineData("rps-change>-5", "rps-change is a percentage")]
    public void Parse_BadMetricChange_IsAUsageErrorNamingWhatToWrite(string text, string message)
    {
        var ex = Assert.Throws<PerfLabException>(() => Threshold.Parse(text));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains(message, ex.Message);
    }

    [Fact]
    public void Evaluate_DecidedByCostCheaperButSlower_ChangeFollowsCostAndSaysSo()
    {
        // Cost per request 6 % lower (better), RPS 8 % lower (worse): the gate reads cost, a drop counting +6 %.
        var results = Decided("cpu-per-request", costChange: -6, rpsChange: -8);

        var checks = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("change>-5%"), Threshold.Parse("rps-change>-5%")]);

        Assert.Equal(
            new[]
            {
                ("change>-5%", "api / b vs a (cpu-per-request)",
                    "CPU per request -6 %, read as +6 % (lower is better); worse end +5 % holds", true),
                ("rps-change>-5%", "api / b vs a (rps)",
                    "RPS -8 %; worse end -9 % does not hold; the change itself is past it: more blocks will not pass it", false),
            },
            checks.Select(c => (c.Threshold, c.Scope, c.Observed, c.Passed)).ToArray());
    }

    [Fact]
    public void Evaluate_DecidedByCostDearerButFaster_ChangeFailsOnCost()
    {
        var results = Decided("cpu-per-request", costChange: 6, rpsChange: 8);

        var check = Assert.Single(ThresholdGate.Evaluate(results, _ => [Threshold.Parse("change>-5%")]));

        Assert.False(check.Passed);
        Assert.StartsWith("CPU per request +6 %, read as -6 % (lower is better); worse end -7 % does not hold", check.Observed,
            StringComparison.Ordinal);
    }

    [Fact]
    public void Evaluate_DecidedByRps_ChangeReadsRpsWhateverTheCost()
    {
        var results = Decided("rps", costChange: -6, rpsChange: -8);

        var check = Assert.Single(ThresholdGate.Evaluate(results, _ => [Threshold.Parse("change>-5%")]));

        Assert.Equal(("api / b vs a (rps)", false), (check.Scope, check.Passed));
        Assert.StartsWith("RPS -8 %; worse end -9 %", check.Observed, StringComparison.Ordinal);
    }

    [Fact]
    public void Evaluate_CostAskedButNeverCompared_NamesTheMissingComparison()
    {
        var results = Decided("rps", costChange: -6, rpsChange: -8);

        var rpsOnly = results.Experiments[0] with { Comparisons = [.. results.Experiments[0].Comparisons.Where(c => c.Metric.Key == "rps")] };

        var check = Assert.Single(ThresholdGate.Evaluate(results with { Experiments = [rpsOnly] }, _ => [Threshold.Parse("cost-change>-5%")]));

        Assert.Equal(("no CPU per request comparison against the baseline", false), (check.Observed, check.Passed));
    }

    [Fact]
    public void CompareResults_CostDownRpsDown_ChangeFollowsCostRpsChangeFollowsRps()
    {
        // The sample's serializer decides on cost: B's runs cost 0.94 ms per request against A's 1.00 (-6 %), and serve
        // 8 % fewer requests.
        // Every run of a side costs the same: a zero-width interval, so the gate reads the change itself.
        var a = WithCost(ReportFixtures.Scaled(1.0, 0.04, "a"), 1.00);
        var b = WithCost(ReportFixtures.Scaled(0.92, 0.04, "b"), 0.94);

        var compared = ResultsComparer.Compare(a, b, "a", "b")
            .WithGates([Threshold.Parse("change>-5%"), Threshold.Parse("rps-change>-5%")]);

        var change = compared.Thresholds.Where(c => c.Threshold == "change>-5%").ToList();
        Assert.Equal(3, change.Count); // every variant of B against the same variant in A
        // The source-generated variant ran once on each side: no interval, so its gate fails whatever the change.
        var once = Assert.Single(change, c => c.Scope.Contains("sourcegen", StringComparison.Ordinal));
        Assert.False(once.Passed);
        change.Remove(once);
        Assert.All(change, c => Assert.Equal(("CPU per request -6 %, read as +6 % (lower is better); worse end +6 % holds", true),
            (c.Observed, c.Passed)));
        Assert.All(change, c => Assert.EndsWith("/ all: b vs a", c.Scope, StringComparison.Ordinal));
        var rps = compared.Thresholds.Where(c => c.Threshold == "rps-change>-5%").ToList();
        Assert.NotEmpty(rps);
        Assert.All(rps, c => Assert.StartsWith("RPS -8 %; ", c.Observed, StringComparison.Ordinal));
        Assert.All(rps, c => Assert.False(c.Passed));
    }

    /// <summary>Every successful run costing <paramref name="msPerRequest"/> ms of CPU per request (1,000 requests a window).</summary>
    private static RunResults WithCost(RunResults results, double msPerRequest) => results with
    {
        Experiments = [.. results.Experiments.Select(e => e with
        {
            Runs = [.. e.Runs.Select(r => r with { Cost = new CpuCost([new CpuWindow(2, 1000, msPerRequest, null)]) })],
        })],
    };

    /// <summary>One experiment decided by <paramref name="decidedBy"/>, variant b against a with the changes given.</summary>
    private static RunResults Decided(string decidedBy, double costChange, double rpsChange)
    {
        static Comparison Compared(string metric, bool higher, double change) => new()
        {
            Variant = "b", Scenario = "all", Metric = Metrics.Get(metric), HigherIsBetter = higher, ChangePercent = change,
            LowPercent = change - 1, HighPercent = change + 1, NoiseFloorPercent = 3,
            Verdict = (change > 0) == higher ? Verdict.Better : Verdict.Worse,
        };
        var sample = ReportFixtures.Sample();
        var experiment = sample.Experiments[0] with
        {
            Name = "api", Baseline = "a", Variants = ["a", "b"], Scenarios = ["s"], DecidedBy = Metrics.Get(decidedBy),
            Comparisons = [Compared("rps", true, rpsChange), Compared("cpu-per-request", false, costChange)],
        };
        return sample with { Experiments = [experiment] };
    }
}
