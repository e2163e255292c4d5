using PerfLab.Common;
using System.Text.Json;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Experiments.Analysis;

namespace PerfLab.Tests.Reports;

/// <summary>
/// A capacity experiment from its runs to its report: three blocks in which "four" sustained twice, twice and 2.1 times
/// the rate of "two" within p99 &lt; 200 ms; the analysis compares the capacities (paired) and the reports show the
/// verdict, the capacities, every run's answer and the latency-against-rate curve.
/// </summary>
public sealed class CapacityReportTests
{
    private const string Experiment = """
        name: cap
        title: Two capacities
        seed: "000"
        reproduces: nothing, a test
        baseline: two
        capacity: { slo: "p99<200ms", from: 60, max: 400, precision: 50% }
        variants:
          - name: two
            vars: { slots: "2" }
          - name: four
            vars: { slots: "4" }
        load:
          scenarios:
            - name: slots
              url: /diagnostics/capacity?slots=${slots}&ms=20
        profiles:
          quick: { warmup: 250ms, duration: 1s, repeat: 3 }
        """;

    private static CapacityStep Step(int index, string phase, double rate, double p99, bool holds) =>
        new(index, phase, rate, rate, rate, (long)rate, p99, p99 / 2, p99, 0, 0, false, false, false, holds,
            holds ? "holds" : $"p99 {p99} ms breaks p99<200ms");

    /// <summary>A search of the steps given (rate, held), the first at <paramref name="from"/>; its capacity the highest held.</summary>
    private static CapacityResult Search(double from, params (double Rate, bool Holds)[] steps) => new()
    {
        Url = "http://127.0.0.1:5000/diagnostics/capacity",
        Slo = "p99<200ms, errors<1%",
        LatencyMetric = "p99",
        LatencyLimitMs = 200,
        Outcome = CapacityOutcome.Found,
        CapacityRps = steps.Where(s => s.Holds).Max(s => s.Rate),
        // The interval's lower end 5 RPS under the rate held (a repeat that credited less), its upper end where it broke.
        CapacityLowRps = steps.Where(s => s.Holds).Max(s => s.Rate) - 5,
        CapacityHighRps = steps.Where(s => !s.Holds).Min(s => s.Rate),
        BreaksAtRps = steps.Where(s => !s.Holds).Min(s => s.Rate),
        BracketPercent = 33.3,
        Summary = $"within p99<200ms, errors<1%: holds at {steps.Where(s => s.Holds).Max(s => s.Rate)} RPS.",
        StepSeconds = 1,
        WarmupSeconds = 0.25,
        Steps = [.. steps.Select((s, i) => Step(i + 1, s.Rate == from ? "step" : "bisect", s.Rate, s.Holds ? 45 + i : 900, s.Holds))],
    };

    private static RunRecord Run(string variant, int block, int order, CapacityResult search) =>
        TestRuns.Ok(variant, block, order, search.CapacityRps!.Value) with { Capacity = search };

    private static RunResults Results()
    {
        var definition = ExperimentLoader.Parse(Experiment, "experiments/cap.yaml");
        RunRecord[] runs =
        [
            Run("two", 1, 1, Search(60, (60, true), (120, false), (90, true))),
            Run("four", 1, 2, Search(60, (60, true), (120, true), (240, false), (180, true))),
            Run("four", 2, 3, Search(60, (60, true), (120, true), (240, false), (180, true))),
            Run("two", 2, 4, Search(60, (60, true), (120, false), (90, true))),
            Run("two", 3, 5, Search(60, (60, true), (120, false), (100, true))),
            Run("four", 3, 6, Search(60, (60, true), (120, true), (240, false), (210, true))),
        ];
        var floors = NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json"));
        var settings = new AnalysisSettings(ProfileName.Quick, null, false, floors);
        return ReportFixtures.Sample() with { Experiments = [ExperimentAnalyzer.Analyze(definition, runs, settings)] };
    }

