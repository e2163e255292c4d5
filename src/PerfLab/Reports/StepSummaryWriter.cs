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
        if (summary.Changes.Count > 0)
        {
            md.Append("| experiment | variant | against | metric | change [95 % CI] | verdict |\n|---|---|---|---|---:|---|\n");
            foreach (var c in summary.Changes)
            {
                var metric = $"{Cell(c.Scenario)} {Cell(c.Metric)}{(c.Decides == true ? " (decides)" : "")}";
                md.Append(CultureInfo.InvariantCulture,
                    $"| {Cell(c.Experiment)} | {Cell(c.Variant)} | {Cell(c.Against)} | {metric} | ")
                    .Append(CultureInfo.InvariantCulture, $"{Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)} | {c.Verdict} |\n");
            }
            md.Append('\n');
        }
        foreach (var g in summary.Gates)
        {
            md.Append(CultureInfo.InvariantCulture,
                $"- {(g.Passed ? "✓" : "✗")} `{g.Threshold}` on {Cell(g.Scope)}: {Cell(g.Observed)}\n");
        }
        foreach (var c in summary.Claims)
        {
            md.Append(CultureInfo.InvariantCulture,
                $"- claim {c.Result}: {Cell(c.Experiment)}: {Cell(c.Claim)} (seed {Cell(c.SeedFigure)}, ours {Cell(c.OurFigure)})\n");
        }
        foreach (var p in summary.Problems)
        {
            md.Append(CultureInfo.InvariantCulture, $"- {p.Kind}: {Cell(p.Experiment)} {Cell(p.Variant)}: {Cell(p.Reason)}\n");
        }
        foreach (var report in summary.Reports)
        {
            md.Append(CultureInfo.InvariantCulture, $"\nreport: `{report}`\n");
        }
        output.Write(md.Append('\n').ToString());
    }

    // A pipe or a newline inside a cell would break the table.
    private static string Cell(string text) => text.Replace("|", "\\|", StringComparison.Ordinal).Replace('\n', ' ');
}
