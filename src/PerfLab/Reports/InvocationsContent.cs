using System.Text;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// A run repeated with `--invocations`: each invocation's own change beside the pooled one, for the headline figures
/// (all scenarios together), so a reader sees how far invocations disagree and which interval the verdict read.
/// </summary>
internal static class InvocationsContent
{
    public const string Title = "Invocations";
    public const string Anchor = "invocations";

    public const string Legend =
        "Each invocation is a perflab process of its own with fresh SUT processes; its change and 95 % interval are its own paired " +
        "analysis. The pooled change is the mean of the invocations' changes (log scale), its interval from their spread (Student's t, " +
        "invocations - 1 degrees of freedom) unless the invocations' own intervals give a wider one (\"within\"); the verdict reads " +
        "the pooled interval.";

    /// <summary>"invocations: +7.8 % [+3.5, +12.3], +1.6 % [...]" for a pooled comparison; null otherwise.</summary>
    public static string? Text(Comparison? c) => c?.Invocations is { } pooled
        ? "invocations: " + string.Join(", ", pooled.Estimates.Select(e => Fmt.Change(e.ChangePercent, e.LowPercent, e.HighPercent)))
        : null;

    /// <summary>One row per variant and headline metric of every experiment; empty for a single invocation.</summary>
    public static ReportTable Table(RunResults results)
    {
        var count = results.Invocations?.Count ?? 0;
        var columns = new List<Column> { new("Experiment", Align.Left), new("Variant", Align.Left), new("Metric", Align.Left) };
        columns.AddRange((results.Invocations ?? []).Select(i => new Column($"Invocation {i.Number}")));
        columns.AddRange([new("Pooled"), new("Interval from", Align.Left), new("Verdict", Align.Left)]);
        var rows = new List<IReadOnlyList<Cell>>();
        foreach (var experiment in results.Experiments)
        {
            var headline = new[] { Deciding.Key(experiment) }.Concat(Deciding.Beside(Deciding.Key(experiment))).ToList();
            foreach (var c in experiment.Comparisons.Where(c => c.Scenario == Metric.AllScenarios && c.Invocations is not null)
                .OrderBy(c => headline.IndexOf(c.Metric) is var i and >= 0 ? i : int.MaxValue))
            {
                var row = new List<Cell> { new(experiment.Name, Code: true), c.Variant, Fmt.Metric(c.Metric) };
                row.AddRange((results.Invocations ?? []).Select(i =>
                    (Cell)(c.Invocations!.Estimates.FirstOrDefault(e => e.Invocation == i.Number) is { } e
                        ? Fmt.Change(e.ChangePercent, e.LowPercent, e.HighPercent)
                        : Fmt.Missing)));
                row.AddRange([new Cell(Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent), Strong: true), c.Invocations!.IntervalFrom,
                    new Cell(Fmt.Verdict(c.Verdict), Strong: c.Verdict != Verdict.Inconclusive)]);
                rows.Add(row);
            }
        }
        return count == 0 ? new ReportTable(columns, []) : new ReportTable(columns, rows);
    }

    /// <summary>The folders, with each invocation's exit code when it was not 0.</summary>
    public static string Folders(RunResults results) =>
        "Folders: " + string.Join(", ", (results.Invocations ?? []).Select(i =>
            i.Folder + (i.Incomplete ? " (incomplete)" : "") + (i.ExitCode != 0 ? $" (exit {i.ExitCode})" : ""))) + ".";

    public static void WriteMarkdown(MarkdownBuilder md, RunResults results)
    {
        if (results.Invocations is null)
        {
            return;
        }
        md.Line($"## {Title}");
        md.Line();
        md.Line(Legend);
        md.Line();
        md.Table(Table(results));
        md.Line();
        md.Line(Md.Inline(Folders(results)));
        md.Line();
    }

    public static void WriteHtml(StringBuilder html, RunResults results)
    {
        if (results.Invocations is null)
        {
            return;
        }
        html.Append($"<section id=\"{Anchor}\">\n<h2>{Title}</h2>\n");
        HtmlParts.Table(html, Table(results), "invocations");
        html.Append("<p class=\"note\">").Append(HtmlParts.H(Legend + " " + Folders(results))).Append("</p>\n</section>\n");
    }
}
