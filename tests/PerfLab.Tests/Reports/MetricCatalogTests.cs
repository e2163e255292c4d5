using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Experiments.Analysis;

namespace PerfLab.Tests.Reports;

/// <summary>The metric catalog as the one vocabulary: p90 goes from one entry into thresholds, analysis, results.json and reports.</summary>
public sealed class MetricCatalogTests
{
    private const string Experiment = """
        name: tail
        title: Tail
        seed: "000"
        reproduces: nothing, a test
        baseline: base
        default: false
        variants:
          - name: base
          - name: cand
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

    private static readonly double[] Noise = [0.005, -0.004, 0.003, -0.002];

    [Fact]
    public void Catalog_Entries_HaveUniqueKeysAndThresholdSpellings()
    {
        Assert.Equal(Metrics.All.Count, Metrics.All.Select(m => m.Key).Distinct().Count());
        var spellings = Metrics.All.SelectMany(m => m.ThresholdNames).ToList();
        Assert.Equal(spellings.Count, spellings.Distinct().Count());
        // k6's spellings stay aliases of the catalog's keys.
        Assert.Same(Metrics.P99Ms, Metrics.ForThreshold("p99"));
        Assert.Same(Metrics.MeanMs, Metrics.ForThreshold("mean"));
        Assert.Same(Metrics.P90Ms, Metrics.ForThreshold("p90-ms"));
    }

    [Fact]
    public void Threshold_P90Under50ms_ChecksTheMedianOfTheRunsP90()
    {
        var threshold = Threshold.Parse("p90<50ms");
        List<ScenarioStats> runs = [.. new[] { 40.0, 45.0, 60.0 }.Select(p90 => Stats(p90))];

        var pass = ThresholdGate.Check(threshold, "tail / cand / s", runs);
        var fail = ThresholdGate.Check(Threshold.Parse("p90<44ms"), "tail / cand / s", runs);

        Assert.Same(Metrics.P90Ms, threshold.Measured);
        Assert.True(pass.Passed);
        Assert.Equal("45 ms", pass.Observed);
        Assert.False(fail.Passed);
        Assert.Contains("p90", Threshold.Syntax);
    }

    [Fact]
    public void Analyze_CandidateWithHalfAgainTheP90_SummarizesComparesAndReportsIt()
    {
        var experiment = ExperimentLoader.Parse(Experiment, "experiments/tail.yaml");
        // Four blocks: base's p90 40 ms, cand's 60 ms (+50 %), each with ±0.5 % of noise; throughput the same.
        var runs = Enumerable.Range(0, 4).SelectMany(b => new[]
        {
            WithP90(TestRuns.Ok("base", b + 1, 2 * b + 1, 1000), 40 * (1 + Noise[b])),
            WithP90(TestRuns.Ok("cand", b + 1, 2 * b + 2, 1000), 60 * (1 - Noise[(b + 1) % 4])),
        }).ToList();
        var settings = new AnalysisSettings(ProfileName.Quick, null, false, NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));

        var result = ExperimentAnalyzer.Analyze(experiment, runs, settings);

        var summary = result.Summaries.Single(s => s.Variant == "cand");
        Assert.Equal(60, summary.Scenarios["s"]["p90-ms"].Median, 0);
        var p90 = result.Comparisons.Single(c => c.Metric.Key == "p90-ms" && c.Scenario == "all");
        Assert.InRange(p90.ChangePercent, 49, 51);
        Assert.Equal(Verdict.Worse, p90.Verdict);
        var results = ReportFixtures.Sample() with { Experiments = [result] };
        Assert.Contains("\"p90-ms\"", ResultsJson.Serialize(results));
        var markdown = Markdown(results);
        Assert.Contains("| variant | s p90 (ms) | s p99 (ms) |", markdown);
        Assert.Contains("| cand | all | p90 (ms) | +", markdown);
    }

    [Theory]
    [InlineData("NoDifferenceDetected", Verdict.Inconclusive)]
    [InlineData("NotEnoughData", Verdict.Inconclusive)]
    [InlineData("equivalent", Verdict.Equivalent)]
    [InlineData("Better", Verdict.Better)]
    public void ResultsJson_VerdictWords_ReadOldAndNewSpellings(string written, Verdict expected)
    {
        var json = ResultsJson.Serialize(ReportFixtures.Sample());
        var old = json.Replace("\"verdict\": \"worse\"", $"\"verdict\": \"{written}\"", StringComparison.Ordinal);

        var read = ResultsJson.Deserialize(old, "results.json");

        Assert.Contains(read.Experiments.SelectMany(e => e.Comparisons), c => c.Verdict == expected);
        Assert.DoesNotContain(read.Experiments.SelectMany(e => e.Comparisons), c => c.Verdict == Verdict.Worse && written != "worse");
    }

    public static TheoryData<string> Entries => [.. Metrics.All.Select(m => m.Key)];

    /// <summary>
    /// Adding a metric is one entry: for every entry, its properties alone carry it through every part that names it (no
    /// switch, list or key elsewhere): results.json writes its key and reads back the entry, the report labels it with its
    /// header, each threshold spelling parses to it, and its decide: word decides an experiment file (or says what it needs).
    /// </summary>
    [Theory]
    [MemberData(nameof(Entries))]
    public void EveryEntry_ItsPropertiesAlone_CarryItFromFileToJsonAndReport(string key)
    {
        var metric = Metrics.Get(key);
        var sample = ReportFixtures.Sample();
        var compared = sample.Experiments[0].Comparisons[0] with { Metric = metric, HigherIsBetter = metric.HigherIsBetter };
        var results = sample with { Experiments = [sample.Experiments[0] with { Comparisons = [compared], DecidedBy = metric }] };

        var json = ResultsJson.Serialize(results);
        var read = ResultsJson.Deserialize(json, "results.json").Experiments[0];

        Assert.Contains($"\"metric\": \"{metric.Key}\"", json, StringComparison.Ordinal);
        Assert.Contains($"\"decidedBy\": \"{metric.Key}\"", json, StringComparison.Ordinal);
        Assert.Same(metric, read.Comparisons[0].Metric);
        Assert.Same(metric, read.DecidedBy);
        Assert.Contains($"| {metric.Header} |", Markdown(results), StringComparison.Ordinal);
        if (metric.PerScenario)
        {
            Assert.All(metric.ThresholdNames, name => Assert.Same(metric, Metrics.ForThreshold(name)));
        }
        if (metric.DecideWord is { } word)
        {
            var file = Experiment + $"\ndecide: {word}\n";
            if (metric.DecideNeeds is { } needs)
            {
                var error = Assert.ThrowsAny<Exception>(() => ExperimentLoader.Parse(file, "experiments/tail.yaml"));
                Assert.Contains(needs, error.Message, StringComparison.Ordinal);
            }
            else
            {
                Assert.Same(metric, ExperimentLoader.Parse(file, "experiments/tail.yaml").Decide);
                Assert.Same(metric, Metrics.Deciding(word));
            }
        }
    }

    [Fact]
    public void Decide_AWordNoEntryHas_ListsTheCatalogsWords()
    {
        var error = Assert.ThrowsAny<Exception>(() => ExperimentLoader.Parse(Experiment + "\ndecide: speed\n", "experiments/tail.yaml"));

        Assert.Contains("decide: 'speed' is not a metric that can decide; use rps, latency (p99) or cost (CPU per request).",
            error.Message, StringComparison.Ordinal);
    }

    private static RunRecord WithP90(RunRecord run, double p90) =>
        run with { Scenarios = [.. run.Scenarios.Select(s => s with { P90Ms = p90 })] };

    private static ScenarioStats Stats(double p90) => new()
    {
        Scenario = "s", Requests = 1000, Rps = 100, MeanMs = 10, StdDevMs = 1, MinMs = 1, P50Ms = 10, P75Ms = 20, P90Ms = p90,
        P95Ms = 70, P99Ms = 90, P999Ms = 95, MaxMs = 99, BytesReceived = 0, Errors = 0,
    };

    private static string Markdown(RunResults results)
    {
        using var writer = new StringWriter();
        new MarkdownReportWriter().Write(results, writer);
        return writer.ToString();
    }
}
