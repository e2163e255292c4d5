using System.Globalization;
using System.Text.RegularExpressions;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Experiments.Analysis;

namespace PerfLab.Tests.Reports;

/// <summary>The answer first: every report opens with one line per variant, then the seed table, gates and contents.</summary>
public sealed partial class SummaryReportTests
{
    [Fact]
    public void Sentence_SixPointSixPercentMoreRps_ReadsInWordsAndNumbers()
    {
        var c = new Comparison
        {
            Variant = "async", Scenario = "all", Metric = Metrics.Get("rps"), HigherIsBetter = true, ChangePercent = 6.6, LowPercent = 3.5,
            HighPercent = 9.9, NoiseFloorPercent = 2, Verdict = Verdict.Better,
        };

        var line = new SummaryLine("sync-async", SummaryContent.Sentence(c, "sync"), c.Verdict, null);

        Assert.Equal("sync-async: async serves 6.6 % more requests than sync (95 % CI +3.5 to +9.9 %): better", SummaryContent.Plain(line));
        Assert.Equal("a serves 4.0 % fewer requests than b (95 % CI -4.5 to -3.5 %, within ±5 %)",
            SummaryContent.Sentence(c with { Variant = "a", ChangePercent = -4, LowPercent = -4.5, HighPercent = -3.5, NoiseFloorPercent = 5, Verdict = Verdict.Equivalent }, "b"));
    }

    [Fact]
    public void MarkdownReport_DefaultSuite_ShowsEveryVerdictWithinTheFirst40Lines()
    {
        var results = DefaultSuite();
        var variants = results.Experiments.Sum(e => e.Variants.Count - 1);

        var markdown = Render(new MarkdownReportWriter(), results);

        var lines = markdown.Split('\n');
        var verdictLines = lines.Take(40).Where(l => VerdictLine().IsMatch(l)).ToList();
        Assert.Equal(variants, verdictLines.Count);
        // The first screen is a lead's minute: no line of it wider than 120 characters.
        var summary = lines.TakeWhile(l => l != "## Seed reproduction").ToList();
        Assert.All(summary, l => Assert.True(l.Length <= 120, $"{l.Length} characters: {l}"));
        Assert.True(variants >= 15, $"the default suite compares {variants} variants");
        // The seed table comes right after the verdicts, and the details (provenance, experiments) after both.
        var seed = Array.IndexOf(lines, "## Seed reproduction");
        Assert.True(seed > Array.IndexOf(lines, verdictLines[^1]));
        Assert.True(Array.IndexOf(lines, "## Provenance") > seed);
        // The old label that meant two opposite things (spelled apart, so that a grep of the repository finds it nowhere).
        Assert.DoesNotContain(string.Join(' ', "no", "difference", "detected"), markdown, StringComparison.OrdinalIgnoreCase);
        // The runs below differ by +4 %, +30 % and -20 %: equivalent within the 5 % floor, better and worse.
        Assert.True(verdictLines.Select(l => VerdictLine().Match(l).Groups[1].Value).Distinct().Count() >= 3, string.Join("\n", verdictLines));
    }

    [Fact]
    public void WriteText_DefaultSuite_PrintsOneLinePerVariant()
    {
        var results = DefaultSuite();
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };

