using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Experiments.Analysis;

namespace PerfLab.Tests.Reports;

/// <summary>
/// The summary a lead reads in a minute: a table, every better or worse a row would hide listed under it, lines that
/// fit 120 characters, large changes as ratios, signs that match the number shown.
/// </summary>
public sealed partial class SummaryReportTests
{
    /// <summary>
    /// The sample with the default run's case: a row inconclusive (sourcegen, on cost) over a single scenario worse on the
    /// RPS beside it, -15.5 % [-21.3, -9.2]; and a row better over a scenario better too, which is no news.
    /// </summary>
    private static RunResults WithScenarioVerdicts()
    {
        var sample = ReportFixtures.Sample();
        var serializer = sample.Experiments[0];
        var template = serializer.Comparisons.First(c => c.Metric.Key == "rps");
        Comparison Scenario(string variant, string scenario, double change, double low, double high, Verdict verdict) => template with
        {
            Variant = variant, Scenario = scenario, ChangePercent = change, LowPercent = low, HighPercent = high, Verdict = verdict,
        };
        Comparison[] added =
        [
            Scenario("system-text-json-sourcegen", "order", -15.5, -21.3, -9.2, Verdict.Worse),
            Scenario("system-text-json-sourcegen", "orders", 1.0, -4, 6, Verdict.Inconclusive),
            Scenario("system-text-json", "orders", 25, 20, 30, Verdict.Better),
        ];
        return sample with { Experiments = [serializer with { Comparisons = [.. serializer.Comparisons, .. added] }, .. sample.Experiments.Skip(1)] };
    }

    private const string HiddenRow = "order: system-text-json-sourcegen vs newtonsoft (RPS)";

    [Fact]
    public void EverySummary_ScenarioWorseUnderAnInconclusiveRow_ListsItAndOnlyIt()
    {
        var results = WithScenarioVerdicts();

        var (markdown, html, console, ci, step) = AllOutputs(results);

        var summary = markdown[..markdown.IndexOf("## Seed reproduction", StringComparison.Ordinal)];
        Assert.Contains($"{SummaryTable.HiddenTitle}\n\n| experiment | scenario: variant vs baseline (figure) | change [95 % CI] | verdict |\n" +
            $"|---|---|---:|---|\n| serializer | {HiddenRow} | -15.5 % [-21.3, -9.2] | **worse** |\n\n", summary, StringComparison.Ordinal);
        // The inconclusive scenario and the better one under a better row are not news: not listed.
        Assert.DoesNotContain("orders: ", summary, StringComparison.Ordinal);
        Assert.Contains($"<td>{HiddenRow}</td><td class=\"num\">-15.5 % [-21.3, -9.2]</td><td><span class=\"verdict worse\">worse</span>",
            html, StringComparison.Ordinal);
        Assert.Matches($@"\nserializer +{HiddenRow.Replace("(", @"\(").Replace(")", @"\)")} +-15\.5 % \[-21\.3, -9\.2\]  worse\n",
            console);
        Assert.Contains($"| serializer | {HiddenRow} | -15.5 % [-21.3, -9.2] | worse |", step, StringComparison.Ordinal);
        var differing = Assert.Single(ci.Differing);
        Assert.Equal(("system-text-json-sourcegen", "order", "rps", "worse", false),
            (differing.Variant, differing.Scenario, differing.Metric.Key, differing.Verdict, differing.Decides!.Value));
        Assert.Contains("\"differing\":[{\"experiment\":\"serializer\"", ci.ToJson(), StringComparison.Ordinal);
    }

