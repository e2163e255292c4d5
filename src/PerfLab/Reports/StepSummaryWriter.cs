using System.Globalization;
using System.Text;

namespace PerfLab.Reports;

/// <summary>
/// The Markdown a CI job page shows for a step (GitHub Actions' $GITHUB_STEP_SUMMARY, which other CI servers have
/// copied): the outcome, every verdict with its interval, ✓/✗ per gate as k6 prints its thresholds, the claims and what
/// failed. Appended, never overwritten: several steps of one job share the file.
/// </summary>
public static class StepSummaryWriter
{
    public const string Variable = "GITHUB_STEP_SUMMARY";

    /// <summary>Appends to the file $GITHUB_STEP_SUMMARY names, when it names one; returns the path written, or null.</summary>
    public static string? AppendIfAsked(CiSummary summary, Func<string, string?>? environment = null)
    {
        var path = (environment ?? Environment.GetEnvironmentVariable)(Variable);
        if (string.IsNullOrWhiteSpace(path))
        {
            return null;
        }
        using var output = new StreamWriter(path, append: true, new UTF8Encoding(false)) { NewLine = "\n" };
        Write(summary, output);
        return path;
    }

    public static void Write(CiSummary summary, TextWriter output)
    {
        var md = new StringBuilder();
        md.Append(CultureInfo.InvariantCulture, $"### perflab {summary.Verb}: {summary.Outcome}\n\n");
        // The first screen, as report.md opens: a row per verdict on its deciding figure (compare-results: every figure),
        // then the better or worse verdicts those rows would hide.
        Table(md, SummaryTable.Headers, summary.Changes.Where(c => c.Decides != false));
        if (summary.Differing.Count > 0)
        {
            md.Append(SummaryTable.HiddenTitle).Append("\n\n");
            Table(md, SummaryTable.HiddenHeaders, summary.Differing);
        }
        // Each item wrapped as the summary's lines are, so the page never scrolls sideways (Markdown joins the lines again).
        var items = summary.Gates.Select(g => $"{(g.Passed ? "✓" : "✗")} `{g.Threshold}` on {Cell(g.Scope)}: {Cell(g.Observed)}")
            .Concat(summary.Claims.Select(c =>
                $"claim {c.Result}: {Cell(c.Experiment)}: {Cell(c.Claim)} (seed {Cell(c.SeedFigure)}, ours {Cell(c.OurFigure)})"))
            .Concat(summary.Problems.Select(p => $"{p.Kind}: {Cell(p.Experiment)} {Cell(p.Variant)}: {Cell(p.Reason)}"));
        foreach (var line in items.SelectMany(item => SummaryTable.Wrap(item, "- ", "  ")))
        {
            md.Append(line).Append('\n');
        }
        foreach (var report in summary.Reports)
        {
            md.Append(CultureInfo.InvariantCulture, $"\nreport: `{report}`\n");
        }
        output.Write(md.Append('\n').ToString());
    }

    private static void Table(StringBuilder md, string[] headers, IEnumerable<CiChange> changes)
    {
        var rows = changes.ToList();
        if (rows.Count == 0)
        {
            return;
        }
        md.Append("| ").AppendJoin(" | ", headers).Append(" |\n|---|---|---:|---|\n");
        foreach (var c in rows)
        {
            var what = (c.Decides == false && c.Scenario == Results.Metric.AllScenarios ? "all scenarios: " : "")
                + SummaryTable.What(c.Variant, c.Against, c.Metric, c.Scenario);
            md.Append(CultureInfo.InvariantCulture, $"| {Cell(c.Experiment)} | {Cell(what)} | ")
                .Append(CultureInfo.InvariantCulture, $"{Fmt.Headline(c.ChangePercent, c.LowPercent, c.HighPercent)} | {c.Verdict} |\n");
        }
        md.Append('\n');
    }

    // A pipe or a newline inside a cell would break the table.
    private static string Cell(string text) => text.Replace("|", "\\|", StringComparison.Ordinal).Replace('\n', ' ');
}