        SummaryContent.WriteText(output, results);

        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var rows = lines.Skip(1).TakeWhile(l => !l.StartsWith("- ", StringComparison.Ordinal)).ToList();
        Assert.Matches("^experiment +variant vs baseline \\(deciding figure\\) +change \\[95 % CI\\]  verdict$", lines[0]);
        Assert.Equal(results.Experiments.Sum(e => e.Variants.Count - 1), rows.Count);
        Assert.Contains(rows, l => Regex.IsMatch(l, "^serializer +system-text-json-sourcegen vs newtonsoft \\(RPS\\) +\\+30\\.0 % \\[\\+29\\.5, \\+30\\.5\\]  better$"));
        Assert.All(rows, l => Assert.Matches("  (better|worse|equivalent|inconclusive)$", l));
        Assert.All(lines, l => Assert.True(l.Length <= SummaryTable.Width, l));
        // Serializer asks to be decided on cost; these synthetic runs measured none, so RPS decides, and its notes say so.
        Assert.Contains(lines, l => l.StartsWith("- serializer system-text-json: decide: asked for CPU per request, which was not measured; decided",
            StringComparison.Ordinal));
    }

    private const string CostLine =
        "system-text-json costs 12.0 % less CPU per request than newtonsoft (95 % CI -15.0 to -9.0 %)";

    [Fact]
    public void Lines_DecidedByCost_LeadWithCostAndShowRpsBeside()
    {
        var lines = SummaryContent.Lines(ReportFixtures.Sample());

        var first = lines[0];
        Assert.Equal(("cpu-per-request", Verdict.Better), (first.Deciding!.Metric.Key, first.Verdict));
        Assert.Equal(["rps"], first.Beside.Select(c => c.Metric.Key));
        Assert.Equal($"serializer: {CostLine}: better; beside: RPS +22.1 % [+15.3, +29.4]", SummaryContent.Plain(first));
        // The interval-less source-generated variant: its cost verdict (inconclusive), and what would decide it.
        Assert.StartsWith(
            "serializer: system-text-json-sourcegen costs 14.2 % less CPU per request than newtonsoft (no interval): inconclusive; " +
            "beside: RPS +29.7 % (no interval); to decide: ", SummaryContent.Plain(lines[1]), StringComparison.Ordinal);
        // An experiment decided on RPS, with no cost measured: nothing beside it.
        Assert.Equal("sync-over-async: sync-over-async serves 70.7 % fewer requests than async (95 % CI -74.2 to -66.8 %): worse",
            SummaryContent.Plain(lines[2]));
    }

    [Fact]
    public void EveryOutput_DecidedByCost_LeadsWithTheCostFigure()
    {
        var results = ReportFixtures.Sample();

        var (markdown, html, console, ci, step) = AllOutputs(results);

        const string Row = "| serializer | system-text-json vs newtonsoft (CPU/req) | -12.0 % [-15.0, -9.0] | **better** |";
        Assert.Contains($"## Summary\n\n| experiment | variant vs baseline (deciding figure) | change [95 % CI] | verdict |\n|---|---|---:|---|\n{Row}\n",
            markdown, StringComparison.Ordinal);
        Assert.Contains("- serializer system-text-json: beside: RPS +22.1 % [+15.3, +29.4]\n", markdown, StringComparison.Ordinal);
        Assert.Contains("<tr><td><code>serializer</code></td><td>system-text-json vs newtonsoft (CPU/req)</td>" +
            "<td class=\"num\">-12.0 % [-15.0, -9.0]</td><td><span class=\"verdict better\">better</span></td></tr>", html, StringComparison.Ordinal);
        Assert.Contains("<li class=\"note\">serializer system-text-json: beside: RPS +22.1 % [+15.3, +29.4]</li>", html, StringComparison.Ordinal);
        Assert.Matches("\nserializer +system-text-json vs newtonsoft \\(CPU/req\\) +-12.0 % \\[-15.0, -9.0\\]  better\n",
            console);
        var serializer = ci.Changes.Where(c => c.Experiment == "serializer").ToList();
        Assert.Equal([("system-text-json", "cpu-per-request", true), ("system-text-json", "rps", false),
            ("system-text-json-sourcegen", "cpu-per-request", true), ("system-text-json-sourcegen", "rps", false)],
            serializer.Select(c => (c.Variant, c.Metric.Key, c.Decides!.Value)));
        var first = serializer[0];
        Assert.Equal((-12.0, -15.0, -9.0, "better"), (first.ChangePercent, first.LowPercent, first.HighPercent, first.Verdict));
        Assert.Contains(
            "\"metric\":\"cpu-per-request\",\"changePercent\":-12,\"lowPercent\":-15,\"highPercent\":-9," +
            "\"verdict\":\"better\",\"decides\":true",
            ci.ToJson(), StringComparison.Ordinal);
        Assert.Contains("| serializer | system-text-json vs newtonsoft (CPU/req) | -12.0 % [-15.0, -9.0] | better |",
            step, StringComparison.Ordinal);
        Assert.DoesNotContain("| serializer | system-text-json vs newtonsoft (RPS) |", step, StringComparison.Ordinal);
    }

    [Fact]
    public void HtmlReport_WithMachineNoise_StatesItFirstInTheSummary()
    {
        var html = Render(new HtmlReportWriter(), ReportFixtures.Sample());

        Assert.Contains("<section id=\"summary\">\n<h2>Summary</h2>\n<p class=\"machine-noise\"><strong>this run can tell " +
            "CPU-per-request changes of 12.8 % or more apart; RPS changes of 19.6 % (the median 95 % half-width of its 14 comparisons)",
            html, StringComparison.Ordinal);
        // The facts of each experiment say what decided it, as report.md's do.
        Assert.Contains("<li><strong>Decided by:</strong> CPU per request</li>", html, StringComparison.Ordinal);
        Assert.Contains("<li><strong>Decided by:</strong> RPS</li>", html, StringComparison.Ordinal);
    }

    [GeneratedRegex(@"^\| [^|]+ \| [^|]+ vs [^|]+ \| [^|]+ \| \*{1,2}(better|worse|equivalent|inconclusive)\*{1,2} \|$")]
    private static partial Regex VerdictLine();

    /// <summary>
    /// The default suite's experiment files, analyzed from synthetic runs: four blocks, the n-th variant besides the
    /// baseline at 1.04, 1.30 or 0.80 times the baseline's throughput, with ±0.5 % noise per run.
    /// </summary>
    private static RunResults DefaultSuite()
    {
        double[] factors = [1.04, 1.3, 0.8];
        double[] noise = [0.005, -0.004, 0.003, -0.002];
        var settings = NoFloors();
        var experiments = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).Where(e => e.RunsByDefault && e.Sweep is null).ToList();
        var results = experiments.Select(e =>
        {
            var others = e.Variants.Where(v => v.Name != e.Baseline).Select(v => v.Name).ToList();
            var runs = Enumerable.Range(0, 4).SelectMany(b => e.Variants.Select((v, i) =>
            {
                var rps = 1000 * (v.Name == e.Baseline ? 1 : factors[others.IndexOf(v.Name) % 3]) * (1 + noise[(b + i) % 4]);
                return TestRuns.Ok(v.Name, b + 1, (b * e.Variants.Count) + i + 1, rps) with { BatchTimesMs = [1e5 / rps] };
            })).ToList();
            return ExperimentAnalyzer.Analyze(e, runs, settings);
        }).ToList();
        return ReportFixtures.Sample() with { Experiments = results, Thresholds = [] };
    }

    /// <summary>The quick profile's analysis with no recorded noise floors (a file that does not exist): the defaults.</summary>
    private static AnalysisSettings NoFloors() => new(ProfileName.Quick, null, false,
        NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));

    /// <summary>Every summary of a run: report.md, report.html, the console's, CI's summary and its step summary.</summary>
    private static (string Markdown, string Html, string Console, CiSummary Ci, string Step) AllOutputs(RunResults results)
    {
        using var console = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        SummaryContent.WriteText(console, results);
        var ci = CiSummary.Of(results, "run", 0);
        using var step = new StringWriter(CultureInfo.InvariantCulture);
        StepSummaryWriter.Write(ci, step);
        return (Render(new MarkdownReportWriter(), results), Render(new HtmlReportWriter(), results), console.ToString(), ci, step.ToString());
    }

    private static string Render(IReportWriter writer, RunResults results)
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        writer.Write(results, output);
        return output.ToString();
    }
}
