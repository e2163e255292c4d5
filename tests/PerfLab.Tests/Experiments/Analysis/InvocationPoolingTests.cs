using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Analysis;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class InvocationPoolingTests
{
    // Student's t, 97.5 % quantile: 4 degrees of freedom (five invocations) and 1 (two), from the tables.
    private const double T4 = 2.7764451051977987;
    private const double T1 = 12.706204736174707;

    private static Comparison Change(double change, double low, double high, double floor = 5, int pairs = 4) => new()
    {
        Variant = "async",
        Scenario = Metric.AllScenarios,
        Metric = Metrics.Rps,
        HigherIsBetter = true,
        ChangePercent = change,
        LowPercent = low,
        HighPercent = high,
        NoiseFloorPercent = floor,
        Method = "paired",
        Pairs = pairs,
        Verdict = Statistics.Decide(change, low, high, true, floor),
    };

    // sync-async's five invocations: the first and last intervals as measured, the middle three of the same width.
    private static readonly (double Change, double Low, double High)[] SyncAsync =
        [(7.8, 3.5, 12.3), (1.6, -1.5, 4.8), (2.5, -0.6, 5.7), (3.1, 0.1, 6.2), (6.6, 3.5, 9.9)];

    private static Comparison PoolOf((double Change, double Low, double High)[] each, double floor) =>
        InvocationPooling.Pool([.. each.Select((e, i) => (i + 1, Change(e.Change, e.Low, e.High, floor)))]);

    [Fact]
    public void Pool_FiveSyncAsyncInvocations_MeanOfTheLogChangesWithTheTIntervalOfTheirSpread()
    {
        var pooled = PoolOf(SyncAsync, floor: 5);

        var logs = SyncAsync.Select(e => Math.Log(1 + e.Change / 100)).ToArray();
        var mean = logs.Average();
        var sd = Math.Sqrt(logs.Sum(l => (l - mean) * (l - mean)) / (logs.Length - 1));
        var half = T4 * sd / Math.Sqrt(5);
        Assert.Equal((Math.Exp(mean) - 1) * 100, pooled.ChangePercent, 9);
        Assert.Equal(4.29, pooled.ChangePercent, 2); // the arithmetic mean of the five percentages is 4.32
        Assert.Equal((Math.Exp(mean - half) - 1) * 100, pooled.LowPercent, 9);
        Assert.Equal((Math.Exp(mean + half) - 1) * 100, pooled.HighPercent, 9);
        Assert.Equal(0.99, pooled.LowPercent, 2);
        Assert.Equal(7.70, pooled.HighPercent, 2);
        Assert.Equal("between", pooled.Invocations!.IntervalFrom);
        Assert.Equal(InvocationPooling.Method, pooled.Method);
        Assert.Equal(20, pooled.Pairs);
        Assert.Equal([7.8, 1.6, 2.5, 3.1, 6.6], pooled.Invocations.Estimates.Select(e => e.ChangePercent));
        Assert.Equal([1, 2, 3, 4, 5], pooled.Invocations.Estimates.Select(e => e.Invocation));
        // Above zero, but 4.3 % does not clear a 5 % floor, and +7.7 % is outside it: undecided, with the invocations that would decide.
        Assert.Equal(Verdict.Inconclusive, pooled.Verdict);
        Assert.Contains("invocations in all", pooled.ToDecide, StringComparison.Ordinal);
    }

    [Fact]
    public void Pool_FiveSyncAsyncInvocationsAgainstATwoPercentFloor_Better()
    {
        var pooled = PoolOf(SyncAsync, floor: 2);

        Assert.Equal(Verdict.Better, pooled.Verdict);
        Assert.Null(pooled.ToDecide);
        // Each invocation alone was sure of itself, two of them called better: the pooled interval holds every invocation's change but one.
        Assert.Equal(4, SyncAsync.Count(e => e.Change >= pooled.LowPercent && e.Change <= pooled.HighPercent));
    }

    [Fact]
    public void Pool_InvocationsThatAgreeExactly_IntervalFromTheirOwnIntervals()
    {
        var pooled = PoolOf([(5, 2, 8), (5, 2, 8), (5, 2, 8)], floor: 1);

        var h = (Math.Log(1.08) - Math.Log(1.02)) / 2;
        var within = Math.Sqrt(3 * h * h) / 3;
        Assert.Equal("within", pooled.Invocations!.IntervalFrom);
        Assert.Equal(0, pooled.Invocations.BetweenHalfWidthPercent, 12);
        Assert.Equal((Math.Exp(Math.Log(1.05) - within) - 1) * 100, pooled.LowPercent, 9);
        Assert.Equal((Math.Exp(Math.Log(1.05) + within) - 1) * 100, pooled.HighPercent, 9);
        Assert.Equal(Verdict.Better, pooled.Verdict);
    }

    [Fact]
    public void Pool_TwoInvocations_OneDegreeOfFreedomWidensTheInterval()
    {
        var pooled = PoolOf([(7.8, 3.5, 12.3), (1.6, -1.5, 4.8)], floor: 5);

        var (a, b) = (Math.Log(1.078), Math.Log(1.016));
        var half = T1 * (Math.Abs(a - b) / Math.Sqrt(2)) / Math.Sqrt(2);
        Assert.Equal((Math.Exp((a + b) / 2 - half) - 1) * 100, pooled.LowPercent, 9);
        Assert.Equal((Math.Exp((a + b) / 2 + half) - 1) * 100, pooled.HighPercent, 9);
        Assert.True(pooled.LowPercent < -25 && pooled.HighPercent > 45, $"[{pooled.LowPercent}, {pooled.HighPercent}]");
        Assert.Equal(Verdict.Inconclusive, pooled.Verdict);
    }

    [Fact]
    public void Pool_OnlyOneInvocationHasAnInterval_InconclusiveWithoutInterval()
    {
        var pooled = PoolOf([(7.8, 3.5, 12.3), (2.0, double.NaN, double.NaN)], floor: 5);

        Assert.Equal(7.8, pooled.ChangePercent);
        Assert.True(double.IsNaN(pooled.LowPercent));
        Assert.Equal(Verdict.Inconclusive, pooled.Verdict);
        Assert.Equal(2, pooled.Invocations!.Estimates.Count);
        Assert.Contains("at least 2 invocations", pooled.ToDecide, StringComparison.Ordinal);
    }

    [Fact]
    public void PoolAll_TwoExperimentsResults_OneComparisonPerVariantScenarioAndMetric()
    {
        var experiment = Reports.ReportFixtures.Sample().Experiments[0];
        var second = experiment with { Comparisons = [.. experiment.Comparisons.Select(c => c with { ChangePercent = c.ChangePercent + 1 })] };

        var pooled = InvocationPooling.PoolAll([(1, experiment), (2, second)]);

        Assert.Equal(experiment.Comparisons.Count, pooled.Count);
        Assert.All(pooled, c => Assert.Equal(2, c.Invocations!.Estimates.Count));
        Assert.All(pooled, c => Assert.Equal(InvocationPooling.Method, c.Method));
    }

    [Fact]
    public void Renumbered_TwoInvocationsOfTwoBlocks_BlocksAndOrderFollowOnSoNoPairCrossesInvocations()
    {
        var runs = Reports.ReportFixtures.Sample().Experiments[0].Runs;
        var blocks = runs.Max(r => r.Repetition);
        var orders = runs.Max(r => r.Order);

        var all = InvocationCombiner.Renumbered([runs, runs]);

        Assert.Equal(2 * runs.Count, all.Count);
        Assert.Equal(runs.Select(r => r.Repetition + blocks), all.Skip(runs.Count).Select(r => r.Repetition));
        Assert.Equal(runs.Select(r => r.Order + orders), all.Skip(runs.Count).Select(r => r.Order));
        Assert.Empty(all.Take(runs.Count).Select(r => r.Repetition).Intersect(all.Skip(runs.Count).Select(r => r.Repetition)));
    }

    [Fact]
    public void Combine_OnlyTheFirstOfThreeInvocationsTraced_ItsFindingsAndEvidenceKeptAndNamed()
    {
        var traced = PerfLab.Tests.Reports.ReportFixtures.Sample();
        var untraced = traced with { Experiments = [.. traced.Experiments.Select(e => e with { Evidence = [], Findings = [] })] };
        var at = traced.StartedAt;
        var settings = new AnalysisSettings(ProfileName.Quick, null, false, NoiseFloors.Load(Path.Combine(Path.GetTempPath(), "none.json")));

        var combined = InvocationCombiner.Combine(
            [new(new(1, "invocation-1", at, at, false, 0), traced), new(new(2, "invocation-2", at, at, false, 0), untraced),
                new(new(3, "invocation-3", at, at, false, 0), untraced)],
            [], settings, null);

        var serializer = combined.Experiments.Single(e => e.Name == traced.Experiments[0].Name);
        Assert.NotEmpty(serializer.Evidence);
        Assert.Equal(traced.Experiments[0].Evidence, serializer.Evidence);
        Assert.Equal(traced.Experiments[0].Findings, serializer.Findings);
        Assert.Contains("The findings and the evidence from traces are invocation 1's (of 3); the verdicts pool all of them.", serializer.Notes);
    }

    [Fact]
    public void Combine_AnExperimentWithoutItsDefinition_ItsNoiseLineReadsThePooledComparisonsNotTheLastInvocations()
    {
        var sample = PerfLab.Tests.Reports.ReportFixtures.Sample();
        var slotLine = new MachineNoise("slots", 3, 2, 0.5, 0.5);
        var first = sample with { Experiments = [.. sample.Experiments.Select(e => e with { MachineNoise = slotLine })] };
        var second = first with
        {
            Experiments = [.. first.Experiments.Select(e => e with
            {
                Comparisons = [.. e.Comparisons.Select(c => c with { ChangePercent = c.ChangePercent + 4, LowPercent = c.LowPercent + 4,
                    HighPercent = c.HighPercent + 4 })],
            })],
        };
        var at = sample.StartedAt;
        var settings = new AnalysisSettings(ProfileName.Quick, null, false, NoiseFloors.Load(Path.Combine(Path.GetTempPath(), "none.json")));

        var combined = InvocationCombiner.Combine(
            [new(new(1, "invocation-1", at, at, false, 0), first), new(new(2, "invocation-2", at, at, false, 0), second)],
            [], settings, null);

        var experiment = combined.Experiments[0];
        var pooledRps = experiment.Comparisons
            .Where(c => c.Scenario == Metric.AllScenarios && c.Metric == Metrics.Rps && c.Method == InvocationPooling.Method)
            .Select(c => Statistics.HalfWidth(c.LowPercent, c.HighPercent)).Where(double.IsFinite).ToList();
        Assert.NotEmpty(pooledRps);
        Assert.Equal(pooledRps.Count, experiment.MachineNoise!.Comparisons);
        Assert.Equal(PerfLab.Common.Descriptive.Median(pooledRps), experiment.MachineNoise.RpsDecidablePercent, 9);
        // Two invocations four points apart: the pooled intervals are far wider than the last invocation's own line.
        Assert.True(experiment.MachineNoise.RpsDecidablePercent > 5 * slotLine.RpsDecidablePercent,
            $"{experiment.MachineNoise.RpsDecidablePercent} against the slot line's {slotLine.RpsDecidablePercent}");
    }
}
