using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class SweepAnalysisTests
{
    private const string Sweep = """
        name: swept
        title: Swept
        seed: "000"
        reproduces: nothing, a test
        baseline: sync
        default: false
        sweep: { condition: database-rtt, values: [0ms, 1ms, 2ms, 5ms] }
        variants:
          - name: sync
          - name: async
        load:
          scenarios:
            - name: s
              url: /x
              model: closed
              users: 10
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 4 }
          quick: { warmup: 1s, duration: 2s, repeat: 4 }
          smoke: { warmup: 1s, duration: 2s, repeat: 4 }
        """;

    // ±0.5 % of noise per run, so a change of 10 % or more is decided and one of 2 % is not (the floor is 5 %).
    private static readonly double[] Noise = [0.005, -0.004, 0.003, -0.002];

    /// <summary>Four blocks at one point: sync at 1000 RPS, async at <paramref name="factor"/> times that.</summary>
    private static List<RunRecord> Runs(double factor) => Enumerable.Range(0, 4).SelectMany(b => new[]
    {
        TestRuns.Ok("sync", b + 1, 2 * b + 1, 1000 * (1 + Noise[b])),
        TestRuns.Ok("async", b + 1, 2 * b + 2, 1000 * factor * (1 - Noise[(b + 1) % 4])),
    }).ToList();

    private static SweepResult Analyze(params double[] factors)
    {
        var experiment = ExperimentLoader.Parse(Sweep, "experiments/swept.yaml");
        var settings = new AnalysisSettings(ProfileName.Quick, null, false, NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));
        var points = SweepDefinition.Points(experiment);
        var results = points.Select((p, i) => ExperimentAnalyzer.Analyze(p, Runs(factors[i]), settings)).ToList();
        return SweepAnalysis.Gather(experiment, results);
    }

    [Fact]
    public void Gather_AsyncDecidedBetterFromTwoMs_CrossoverAtTwoMs()
    {
        // Worse at 0 ms, level at 1 ms, +15 % at 2 ms, +40 % at 5 ms: the first decided-better value is 2 ms.
        var sweep = Analyze(0.85, 1.0, 1.15, 1.40);

        Assert.Equal(ConditionKind.DatabaseRtt, sweep.Condition);
        Assert.Equal([0, 1, 2, 5], sweep.Values);
        Assert.Equal(["swept@0-ms", "swept@1-ms", "swept@2-ms", "swept@5-ms"], sweep.Points);
        var async = Assert.Single(sweep.Variants);
        Assert.Equal("async", async.Variant);
        Assert.Equal([Verdict.Worse, Verdict.Equivalent, Verdict.Better, Verdict.Better], async.Points.Select(p => p.Verdict));
        Assert.Equal(2, async.Crossover);
        // The paired change is the mean log-ratio: ln(1.15) plus the runs' own noise, within a few tenths of a percent.
        Assert.InRange(async.Points[2].ChangePercent!.Value, 14, 16);
        Assert.True(async.Points[2].LowPercent > 0, "the interval at the crossover excludes zero");
        Assert.True(async.Points[1].LowPercent < 0 && async.Points[1].HighPercent > 0, "the interval at 1 ms spans zero");
    }

    [Fact]
    public void Gather_NeverDecidedBetter_NoCrossover()
    {
        var sweep = Analyze(0.9, 0.98, 1.02, 1.0);

        var async = Assert.Single(sweep.Variants);
        Assert.Null(async.Crossover);
        Assert.DoesNotContain(async.Points, p => p.Verdict == Verdict.Better);
    }

    [Fact]
    public void Gather_PointThatDidNotRun_HasNoFiguresAndIsNotACrossover()
    {
        var experiment = ExperimentLoader.Parse(Sweep, "experiments/swept.yaml");
        var settings = new AnalysisSettings(ProfileName.Quick, null, false, NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));
        // Interrupted after the first point: only 0 ms ran.
        var first = ExperimentAnalyzer.Analyze(SweepDefinition.Points(experiment)[0], Runs(1.3), settings);

        var sweep = SweepAnalysis.Gather(experiment, [first]);

        Assert.Equal(["swept@0-ms", null, null, null], sweep.Points);
        var async = Assert.Single(sweep.Variants);
        Assert.Equal(0, async.Crossover);
        Assert.All(async.Points.Skip(1), p => Assert.Null(p.ChangePercent));
        Assert.All(async.Points.Skip(1), p => Assert.Equal(Verdict.Inconclusive, p.Verdict));
    }

    [Fact]
    public void Crossover_UnorderedPoints_IsTheSmallestDecidedValue()
    {
        var points = new[]
        {
            new SweepPointChange(5, 30, 20, 40, Verdict.Better),
            new SweepPointChange(2, 12, 8, 16, Verdict.Better),
            new SweepPointChange(1, 1, -3, 5, Verdict.Equivalent),
        };

        Assert.Equal(2, SweepAnalysis.Crossover(points));
    }
}