    [Fact]
    public void EverySummary_LargeChangesAndLongNotes_NoLineOver120Characters()
    {
        var results = WithScenarioVerdicts();
        var serializer = results.Experiments[0];
        // db-wait's +2137.5 % [+540.0, +7722.7]: a ratio, 22.4×, not a five-digit percentage.
        var huge = serializer with
        {
            Comparisons = [.. serializer.Comparisons.Select(c => c.Scenario == Metric.AllScenarios && c.Metric.Key == "cpu-per-request"
                && c.Variant == "system-text-json" ? c with { ChangePercent = 2137.5, LowPercent = 540, HighPercent = 7722.7 } : c)],
        };
        results = results with { Experiments = [huge, .. results.Experiments.Skip(1)] };

        var (markdown, _, console, _, step) = AllOutputs(results);

        var summary = markdown[..markdown.IndexOf("## Seed reproduction", StringComparison.Ordinal)];
        Assert.Contains("| serializer | system-text-json vs newtonsoft (CPU/req) | 22.4× [6.40×, 78.2×] |", summary, StringComparison.Ordinal);
        foreach (var text in new[] { summary, console, step })
        {
            Assert.All(text.Split('\n'), l => Assert.True(l.Length <= SummaryTable.Width, $"{l.Length} characters: {l}"));
        }
        Assert.Contains("22.4× [6.40×, 78.2×]", console, StringComparison.Ordinal);
    }

    [Fact]
    public void Notes_VariantNamedAsItsExperiment_NamesItOnce()
    {
        // `compare`'s experiment and its one variant are both "pr": its note read "pr pr: beside: ...".
        var line = new SummaryLine("pr", "", Verdict.Inconclusive, "about 6 blocks in all")
        {
            Variant = "pr", Baseline = "main", Deciding = WithScenarioVerdicts().Experiments[0].Comparisons[0],
        };
        var other = line with { Experiment = "serializer" };

        var notes = SummaryTable.Notes([line, other]);

        Assert.StartsWith("pr: ", notes[0], StringComparison.Ordinal);
        Assert.StartsWith("serializer pr: ", notes[1], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(2137.5, 540.0, 7722.7, "22.4× [6.40×, 78.2×]")]
    [InlineData(110.8, 14.0, 289.9, "2.11× [1.14×, 3.90×]")]
    [InlineData(100.0, 50.0, 150.0, "+100.0 % [+50.0, +150.0]")]
    [InlineData(-94.8, -99.6, -33.9, "-94.8 % [-99.6, -33.9]")]
    [InlineData(124166.0, double.NaN, double.NaN, "1243× (no interval)")]
    [InlineData(double.NaN, double.NaN, double.NaN, "—")]
    public void Headline_BeyondPlus100Percent_ShowsTheRatio(double change, double low, double high, string expected) =>
        Assert.Equal(expected, Fmt.Headline(change, low, high));

    [Theory]
    [InlineData(-0.04, 1, "0.0")]
    [InlineData(-0.2, 0, "0")]
    [InlineData(0.04, 1, "0.0")]
    [InlineData(-0.05, 1, "-0.1")]
    [InlineData(3.45, 1, "+3.5")]
    [InlineData(-14.0, 1, "-14.0")]
    public void Signed_RoundsToZero_HasNoSign(double value, int decimals, string expected) =>
        Assert.Equal(expected, Fmt.Signed(value, decimals));

    [Fact]
    public void SeedTable_VariantAFifthOfAPercentSlower_ReadsZeroPercentNotMinusPlusZero()
    {
        // The default run printed "364.6 -> 352.5 RPS (-+0 %)" for sync-min-threads-70 against sync.
        var experiment = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "sync-async");
        double[] noise = [0.01, -0.01, 0.005, -0.005];
        var runs = Enumerable.Range(0, 4).SelectMany(b => experiment.Variants.Select((v, i) =>
            TestRuns.Ok(v.Name, b + 1, (b * experiment.Variants.Count) + i + 1,
                364.6 * (v.Name == experiment.Baseline ? 1 : 0.998) * (1 + noise[(b + i) % 4])))).ToList();

        var result = ExperimentAnalyzer.Analyze(experiment, runs, NoFloors());

        var claim = result.Claims.First(c => c.Claim.Contains("SetMinThreads", StringComparison.Ordinal));
        Assert.EndsWith(" RPS (0 %)", claim.OurFigure);
        Assert.DoesNotContain(result.Claims, c => c.OurFigure.Contains("-+", StringComparison.Ordinal));
    }
}
