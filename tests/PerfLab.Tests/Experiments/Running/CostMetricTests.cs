using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Results;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>cpu-per-request as a metric: read from a run's cost, compared, gated by a threshold, deciding the stopping rule.</summary>
public sealed class CostMetricTests
{
    [Fact]
    public void Parse_CpuPerRequestInMilliseconds_ThresholdOnTheMedianCost()
    {
        var threshold = Threshold.Parse("cpu-per-request<1.5ms");

        Assert.Equal((Threshold.CpuPerRequest, "<", 1.5), (threshold.Metric, threshold.Operator, threshold.Value));
        Assert.Equal("1.2 ms", threshold.Format(1.2));
        Assert.Equal(2000, Threshold.Parse("cpu-per-request<=2s").Value);
        var error = Assert.Throws<PerfLabException>(() => Threshold.Parse("cpu-per-request<2"));
        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains("needs a unit: ms or s", error.Message);
    }

    [Fact]
    public void MetricOf_RunWithCost_AppAndDatabaseCpuOverRequests()
    {
        // Two slots: 1.0 + 0.5 s of app CPU and 0.3 s of the database's over 1,000 requests: 1.8 ms each.
        var run = Run("a", 1, new CpuWindow(5, 600, 0.6, 0.2), new CpuWindow(5, 400, 0.9, 0.1));

        Assert.Equal(1.8, VariantStatistics.MetricOf(run, "all", Metrics.CpuPerRequest), 9);
        Assert.Equal(1.5, run.Cost!.AppMsPerRequest!.Value, 9);
        Assert.True(double.IsNaN(VariantStatistics.MetricOf(Run("a", 1) with { Cost = null }, "all", Metrics.CpuPerRequest)));
    }

    [Fact]
    public void MetricOf_DatabaseNotReadInOneWindow_ThatWindowLeftOutOfThePerRequestFigures()
    {
        // The db role did not answer the second slot's edge: its 0.4 s of app CPU added in would make the 1,000 requests
        // read 1.18 ms, cheaper than they were. The slot read whole says 1.3 ms (0.6 + 0.18 s over 600 requests).
        var run = Run("a", 1, new CpuWindow(5, 600, 0.6, 0.18), new CpuWindow(5, 400, 0.4, null));

        Assert.Equal(1.3, VariantStatistics.MetricOf(run, "all", Metrics.CpuPerRequest), 9);
        Assert.Equal(1, run.Cost!.WindowsWithoutDatabase);
        Assert.Equal(0.3, run.Cost.DatabaseMsPerRequest!.Value, 9);
        Assert.Equal(1.0, run.Cost.AppMsPerRequest!.Value, 9);
        // No window read it (a server not visible from here): the app's CPU over every window, nothing left out.
        var appOnly = Run("a", 1, new CpuWindow(5, 600, 0.6, null), new CpuWindow(5, 400, 0.4, null));
        Assert.Equal(1.0, VariantStatistics.MetricOf(appOnly, "all", Metrics.CpuPerRequest), 9);
        Assert.Equal(0, appOnly.Cost!.WindowsWithoutDatabase);
        Assert.Null(appOnly.Cost.DatabaseMsPerRequest);
    }