    [Fact]
    public void Gate_CapacityAtLeast_ReadsTheMedianOfEachVariantsRunsAtTheIntervalsLowerEnd()
    {
        // two held 90, 90 and 100 RPS, lower ends 85, 85, 95 (median 85); four 180, 180 and 210, lower ends 175, 175, 205.
        var checks = ThresholdGate.Evaluate(Results(), _ => [Threshold.Parse("capacity>=150"), Threshold.Parse("capacity>=178")]);

        Assert.Equal([("cap / two", "85 RPS", false), ("cap / four", "175 RPS", true), ("cap / two", "85 RPS", false),
                ("cap / four", "175 RPS", false)],
            checks.Select(c => (c.Scope, c.Observed, c.Passed)));
        var error = Assert.Throws<PerfLabException>(() => Threshold.Parse("capacity>=150ms"));
        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains("capacity>=400", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Analyze_CapacityRuns_ComparesTheCapacitiesPairedAndCallsFourBetter()
    {
        var experiment = Results().Experiments[0];

        var comparison = Assert.Single(experiment.Comparisons);
        Assert.Equal(Metrics.CapacityRps, comparison.Metric);
        Assert.Equal("paired", comparison.Method);
        Assert.Equal(3, comparison.Pairs);
        Assert.InRange(comparison.ChangePercent, 100, 110);
        Assert.Equal(Verdict.Better, comparison.Verdict);
        Assert.Equal(Metrics.CapacityRps, experiment.DecidedBy);
    }

    [Fact]
    public void Markdown_CapacityExperiment_StatesTheVerdictTheCapacitiesAndLinksTheCurve()
    {
        using var writer = new StringWriter();
        new MarkdownReportWriter().Write(Results(), writer);
        var md = writer.ToString();

        var section = md[md.IndexOf("### Capacity", StringComparison.Ordinal)..];
        Assert.Contains("Each run searched its variant's capacity within p99<200ms, errors<1%: open-model steps of 1 s (after 0.25 s",
            section);
        Assert.Matches(@"- \*\*four sustains 10\d\.\d % more RPS than two within p99<200ms, errors<1% \[\+\d+\.\d, \+\d+\.\d\]: better\*\*",
            section);
        Assert.Contains("| two | 90.0 [", section);
        Assert.Contains("| 3 | 90.0, 90.0, 100.0 | found ×3 |", section);
        Assert.Contains("| 3 | 180.0, 180.0, 210.0 | found ×3 |", section);
        Assert.Contains("![p99 against the rate sent, per variant, with the SLO bound](capacity-cap.svg)", section);
        Assert.Contains("| four | 1 | 180.0 | [175, 240] RPS | 240.0 | 33.3 % | 4 | within p99<200ms, errors<1%: holds at 180 RPS. |",
            section);
        // The summary opens the report with the capacity: the catalog marks it the experiment's primary figure.
        var summary = md[..md.IndexOf("### Capacity", StringComparison.Ordinal)];
        Assert.Matches(@"\| four vs two \(capacity\) \| [^|]+ \| \*\*better\*\* \|", summary);
    }

    [Fact]
    public void Html_CapacityExperiment_DrawsTheLatencyAgainstRateWithTheSloAndThePointsFound()
    {
        using var writer = new StringWriter();
        new HtmlReportWriter().Write(Results(), writer);
        var html = writer.ToString();

        var section = html[html.IndexOf("<h3>Capacity</h3>", StringComparison.Ordinal)..];
        Assert.Contains("<li><strong>four sustains", section);
        Assert.Contains("<svg class=\"capacity\"", section);
        Assert.Contains(">SLO 200 ms</text>", section);
        Assert.Contains("p99 (ms, capped at 800)", section);
        // Each capacity found is a large dot; a step that broke at 900 ms is drawn at the cap, its tip says 900.
        Assert.Contains("r=\"7\" fill=\"#d62728\"><title>four: capacity 210 RPS</title>", section);
        Assert.Contains("<title>step 2: sent 120 RPS, p99 900 ms, breaks</title>", section);
    }

    [Fact]
    public void WriteAll_CapacityExperiment_WritesTheCurveAsAnSvgFileAndEveryStepInResultsJson()
    {
        var folder = Path.Combine(Path.GetTempPath(), "perflab-capacity-report-" + Guid.NewGuid().ToString("N")[..12]);

        var written = ReportWriters.WriteAll(Results(), folder);

        var svg = Path.Combine(folder, "capacity-cap.svg");
        Assert.Contains(svg, written);
        Assert.StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"capacity\"", File.ReadAllText(svg));
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "results.json")));
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs");
        var steps = runs.EnumerateArray().Select(r => r.GetProperty("capacity").GetProperty("steps").GetArrayLength());
        Assert.Equal([3, 4, 4, 3, 3, 4], steps);
        Assert.Equal(180, runs[1].GetProperty("capacity").GetProperty("capacityRps").GetDouble());
        Assert.Equal((175, 240), (runs[1].GetProperty("capacity").GetProperty("capacityLowRps").GetDouble(),
            runs[1].GetProperty("capacity").GetProperty("capacityHighRps").GetDouble()));
    }
}
