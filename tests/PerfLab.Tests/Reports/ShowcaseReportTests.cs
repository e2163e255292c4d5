using System.Globalization;
using System.Text.RegularExpressions;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Reports;

namespace PerfLab.Tests.Reports;

/// <summary>
/// docs/default-run, the README's showcase: its report.md is what `perflab report docs/default-run` renders from its
/// results.json today, every chart it links is there, and its first screen holds every verdict.
/// </summary>
public sealed partial class ShowcaseReportTests
{
    private static readonly string Folder = Path.Combine(PerfLabPaths.RepoRoot, "docs", "default-run");

    [Fact]
    public void DefaultRun_RenderedFromItsResultsJson_IsTheCommittedReportWithItsCharts()
    {
        var read = ResultsJson.ReadFolder(Folder);
        // As `perflab report` renders it: the notes re-derived.
        var results = read with { Notes = CeilingNotes.Of(read.Experiments) };
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        new MarkdownReportWriter().Write(results, output);
        var committed = File.ReadAllText(Path.Combine(Folder, "report.md"));

        // A difference means the report format changed: re-render it with `./perflab report docs/default-run --format md`.
        Assert.Equal(committed, output.ToString());
        var charts = ChartLink().Matches(committed).Select(m => m.Groups[1].Value).ToList();
        Assert.NotEmpty(charts);
        Assert.All(charts, chart => Assert.True(File.Exists(Path.Combine(Folder, chart)), $"{chart} is linked but not in docs/default-run"));

        var lines = committed.Split('\n');
        // Every variant's verdict in the first 40 lines: the summary's first table, one row each, ends within them (the
        // rows it hides follow in a table of their own, as long as the run has them).
        var firstTable = lines.SkipWhile(l => !Row().IsMatch(l)).TakeWhile(l => l.StartsWith('|')).ToList();
        var endsAt = Array.IndexOf(lines, firstTable[^1]) + 1;
        Assert.Equal(results.Experiments.Sum(e => e.Variants.Count - 1), firstTable.Count(l => Row().IsMatch(l)));
        Assert.True(endsAt <= 40, $"the summary's table ends at line {endsAt}");
        Assert.Equal(SummaryTable.Hidden(results).Count, lines.Count(l => Row().IsMatch(l) && l.Contains(": ", StringComparison.Ordinal)
            && lines.Take(endsAt).All(m => m != l)));
        Assert.All(lines.TakeWhile(l => l != "## Seed reproduction"), l => Assert.True(l.Length <= SummaryTable.Width, l));
    }

    [GeneratedRegex(@"\]\((charts/[^)]+\.svg)\)")]
    private static partial Regex ChartLink();

    [GeneratedRegex(@"^\| [^|]+ \| [^|]+ vs [^|]+ \| [^|]+ \| \*{0,2}(better|worse|equivalent|inconclusive|no comparison)\*{0,2} \|$")]
    private static partial Regex Row();
}
