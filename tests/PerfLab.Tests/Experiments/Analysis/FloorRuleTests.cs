using PerfLab.Experiments.Analysis;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

/// <summary>The floor decided (issue 46, part 4): the machine's A/A spread for better/worse, the user's margin for equivalent.</summary>
public sealed class FloorRuleTests
{
    private static string TempFile() => Path.Combine(Path.GetTempPath(), $"aa-spread-{Guid.NewGuid():N}.json");

    private static Comparison Aa(double change, string scenario = "all", string metric = "cpu-per-request-full-speed") => new()
    {
        Variant = "plain-again", Scenario = scenario, Metric = Metrics.Get(metric), HigherIsBetter = false, ChangePercent = change,
        LowPercent = change - 6, HighPercent = change + 6, NoiseFloorPercent = 0, Verdict = Verdict.Inconclusive,
    };

    [Fact]
    public void PercentileOf_FiveKnownValues_InterpolatesBetweenTheTopTwo()
    {
        // Type 7: position (5 - 1) * 0.95 = 3.8, so 80 % of the way from the 4th (4) to the 5th (10): 8.8.
        Assert.Equal(8.8, NoiseFloors.PercentileOf([1, 10, 2, 4, 3], 0.95), 9);
        Assert.Equal(3, NoiseFloors.PercentileOf([1, 10, 2, 4, 3], 0.5), 9);
    }

    [Fact]
    public void For_FewerThanFiveAaRuns_IsNullSoTheDefaultFiveApplies_ThenThe95thPercentileOfTheirChanges()
    {
        var file = TempFile();
        var floors = NoiseFloors.Load(file, "box");
        foreach (var change in new[] { -1.0, 3.0, -2.0, 4.0 })
        {
            floors.Record([Aa(change)]);
        }
        Assert.Null(floors.For("all", Metrics.Get("cpu-per-request-full-speed")));
        var bounds = floors.Bounds("all", Metrics.Get("cpu-per-request-full-speed"), 5);
        Assert.Equal(5, bounds.FloorPercent);
        Assert.Equal("default: 4 of 5 A/A runs recorded", bounds.FloorSource);

        floors.Record([Aa(-10)]);
        // |changes| 1, 3, 2, 4, 10: never one interval's far end (that would be 16 here).
        var reloaded = NoiseFloors.Load(file, "box");
        Assert.Equal(8.8, reloaded.For("all", Metrics.Get("cpu-per-request-full-speed")));
        Assert.Equal("this machine's A/A spread: 95th percentile of 5 A/A changes", reloaded.SourceOf("all", Metrics.Get("cpu-per-request-full-speed")));
        // Per metric, per machine, and a scenario's own figure apart from all scenarios'.
        Assert.Null(reloaded.For("all", Metrics.Get("rps")));
        Assert.Null(reloaded.For("orders", Metrics.Get("cpu-per-request-full-speed")));
        Assert.Null(NoiseFloors.Load(file, "another-box").For("all", Metrics.Get("cpu-per-request-full-speed")));
        File.Delete(file);
    }

    [Fact]
    public void Decide_ChangePastZeroButInsideTheFloor_IsNotCalled_AndEquivalenceReadsTheMarginNotTheFloor()
    {
        // Interval [+1, +7], change +4: excludes zero, but the A/A spread is 6 %.
        Assert.Equal(Verdict.Inconclusive, Statistics.Decide(4, 1, 7, higherIsBetter: true, floorPercent: 6, marginPercent: 5));
        // The same interval past a floor of 3 %: better.
        Assert.Equal(Verdict.Better, Statistics.Decide(4, 1, 7, higherIsBetter: true, floorPercent: 3, marginPercent: 5));
        // [-2, +2.5] inside a margin of 3 % is equivalent whatever the floor; inside a floor of 10 % but past a margin of 2 %, not.
        Assert.Equal(Verdict.Equivalent, Statistics.Decide(0.2, -2, 2.5, true, floorPercent: 10, marginPercent: 3));
        Assert.Equal(Verdict.Inconclusive, Statistics.Decide(0.2, -2, 2.5, true, floorPercent: 10, marginPercent: 2));
    }

    [Fact]
    public void CompareOne_KnownPairs_RecordsBothFiguresAndDecidesByEach()
    {
        // Candidate 4 % dearer in each of four blocks, give or take: a tight interval around +4 %.
        var runs = new[] { 1.00, 1.02, 0.99, 1.01 }.SelectMany((f, i) => new[]
        {
            TestRuns.Ok("base", i + 1, 2 * i + 1, 1000), TestRuns.Ok("cand", i + 1, 2 * i + 2, 1040 * f),
        }).ToList();
        var floorWide = VariantStatistics.CompareOne(runs, "base", "cand", "all", Metrics.Get("rps"), 6, "this machine's A/A spread", 5);
        var floorNarrow = VariantStatistics.CompareOne(runs, "base", "cand", "all", Metrics.Get("rps"), 3, "this machine's A/A spread", 5);
        Assert.InRange(floorWide.ChangePercent, 4.0, 4.6);
        Assert.True(floorWide.LowPercent > 0, "the interval excludes zero");
        Assert.Equal(Verdict.Inconclusive, floorWide.Verdict);
        Assert.Equal(Verdict.Better, floorNarrow.Verdict);
        Assert.Equal(5, floorWide.EquivalenceMarginPercent);
        var row = ReportContent.Comparisons(new AnalysisFixture(floorWide).Experiment).Rows[0];
        Assert.Contains(row, c => c.Text == "±6.0 % / ±5.0 % (this machine's A/A spread)");
    }

    private sealed record AnalysisFixture(Comparison Comparison)
    {
        public ExperimentResult Experiment => new()
        {
            Name = "e", Title = "e", Seed = "000", Reproduces = "", FileHash = "", Baseline = "base", LoadDescription = "",
            Variants = ["base", "cand"], Scenarios = ["s"], Warmup = TimeSpan.Zero, Duration = TimeSpan.Zero, Runs = [],
            Summaries = [], Comparisons = [Comparison], Findings = [], Claims = [],
        };
    }
}
