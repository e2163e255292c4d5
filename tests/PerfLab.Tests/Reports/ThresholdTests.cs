using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

/// <summary>CI gates: parsing, checking on hand-written results with known figures, and the exit codes they give.</summary>
public sealed class ThresholdTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-thresholds-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Theory]
    [InlineData("p99<250ms", "p99", "<", 250.0, false)]
    [InlineData("P95 <= 0.25s", "p95", "<=", 250.0, false)]
    [InlineData("mean<20ms", "mean", "<", 20.0, false)]
    [InlineData("p99.9<1s", "p99.9", "<", 1000.0, false)]
    [InlineData("errors<1%", "errors", "<", 1.0, true)]
    [InlineData("errors<=0", "errors", "<=", 0.0, false)]
    [InlineData("change>-5%", "change", ">", -5.0, true)]
    [InlineData("rps>=1000", "rps", ">=", 1000.0, false)]
    public void Parse_KnownForms_GiveMetricOperatorAndValueInTheMetricsUnit(string text, string metric, string op, double value, bool percent)
    {
        var t = Threshold.Parse(text);
        Assert.Equal((metric, op, value, percent), (t.Metric, t.Operator, t.Value, t.Percent));
    }

    [Theory]
    [InlineData("p99<250", "a latency needs a unit")]
    [InlineData("errors<1ms", "errors is a rate in percent")]
    [InlineData("change>-5", "change is a percentage")]
    [InlineData("rps>10%", "rps is a plain number")]
    [InlineData("latency<5ms", "unknown metric 'latency'")]
    [InlineData("p99=250ms", "a threshold is METRIC<VALUE")]
    [InlineData("", "a threshold is METRIC<VALUE")]
    public void Parse_Malformed_IsAUsageErrorThatSaysHowToWriteIt(string text, string message)
    {
        var ex = Assert.Throws<PerfLabException>(() => Threshold.Parse(text));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains(message, ex.Message);
    }

    [Fact]
    public void Evaluate_LatencyErrorsAndRps_ChecksEachVariantOnTheMedianOfItsRuns()
    {
        var results = Results();

        var checks = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("p99<150ms"), Threshold.Parse("errors<1%"), Threshold.Parse("rps>=95")]);

        Assert.Equal(
            new[]
            {
                ("p99<150ms", "api / a / s", "120 ms", true), ("p99<150ms", "api / b / s", "220 ms", false),
                ("errors<1%", "api / a / s", "0 %", true), ("errors<1%", "api / b / s", "3 %", false),
                ("rps>=95", "api / a / s", "100 RPS", true), ("rps>=95", "api / b / s", "92 RPS", false),
            },
            checks.Select(c => (c.Threshold, c.Scope, c.Observed, c.Passed)).ToArray());
    }

    [Fact]
    public void Evaluate_ChangeAndNoWorse_ReadTheComparisonsAgainstTheBaseline()
    {
        var results = Results();

        var checks = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("change>-5%"), Threshold.Parse("change>-11%"), Threshold.Parse("no-worse")]);

        // RPS -8 % [-10, -6] decides; p99's wide interval is shown beside it, not gated.
        const string past = "the change itself is past it: more blocks will not pass it";
        Assert.Equal(
            new[]
            {
                ("change>-5%", "api / b vs a (rps)", $"RPS -8 %; worse end -10 % does not hold; {past}", false),
                ("change>-11%", "api / b vs a (rps)", "RPS -8 %; worse end -10 % holds", true),
                ("no-worse", "api / b vs a (rps)", $"RPS -8 %; worse end -10 % beyond the margin -5 % (noise floor); {past}", false),
            },
            checks.Select(c => (c.Threshold, c.Scope, c.Observed, c.Passed)).ToArray());
    }

    [Fact]
    public void Parse_ScenarioInFront_ScopesTheThresholdToIt()
    {
        var t = Threshold.Parse(" order :p99<250ms");

        Assert.Equal(("order", "order: p99<250ms", "p99", 250.0), (t.Scenario, t.Text, t.Metric, t.Value));
        Assert.True(t.Covers("order"));
        Assert.False(t.Covers("orders"));
        Assert.Equal(ExitCode.Usage, Assert.Throws<PerfLabException>(() => Threshold.Parse("a b: p99<1s")).ExitCode);
    }

    [Fact]
    public void Evaluate_ScopedToOneScenario_ChecksOnlyThatScenario()
    {
        // The sample's serializer has scenarios order (p99 about 66 ms) and orders (about 390 ms).
        var results = ReportFixtures.Sample();

        var checks = ThresholdGate.Evaluate(results, name => name == "serializer" ? [Threshold.Parse("order: p99<100ms")] : []);

        Assert.Equal(3, checks.Count);
        Assert.All(checks, c => Assert.EndsWith("/ order", c.Scope, StringComparison.Ordinal));
        Assert.All(checks, c => Assert.True(c.Passed, c.Observed));
        Assert.Contains(ThresholdGate.Evaluate(results, name => name == "serializer" ? [Threshold.Parse("p99<100ms")] : []), c => !c.Passed);
    }

    [Fact]
    public async Task CompareResults_ThresholdScopedToAnUnknownScenario_IsAUsageError()
    {
        var a = Folder("a", ReportFixtures.Sample());

        var result = await PerfLabProcess.RunAsync("compare-results", a, a, "--threshold", "nope: p99<1s");

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("threshold 'nope: p99<1s': no experiment in", result.Stderr);
    }

    [Theory]
    [InlineData("nope: p99<1s", "threshold 'nope: p99<1s': no selected experiment has a scenario 'nope'")]
    [InlineData("p99<1", "threshold 'p99<1': a latency needs a unit")]
    public async Task Run_BadThreshold_ExitsWithUsageBeforeAnythingStarts(string threshold, string message)
    {
        var output = Path.Combine(_dir.FullName, "never");

        var result = await PerfLabProcess.RunAsync("run", "gc", "--threshold", threshold, "--out", output);

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains(message, result.Stderr);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public void Evaluate_VariantWithoutASuccessfulRun_FailsItsGate()
    {
        var results = Results();
        results = results with
        {
            Experiments = [results.Experiments[0] with { Runs = [.. results.Experiments[0].Runs.Where(r => r.Variant == "a")] }],
        };

        var check = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("p99<1s")]).Single(c => c.Scope == "api / b / s");

        Assert.False(check.Passed);
        Assert.Equal("no successful run", check.Observed);
    }

    [Fact]
    public void ExitCodeOf_FailedGate_IsThresholdsFailedUnlessARunFailed()
    {
        var results = Results();
        var failing = results with { Thresholds = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("p99<150ms")]) };
        var passing = results with { Thresholds = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("p99<1s")]) };
        var runFailed = failing with
        {
            Experiments = [failing.Experiments[0] with { Runs = [.. failing.Experiments[0].Runs.Select((r, i) => i == 0 ? r with { Status = RunStatus.Failed } : r)] }],
        };

        Assert.Equal(ExitCode.ThresholdsFailed, RunCommand.ExitCodeOf(failing, CancellationToken.None));
        Assert.Equal(ExitCode.Success, RunCommand.ExitCodeOf(passing, CancellationToken.None));
        Assert.Equal(ExitCode.Failed, RunCommand.ExitCodeOf(runFailed, CancellationToken.None));
        Assert.Equal(5, (int)ExitCode.ThresholdsFailed);
    }

    [Fact]
    public void Reports_WithChecks_ShowThePassFailTableAndKeepItInResultsJson()
    {
        // The sample's p99s: every variant and scenario below 1 s but sync-over-async's (median of 2878.75 and 2711.05 ms).
        var results = ReportFixtures.Sample();
        results = results with { Thresholds = ThresholdGate.Evaluate(results, _ => [Threshold.Parse("p99<1s")]) };

        ReportWriters.WriteAll(results, _dir.FullName);

        var markdown = File.ReadAllText(Path.Combine(_dir.FullName, "report.md"));
        Assert.Contains("## Thresholds", markdown);
        Assert.Contains("**1 of 9 threshold checks failed.**", markdown);
        Assert.Contains("| `p99<1s` | sync-over-async / sync-over-async / products | 2794.9 ms | **FAIL** |", markdown);
        Assert.Contains("<td><code>p99&lt;1s</code></td><td>sync-over-async / sync-over-async / products</td>",
            File.ReadAllText(Path.Combine(_dir.FullName, "report.html")));
        var back = ResultsJson.Read(Path.Combine(_dir.FullName, "results.json"));
        Assert.Equal(results.Thresholds, back.Thresholds);
    }

    [Theory]
    [InlineData(0.8, "change>-5%", ExitCode.ThresholdsFailed)]
    [InlineData(1.2, "change>-5%", ExitCode.Success)]
    [InlineData(0.8, "no-worse", ExitCode.ThresholdsFailed)]
    [InlineData(1.2, "no-worse", ExitCode.Success)]
    [InlineData(1.0, "p99<10s", ExitCode.Success)]
    [InlineData(1.0, "p99<100ms", ExitCode.ThresholdsFailed)]
    [InlineData(1.0, "errors<=0", ExitCode.Success)]
    public async Task CompareResults_WithThreshold_ExitsByWhetherItHeld(double factor, string threshold, ExitCode expected)
    {
        var a = Folder("a", Decidable(ReportFixtures.Scaled(1.0, 0.04, "a")));
        var b = Folder("b", Decidable(ReportFixtures.Scaled(factor, 0.04, "b")));

        var code = await PerfLabCli.RunAsync(["compare-results", a, b, "--threshold", threshold, "--out", Path.Combine(_dir.FullName, "c.md")]);

        Assert.Equal((int)expected, code);
    }

    [Theory]
    [InlineData("no-worse")]
    [InlineData("change>-50%")]
    public void CompareResults_VariantOfOneRun_FailsGatesThatReadAnInterval(string threshold)
    {
        // The sample's source-generated variant ran once: +20 % RPS, but no interval to read.
        var compared = ResultsComparer.Compare(ReportFixtures.Scaled(1.0, 0.04, "a"), ReportFixtures.Scaled(1.2, 0.04, "b"), "a", "b")
            .WithGates([Threshold.Parse(threshold)]);

        var once = compared.Thresholds.Where(c => c.Scope.Contains("/ system-text-json-sourcegen /", StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(once);
        Assert.All(once, c => Assert.False(c.Passed));
        Assert.All(once, c => Assert.Contains("no 95 % interval (one repetition)", c.Observed, StringComparison.Ordinal));
        Assert.All(compared.Thresholds.Except(once), c => Assert.True(c.Passed, c.Observed));
    }

    [Fact]
    public async Task CompareResults_FailingGateWithHtml_PrintsTheFailureAndWritesThePage()
    {
        var a = Folder("before", Decidable(ReportFixtures.Scaled(1.0, 0.04, "a")));
        var b = Folder("after", Decidable(ReportFixtures.Scaled(0.8, 0.04, "b")));
        var html = Path.Combine(_dir.FullName, "compare.html");

        var result = await PerfLabProcess.RunAsync("compare-results", a, b, "--threshold", "change>-5%", "--html", html);

        Assert.Equal((int)ExitCode.ThresholdsFailed, result.ExitCode);
        // -20 % RPS everywhere, B against A.
        Assert.Contains("| `change>-5%` | serializer / newtonsoft / order: after vs before | RPS -20 %; worse end -24.", result.Stdout);
        Assert.Contains("| serializer | newtonsoft | order | p99 (ms) |", result.Stdout);
        Assert.Contains("## Errors", result.Stdout);
        var page = File.ReadAllText(html);
        Assert.Contains("default-src 'none'", page);
        Assert.Contains("threshold checks failed", page);
        Assert.Contains("<h2>serializer</h2>", page);
    }

    [Fact]
    public async Task CompareResults_MalformedThreshold_ExitsWithUsageBeforeReadingAnything()
    {
        var result = await PerfLabProcess.RunAsync("compare-results", "/nonexistent/a", "/nonexistent/b", "--threshold", "p99<250");

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("threshold 'p99<250': a latency needs a unit", result.Stderr);
    }

    private string Folder(string name, RunResults results)
    {
        var path = Path.Combine(_dir.FullName, name);
        ReportWriters.WriteAll(results, path, ReportWriters.ForFormats("json"));
        return path;
    }

    /// <summary>Every summary's estimates as if from two runs or more: the sample's variant of one run gets an interval.</summary>
    private static RunResults Decidable(RunResults results)
    {
        static Estimate Two(Estimate e) => e with { Samples = Math.Max(2, e.Samples) };
        return results with
        {
            Experiments = [.. results.Experiments.Select(e => e with
            {
                Summaries = [.. e.Summaries.Select(s => s with
                {
                    Scenarios = s.Scenarios.ToDictionary(kv => kv.Key,
                        kv => (IReadOnlyDictionary<string, Estimate>)kv.Value.ToDictionary(m => m.Key, m => Two(m.Value))),
                    AllRps = s.AllRps is null ? null : Two(s.AllRps),
                })],
            })],
        };
    }

    /// <summary>One experiment, baseline a and variant b, one scenario s, three runs each with figures chosen to be checked.</summary>
    private static RunResults Results()
    {
        RunRecord Run(string variant, int rep, double p99, double rps, long errors) => new()
        {
            Variant = variant, Repetition = rep, Order = rep, Status = RunStatus.Ok, StartedAt = DateTimeOffset.UnixEpoch,
            Scenarios =
            [
                new ScenarioStats
                {
                    Scenario = "s", Requests = 1000, Rps = rps, MeanMs = p99 / 2, StdDevMs = 1, MinMs = 1, P50Ms = p99 / 2, P75Ms = p99 / 2,
                    P90Ms = p99 / 2, P95Ms = p99 / 2, P99Ms = p99, P999Ms = p99, MaxMs = p99, BytesReceived = 1, Errors = errors,
                },
            ],
            Counters = new Dictionary<string, double>(), StarvationInjections = 0, Timeline = [], GeneratorCpuPercent = 10, GeneratorSaturated = false,
        };
        var sample = ReportFixtures.Sample();
        var experiment = sample.Experiments[0] with
        {
            Name = "api", Baseline = "a", Variants = ["a", "b"], Scenarios = ["s"],
            Runs = [Run("a", 1, 100, 100, 0), Run("a", 2, 120, 99, 0), Run("a", 3, 300, 101, 0), Run("b", 1, 200, 92, 30), Run("b", 2, 220, 91, 30), Run("b", 3, 240, 93, 30)],
            Comparisons =
            [
                new Comparison
                {
                    Variant = "b", Scenario = "all", Metric = Metrics.Get("rps"), HigherIsBetter = true, ChangePercent = -8, LowPercent = -10, HighPercent = -6,
                    NoiseFloorPercent = 5, Verdict = Verdict.Worse,
                },
                new Comparison
                {
                    Variant = "b", Scenario = "all", Metric = Metrics.Get("p99-ms"), HigherIsBetter = false, ChangePercent = 10, LowPercent = -20, HighPercent = 40,
                    NoiseFloorPercent = 5, Verdict = Verdict.Inconclusive,
                },
            ],
        };
        return sample with { Experiments = [experiment] };
    }
}
