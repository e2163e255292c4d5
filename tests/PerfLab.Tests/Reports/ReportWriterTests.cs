using System.Globalization;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

public sealed class ReportWriterTests
{
    private static string Render(IReportWriter writer, RunResults results)
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        writer.Write(results, output);
        return output.ToString();
    }

    [Fact]
    public void MarkdownWriter_SampleRun_MatchesGoldenFile() =>
        Golden.AssertMatches("report.md", Render(new MarkdownReportWriter(), ReportFixtures.Sample()));

    [Fact]
    public void JsonWriter_SampleRun_MatchesGoldenFile() =>
        Golden.AssertMatches("results.json", Render(new JsonReportWriter(), ReportFixtures.Sample()));

    [Fact]
    public void MarkdownWriter_UnderACommaDecimalCulture_WritesInvariantNumbers()
    {
        var previous = CultureInfo.CurrentCulture;
        try
        {
            // The build is globalization-invariant, so a culture like ru-RU is made by hand: comma decimals, space groups.
            var commaCulture = (CultureInfo)CultureInfo.InvariantCulture.Clone();
            commaCulture.NumberFormat.NumberDecimalSeparator = ",";
            commaCulture.NumberFormat.NumberGroupSeparator = " ";
            CultureInfo.CurrentCulture = commaCulture;
            var markdown = Render(new MarkdownReportWriter(), ReportFixtures.Sample());
            Assert.Contains("408.4 [392.1–424.7]", markdown);
            Assert.DoesNotContain("408,4", markdown);
        }
        finally
        {
            CultureInfo.CurrentCulture = previous;
        }
    }

    [Fact]
    public void MarkdownWriter_SampleRun_ShowsEverySection()
    {
        var markdown = Render(new MarkdownReportWriter(), ReportFixtures.Sample());

        Assert.Contains("| variant | order (RPS) | order mean (ms) | orders (RPS) | orders mean (ms) | all (RPS) |", markdown);
        Assert.Contains("| variant | thread-pool threads | queue length | time in GC % | alloc rate MB/s | working set MB | starvation injections |", markdown);
        Assert.Contains("**better**", markdown);
        Assert.Contains("**worse**", markdown);
        Assert.Contains("inconclusive", markdown);
        Assert.Contains("Thread-pool starvation", markdown);
        Assert.Contains("the SUT exited with code 134 during warm-up", markdown);
        Assert.Contains("| 000 | `serializer` | System.Text.Json instead of Newtonsoft.Json: more RPS | +22 % RPS | +22.1 % [+15.3, +29.4] | **holds** |", markdown);
        Assert.Contains("| inconclusive |", markdown); // a claim measured once: a direction, no interval
        // A pipe inside a cell must not split it.
        Assert.Contains("no interval \\| no verdict", markdown);
    }

    [Fact]
    public void MarkdownWriter_InterruptedAaRun_SaysSoAtTheTop()
    {
        var sample = ReportFixtures.Sample();
        var results = sample with
        {
            Incomplete = true,
            IncompleteReason = "interrupted by Ctrl+C",
            Provenance = sample.Provenance with { AaMode = true },
        };

        var markdown = Render(new MarkdownReportWriter(), results);

        Assert.Contains("> **Incomplete run:** interrupted by Ctrl+C.", markdown.Split('\n')[2]);
        Assert.Contains("| **A/A mode** | yes: the baseline measured against itself", markdown);
    }

    [Fact]
    public void ResultsJson_WrittenThenRead_RoundTripsEveryFigure()
    {
        var original = ReportFixtures.Sample();
        var json = ResultsJson.Serialize(original);

        var read = ResultsJson.Deserialize(json, "results.json");

        Assert.Equal(json, ResultsJson.Serialize(read));
        Assert.Equal(original.StartedAt, read.StartedAt);
        Assert.Equal(408.4, read.Experiments[0].Summaries[1].AllRps!.Median);
        Assert.Equal(RunStatus.Failed, read.Experiments[0].Runs.Single(r => r.Status != RunStatus.Ok).Status);
        Assert.Null(read.Experiments[0].Claims[1].DirectionHolds);
        Assert.True(double.IsNaN(read.Experiments[0].Comparisons[3].LowPercent));
    }

    [Fact]
    public void ResultsJson_SampleRun_IsCamelCaseWithEnumsAsStrings()
    {
        var json = ResultsJson.Serialize(ReportFixtures.Sample());

        Assert.Contains("\"schemaVersion\": 2", json);
        // One casing for every enum, the property names' own: camelCase.
        Assert.Contains("\"status\": \"failed\"", json);
        Assert.Contains("\"kind\": \"syncOverAsync\"", json);
        Assert.Contains("\"strength\": \"strong\"", json);
        Assert.Contains("\"verdict\": \"inconclusive\"", json);
        Assert.Contains("\"verdict\": \"better\"", json);
        Assert.Contains("\"outcome\": \"holds\"", json);
        Assert.Contains("\"threadpool-thread-count\":", json);
    }

    [Fact]
    public void ResultsJson_NaNAndDurations_AreNullAndSecondsAsNumbers()
    {
        var json = ResultsJson.Serialize(ReportFixtures.Sample());
        using var document = JsonDocument.Parse(json);
        var serializer = document.RootElement.GetProperty("experiments")[0];

        // The interval-less comparison: null, never the string "NaN" that JSON readers take for text.
        Assert.DoesNotContain("NaN", json, StringComparison.Ordinal);
        Assert.DoesNotContain("Infinity", json, StringComparison.Ordinal);
        var noInterval = serializer.GetProperty("comparisons").EnumerateArray().First(c => c.GetProperty("lowPercent").ValueKind == JsonValueKind.Null);
        Assert.Equal(JsonValueKind.Null, noInterval.GetProperty("highPercent").ValueKind);
        Assert.Equal(29.7, noInterval.GetProperty("changePercent").GetDouble());
        // Durations are seconds, numbers: 10 s of warm-up and 1 min 30 s measured.
        Assert.Equal((10.0, 90.0), (serializer.GetProperty("warmup").GetDouble(), serializer.GetProperty("duration").GetDouble()));
        var read = ResultsJson.Deserialize(json, "results.json").Experiments[0];
        Assert.Equal((TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(90)), (read.Warmup, read.Duration));
        Assert.True(double.IsNaN(read.Comparisons.First(c => c.ChangePercent == 29.7).LowPercent));
    }

    [Fact]
    public void ResultsJson_SchemaVersion1_StillReadsWithItsOldEncoding()
    {
        // Version 1: NaN as a string, durations as "hh:mm:ss", PascalCase enum values, the "-+0 %" of a claim's figure.
        var json = ResultsJson.Serialize(ReportFixtures.Sample())
            .Replace("\"schemaVersion\": 2", "\"schemaVersion\": 1", StringComparison.Ordinal)
            .Replace("\"lowPercent\": null", "\"lowPercent\": \"NaN\"", StringComparison.Ordinal)
            .Replace("\"warmup\": 10,", "\"warmup\": \"00:00:10\",", StringComparison.Ordinal)
            .Replace("\"duration\": 90,", "\"duration\": \"00:01:30\",", StringComparison.Ordinal)
            .Replace("\"status\": \"failed\"", "\"status\": \"Failed\"", StringComparison.Ordinal)
            .Replace("\"kind\": \"syncOverAsync\"", "\"kind\": \"SyncOverAsync\"", StringComparison.Ordinal)
            .Replace("\"ourFigure\": \"+22.1 % [+15.3, +29.4]\"", "\"ourFigure\": \"364.6 -> 352.5 RPS (-+0 %)\"", StringComparison.Ordinal);
        Assert.Contains("\"00:01:30\"", json);
        Assert.Contains("(-+0 %)", json);

        var read = ResultsJson.Deserialize(json, "old/results.json");

        var serializer = read.Experiments[0];
        Assert.Equal(2, read.SchemaVersion);
        Assert.Equal(TimeSpan.FromSeconds(90), serializer.Duration);
        Assert.Contains(serializer.Runs, r => r.Status == RunStatus.Failed);
        Assert.Contains(read.Experiments.SelectMany(e => e.Findings), f => f.Kind == FindingKind.SyncOverAsync);
        Assert.Contains(serializer.Comparisons, c => double.IsNaN(c.LowPercent));
        Assert.Equal("364.6 -> 352.5 RPS (0 %)", serializer.Claims[0].OurFigure);
    }

    [Fact]
    public void ResultsJson_UnknownSchemaVersion_IsRefusedWithTheVersions()
    {
        var json = ResultsJson.Serialize(ReportFixtures.Sample()).Replace("\"schemaVersion\": 2", "\"schemaVersion\": 99", StringComparison.Ordinal);

        var error = Assert.Throws<PerfLabException>(() => ResultsJson.Deserialize(json, "old/results.json"));

        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains("old/results.json has schema version 99", error.Message);
        Assert.Contains("reads schema versions 1 to 2", error.Message);
    }

    [Theory]
    [InlineData("{ \"hello\": 1 }", "has no schemaVersion")]
    [InlineData("{ \"schemaVersion\": 1, ", "is not valid JSON")]
    [InlineData("{ \"schemaVersion\": 2, \"experiments\": 5 }", "does not match results schema version 2")]
    public void ResultsJson_NotAResultsFile_IsRefusedClearly(string json, string expected)
    {
        var error = Assert.Throws<PerfLabException>(() => ResultsJson.Deserialize(json, "x.json"));

        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains(expected, error.Message);
    }

    [Fact]
    public void ForFormats_UnknownFormat_NamesTheKnownOnes()
    {
        var error = Assert.Throws<PerfLabException>(() => ReportWriters.ForFormats("md,pdf"));

        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains("'pdf'", error.Message);
        Assert.Contains("json, md, html", error.Message);
    }

    [Fact]
    public void WriteAll_IntoAFolder_WritesTheThreeFilesTheirChartsAndNoTemporaries()
    {
        var dir = Directory.CreateTempSubdirectory("perflab-report-");
        try
        {
            var written = ReportWriters.WriteAll(ReportFixtures.Sample(), dir.FullName);

            Assert.Equal(["report.html", "report.md", "results.json"], Directory.GetFiles(dir.FullName).Select(Path.GetFileName).Order());
            // report.md's charts: the change and the timeline of each of the two experiments.
            Assert.Equal(4, Directory.GetFiles(Path.Combine(dir.FullName, "charts"), "*.svg").Length);
            Assert.Empty(Directory.GetFiles(dir.FullName, "*.tmp", SearchOption.AllDirectories));
            Assert.Equal(7, written.Count);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }
}
