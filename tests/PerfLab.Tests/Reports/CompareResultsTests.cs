using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

public sealed class CompareResultsTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-compare-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public void CompareEstimates_KnownMedians_CombinesLogHalfWidthsInQuadrature()
    {
        var a = new Estimate(100, 95, 105, 5);
        var b = new Estimate(110, 104.5, 115.5, 5);

        var (change, low, high, verdict) = Statistics.CompareEstimates(a, b, higherIsBetter: true, noiseFloorPercent: 0);

        // ln(1.1) ± sqrt(ln(110/104.5)² + ln(105/100)²) on the low side, sqrt(ln(115.5/110)² + ln(100/95)²) on the high.
        Assert.Equal(10.0, change, 6);
        Assert.Equal((Math.Exp(Math.Log(1.1) - Math.Sqrt(Math.Pow(Math.Log(110 / 104.5), 2) + Math.Pow(Math.Log(1.05), 2))) - 1) * 100, low, 6);
        Assert.Equal((Math.Exp(Math.Log(1.1) + Math.Sqrt(Math.Pow(Math.Log(1.05), 2) + Math.Pow(Math.Log(100 / 95.0), 2))) - 1) * 100, high, 6);
        Assert.InRange(low, 2.4, 2.6);
        Assert.InRange(high, 17.9, 18.2);
        Assert.Equal(Verdict.Better, verdict);
    }

    [Fact]
    public void Compare_TwentyPercentMoreRpsWithTightIntervals_CallsItBetter()
    {
        var comparison = ResultsComparer.Compare(ReportFixtures.Scaled(1.0, 0.04, "a"), ReportFixtures.Scaled(1.2, 0.04, "b"));

        var all = Figure(comparison, "system-text-json", "all", "rps");
        Assert.Equal(20.0, all.ChangePercent, 6);
        Assert.InRange(all.LowPercent, 13, 14);
        Assert.Equal(3.0, all.NoiseFloorPercent);
        Assert.Equal(Verdict.Better, all.Verdict);
        // Mean latency 1/1.2 of A: lower is better.
        var mean = Figure(comparison, "newtonsoft", "order", "mean-ms");
        Assert.Equal(-16.67, mean.ChangePercent, 2);
        Assert.Equal(Verdict.Better, mean.Verdict);
    }

    [Fact]
    public void Compare_TwentyPercentLessRps_CallsItWorse()
    {
        var comparison = ResultsComparer.Compare(ReportFixtures.Scaled(1.0, 0.04, "a"), ReportFixtures.Scaled(0.8, 0.04, "b"));

        Assert.Equal(Verdict.Worse, Figure(comparison, "newtonsoft", "orders", "rps").Verdict);
        Assert.Equal(Verdict.Worse, Figure(comparison, "newtonsoft", "orders", "mean-ms").Verdict);
    }

    [Fact]
    public void Compare_ShiftWithinWideIntervals_IsInconclusive()
    {
        var comparison = ResultsComparer.Compare(ReportFixtures.Scaled(1.0, 0.10, "a"), ReportFixtures.Scaled(1.1, 0.10, "b"));

        var all = Figure(comparison, "system-text-json", "all", "rps");
        Assert.Equal(10.0, all.ChangePercent, 6);
        Assert.True(all.LowPercent < 0);
        Assert.Equal(Verdict.Inconclusive, all.Verdict);
    }

    [Fact]
    public void Compare_ChangeInsideTheNoiseFloor_IsEquivalent()
    {
        // +2.5 % with 0.1 % intervals: the interval excludes zero, but lies within the 3 % noise floor measured for "all".
        var comparison = ResultsComparer.Compare(ReportFixtures.Scaled(1.0, 0.001, "a"), ReportFixtures.Scaled(1.025, 0.001, "b"));

        Assert.True(Figure(comparison, "system-text-json", "all", "rps").LowPercent > 0);
        Assert.Equal(Verdict.Equivalent, Figure(comparison, "system-text-json", "all", "rps").Verdict);
        // "order" has no noise floor recorded, so the interval alone decides.
        Assert.Equal(Verdict.Better, Figure(comparison, "system-text-json", "order", "rps").Verdict);
    }

    [Fact]
    public void Compare_SingleRunFigure_IsInconclusive()
    {
        var comparison = ResultsComparer.Compare(ReportFixtures.Scaled(1.0, 0.04, "a"), ReportFixtures.Scaled(1.5, 0.04, "b"));

        Assert.Equal(Verdict.Inconclusive, Figure(comparison, "system-text-json-sourcegen", "all", "rps").Verdict);
    }

    [Fact]
    public void Compare_DifferentExperimentsAndVariants_ListsWhatIsOnlyInOne()
    {
        var a = ReportFixtures.Sample();
        var scaled = ReportFixtures.Scaled(1.0, 0.04, "b");
        var b = scaled with
        {
            Experiments = [scaled.Experiments[0] with { Variants = ["newtonsoft", "system-text-json", "newtonsoft-v14"] }],
        };

        var comparison = ResultsComparer.Compare(a, b, "before", "after");

        Assert.Contains("experiment sync-over-async", comparison.OnlyInA);
        Assert.Contains("serializer / variant system-text-json-sourcegen", comparison.OnlyInA);
        Assert.Contains("serializer / variant newtonsoft-v14", comparison.OnlyInB);
        Assert.DoesNotContain(comparison.Figures, f => f.Experiment == "sync-over-async" || f.Variant == "system-text-json-sourcegen");
    }

    [Fact]
    public async Task CompareResults_TwoFoldersWithOut_WritesAMarkdownTable()
    {
        var a = Folder("run-a", ReportFixtures.Sample());
        var b = Folder("run-b", ReportFixtures.Scaled(1.2, 0.04, "feedbeef"));
        var file = Path.Combine(_dir.FullName, "compare.md");

        var code = await PerfLabCli.RunAsync(["compare-results", a, b, "--out", file]);

        Assert.Equal((int)ExitCode.Success, code);
        var markdown = await File.ReadAllTextAsync(file);
        Assert.Contains("# PerfLab results compared: run-b against run-a", markdown);
        Assert.Contains("| experiment | variant | scenario | metric | run-a | run-b | change run-b vs run-a | noise floor | verdict |", markdown);
        Assert.Contains("| serializer | system-text-json | all | RPS | 408.4 [392.1–424.7] | 490.1 [470.5–509.7] | +20.0 % [+13.4, +27.0] | ±3.0 % | **better** |", markdown);
        Assert.Contains("## Only in run-a", markdown);
        Assert.Contains("- experiment sync-over-async", markdown);
        Assert.Contains("| **commit** | 0123456789abcdef0123456789abcdef01234567 | feedbeef |", markdown);
    }

    [Fact]
    public async Task CompareResults_OutputRedirected_PrintsMarkdown()
    {
        var a = Folder("a", ReportFixtures.Sample());
        var b = Folder("b", ReportFixtures.Sample());

        var result = await PerfLabProcess.RunAsync("compare-results", a, b);

        Assert.Equal((int)ExitCode.Success, result.ExitCode);
        Assert.Contains("| sync-over-async | sync-over-async | products | RPS | 61.5 [59.0–64.0] | 61.5 [59.0–64.0] | 0.0 % [-5.5, +5.8] | — | inconclusive |", result.Stdout);
        Assert.DoesNotContain("Only in", result.Stdout);
        // One scenario: its RPS is the experiment's, so no separate "all" row.
        Assert.DoesNotContain("| sync-over-async | sync-over-async | all |", result.Stdout);
    }

    [Fact]
    public async Task CompareResults_MissingFolder_ExitsWithUsage()
    {
        var result = await PerfLabProcess.RunAsync("compare-results", Folder("a", ReportFixtures.Sample()), Path.Combine(_dir.FullName, "missing"));

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("missing' does not exist", result.Stderr);
    }

    private string Folder(string name, RunResults results)
    {
        var path = Path.Combine(_dir.FullName, name);
        ReportWriters.WriteAll(results, path, ReportWriters.ForFormats("json"));
        return path;
    }

    private static ComparedFigure Figure(ResultsComparison comparison, string variant, string scenario, string metric) =>
        comparison.Figures.Single(f => f.Experiment == "serializer" && f.Variant == variant && f.Scenario == scenario && f.Metric.Key == metric);
}