    [Fact]
    public void Analyze_DatabaseNotReadInSomeWindows_TheNotesSayHowManyWereLeftOut()
    {
        var experiment = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "logging");
        var runs = Enumerable.Range(1, 3).SelectMany(b => experiment.Variants.Select(v => Run(v.Name, b,
            new CpuWindow(5, 600, 0.6, 0.18), new CpuWindow(5, 400, 0.4, b == 2 && v.Name == experiment.Baseline ? null : 0.12))))
            .ToList();
        var settings = new AnalysisSettings(ProfileName.Quick, null, false,
            NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));

        var result = ExperimentAnalyzer.Analyze(experiment, runs, settings);

        Assert.Contains("CPU per request: the database's backends were not read at the edges of 1 of 18 measured windows (the db role did "
            + "not answer in time); those windows are left out of the figure, which counts the app and its database together over the "
            + "windows read whole.", result.Notes);
        Assert.DoesNotContain(ExperimentAnalyzer.Analyze(experiment, [.. runs.Select(r => r with
        {
            Cost = new CpuCost([new CpuWindow(5, 1000, 1, 0.3)]),
        })], settings).Notes, n => n.Contains("not read at the edges", StringComparison.Ordinal));
    }

    [Fact]
    public void CompareOne_CostTenPercentLowerInEveryBlock_Better()
    {
        var runs = Enumerable.Range(1, 4).SelectMany(b => new[]
        {
            Run("a", b, new CpuWindow(5, 1000, 2.0 + b * 0.01, null)),
            Run("b", b, new CpuWindow(5, 1000, (2.0 + b * 0.01) * 0.9, null)),
        }).ToList();

        var c = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.CpuPerRequest, 2);

        Assert.Equal("paired", c.Method);
        Assert.Equal(-10, c.ChangePercent, 1);
        Assert.Equal(Verdict.Better, c.Verdict);
    }

    [Fact]
    public void WidestHalfWidth_DecidedOnCost_ReadsTheCostComparisonsNotRps()
    {
        Comparison Change(string metric, double low, double high) => new()
        {
            Variant = "b", Scenario = "all", Metric = Metrics.Get(metric), HigherIsBetter = metric == "rps", ChangePercent = (low + high) / 2,
            LowPercent = low, HighPercent = high, NoiseFloorPercent = 5, Verdict = Verdict.Inconclusive,
        };
        var comparisons = new[] { Change("rps", -20, 20), Change(Metrics.CpuPerRequest.Key, -12, -8) };

        Assert.Equal(20, StoppingRule.WidestHalfWidth(comparisons, Metrics.Rps), 6);
        Assert.Equal(2, StoppingRule.WidestHalfWidth(comparisons, Metrics.CpuPerRequest), 1);
        // Without a cost measured (a remote app), cost falls back to throughput.
        Assert.Equal(20, StoppingRule.WidestHalfWidth(comparisons.Take(1), Metrics.CpuPerRequest), 6);
    }

    [Fact]
    public void CompareOne_HostSlowedTheCoresInOneVariantsWindows_AtFullSpeedEqualWhereRawCpuReadsDearer()
    {
        // The same work per request in both; b's windows ran on cores 1.5x slower in blocks 2 and 4, so its raw CPU
        // reads 50 % dearer there and the paired raw comparison is inconclusive; at full speed the two are the same.
        var runs = Enumerable.Range(1, 4).SelectMany(b => new[]
        {
            Run("a", b, new CpuWindow(5, 1000, 2.0 + b * 0.01, null, Slowdown: 1.2)),
            Run("b", b, new CpuWindow(5, 1000, (2.0 + b * 0.01) * (b % 2 == 0 ? 1.5 : 1), null, Slowdown: 1.2 * (b % 2 == 0 ? 1.5 : 1))),
        }).ToList();

        var raw = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.CpuPerRequest, 2);
        var fullSpeed = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.CpuPerRequestAtFullSpeed, 2);

        Assert.Equal(Verdict.Inconclusive, raw.Verdict);
        Assert.Equal(0, fullSpeed.ChangePercent, 6);
        Assert.Equal(Verdict.Equivalent, fullSpeed.Verdict);
    }

    [Fact]
    public void DecidingKey_CostAsked_AtFullSpeedWhenCompared_ElseTheKernelsCpu()
    {
        var both = new HashSet<Metric> { Metrics.Rps, Metrics.CpuPerRequest, Metrics.CpuPerRequestAtFullSpeed };
        var rawOnly = new HashSet<Metric> { Metrics.Rps, Metrics.CpuPerRequest };

        Assert.Equal(Metrics.CpuPerRequestAtFullSpeed, Deciding.Key(both, Metrics.CpuPerRequest));
        Assert.Equal(Metrics.CpuPerRequest, Deciding.Key(rawOnly, Metrics.CpuPerRequest));
        Assert.Equal(Metrics.Rps, Deciding.Key(both, Metrics.Rps));
        // The kernel's figure is shown beside the deciding one.
        Assert.Contains(Metrics.CpuPerRequest, Deciding.Beside(Metrics.CpuPerRequestAtFullSpeed));
    }

    /// <summary>A run of <paramref name="variant"/> in block <paramref name="block"/> that measured these windows.</summary>
    internal static RunRecord Run(string variant, int block, params CpuWindow[] windows) => RunRecordBuilder.Failed(
        new RunIdentity(variant, block, block, DateTimeOffset.UnixEpoch), new RunFailure(FailureKind.LoadFailed, "")) with
    {
        Status = RunStatus.Ok,
        FailureKind = null,
        FailureReason = null,
        Scenarios = [RunRecordBuilder.Stats("s", windows.Sum(w => w.Requests), 100, PerfLab.Load.LatencyStats.From(new PerfLab.Load.LatencyHistogram()))],
        Cost = new CpuCost(windows),
    };
}
