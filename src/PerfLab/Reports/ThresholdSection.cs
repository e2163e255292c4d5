using System.Globalization;
using System.Text;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>The CI gates' pass/fail table, in report.md, report.html, the compare-results outputs and the terminal.</summary>
public static class ThresholdSection
{
    public const string Title = "Thresholds";

    internal static ReportTable Table(IReadOnlyList<ThresholdCheck> checks) => new(
        [new("threshold", Align.Left), new("on", Align.Left), new("observed"), new("result", Align.Left)],
        [.. checks.Select(c => (IReadOnlyList<Cell>)
            [new Cell(c.Threshold, Code: true), new Cell(c.Scope), new Cell(c.Observed),
                new Cell(c.Passed ? "pass" : "FAIL", Strong: !c.Passed)])]);

    /// <summary>"2 of 9 threshold checks failed" / "all 9 threshold checks passed".</summary>
    public static string Summary(IReadOnlyList<ThresholdCheck> checks)
    {
        var failed = checks.Count(c => !c.Passed);
        return failed == 0
            ? string.Create(CultureInfo.InvariantCulture, $"all {checks.Count} threshold checks passed")
            : string.Create(CultureInfo.InvariantCulture, $"{failed} of {checks.Count} threshold checks failed");
    }

    internal static void WriteMarkdown(MarkdownBuilder md, IReadOnlyList<ThresholdCheck> checks)
    {
        if (checks.Count == 0)
        {
            return;
        }
        md.Line($"## {Title}");
        md.Line();
        md.Line($"**{Summary(checks)}.**");
        md.Line();
        md.Table(Table(checks));
        md.Line();
    }

    internal static void WriteHtml(StringBuilder html, IReadOnlyList<ThresholdCheck> checks)
    {
        if (checks.Count == 0)
        {
            return;
        }
        html.Append("<section id=\"thresholds\">\n<h2>").Append(Title).Append("</h2>\n");
        html.Append(checks.All(c => c.Passed) ? "<p>" : "<p class=\"warning\">")
            .Append("<strong>").Append(HtmlParts.H(Summary(checks))).Append(".</strong></p>\n");
        HtmlParts.Table(html, Table(checks), "thresholds");
        html.Append("</section>\n");
    }

    /// <summary>A plain-text table for the terminal and CI logs: one line per check, failures first.</summary>
    public static void WriteText(TextWriter output, IReadOnlyList<ThresholdCheck> checks)
    {
        if (checks.Count == 0)
        {
            return;
        }
        var rows = checks.OrderBy(c => c.Passed).ToList();
        var t = Math.Max(9, rows.Max(c => c.Threshold.Length));
        var s = Math.Max(2, rows.Max(c => c.Scope.Length));
        output.WriteLine($"{"threshold".PadRight(t)}  {"on".PadRight(s)}  result  observed");
        foreach (var c in rows)
        {
            output.WriteLine($"{c.Threshold.PadRight(t)}  {c.Scope.PadRight(s)}  {(c.Passed ? "pass" : "FAIL"),-6}  {c.Observed}");
        }
        output.WriteLine(Summary(checks));
    }
}
