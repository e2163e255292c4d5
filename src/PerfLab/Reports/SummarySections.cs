using System.Text;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// The summary in report.md: the table of verdicts, the verdicts it would hide, the notes, the legend; every line
/// within <see cref="SummaryTable.Width"/> characters (a paragraph is wrapped, which Markdown joins again).
/// </summary>
internal static class MarkdownSummarySection
{
    public static void Write(MarkdownBuilder md, RunResults results)
    {
        md.Line($"## {SummaryContent.Title}");
        md.Line();
        var lines = SummaryContent.Lines(results);
        var rows = SummaryTable.Rows(lines);
        if (rows.Count == 0 && lines.Count == 0)
        {
            md.Line("Nothing to compare: no experiment has a variant besides its baseline.");
            md.Line();
        }
        Table(md, SummaryTable.Headers, rows);
        var hidden = SummaryTable.Hidden(results);
        if (hidden.Count > 0)
        {
            Paragraph(md, SummaryTable.HiddenTitle);
            Table(md, SummaryTable.HiddenHeaders, hidden);
        }
        foreach (var note in SummaryTable.Notes(lines))
        {
            foreach (var text in SummaryTable.Wrap(Md.Inline(note), "- ", "  "))
            {
                md.Line(text);
            }
        }
        if (lines.Count > 0)
        {
            md.Line();
        }
        Paragraph(md, SummaryContent.Legend);
    }

    /// <summary>A paragraph wrapped to the summary's width, then a blank line.</summary>
    public static void Paragraph(MarkdownBuilder md, string text, string first = "", string rest = "")
    {
        foreach (var line in SummaryTable.Wrap(Md.Inline(text), first, rest))
        {
            md.Line(line);
        }
        md.Line();
    }

    private static void Table(MarkdownBuilder md, string[] headers, IReadOnlyList<SummaryRow> rows)
    {
        if (rows.Count == 0)
        {
            return;
        }
        md.Line("| " + string.Join(" | ", headers) + " |");
        md.Line("|---|---|---:|---|");
        foreach (var row in rows)
        {
            var verdict = row.Verdict switch
            {
                null => row.VerdictText,
                Verdict.Inconclusive => $"*{row.VerdictText}*",
                _ => $"**{row.VerdictText}**",
            };
            md.Line($"| {Md.Inline(row.Experiment)} | {Md.Inline(row.What)} | {row.Change} | {verdict} |");
        }
        md.Line();
    }
}

/// <summary>
/// The summary in report.html, the first thing on the page: the machine's noise, then the tables with each verdict a
/// coloured badge (one colour per verdict, so the first screen shows the answer at a glance, and a screenshot test can
/// find it), then the notes.
/// </summary>
internal static class HtmlSummarySection
{
    public static void Write(StringBuilder html, RunResults results)
    {
        html.Append($"<section id=\"{SummaryContent.Anchor}\">\n<h2>{SummaryContent.Title}</h2>\n");
        if (results.MachineNoise is { } noise)
        {
            html.Append("<p class=\"machine-noise\"><strong>").Append(HtmlParts.H(noise.Describe())).Append(".</strong></p>\n");
        }
        var lines = SummaryContent.Lines(results);
        if (lines.Count == 0)
        {
            html.Append("<p>Nothing to compare: no experiment has a variant besides its baseline.</p>\n");
        }
        Table(html, "summary", SummaryTable.Headers, SummaryTable.Rows(lines));
        var hidden = SummaryTable.Hidden(results);
        if (hidden.Count > 0)
        {
            html.Append("<p>").Append(HtmlParts.H(SummaryTable.HiddenTitle)).Append("</p>\n");
            Table(html, "summary hidden", SummaryTable.HiddenHeaders, hidden);
        }
        var notes = SummaryTable.Notes(lines);
        if (notes.Count > 0)
        {
            html.Append("<ul class=\"summary-notes\">\n")
                .AppendJoin("", notes.Select(n => $"<li class=\"note\">{HtmlParts.H(n)}</li>\n")).Append("</ul>\n");
        }
        html.Append("<p class=\"note\">").Append(HtmlParts.H(SummaryContent.Legend)).Append("</p>\n</section>\n");
    }

    private static void Table(StringBuilder html, string cssClass, string[] headers, IReadOnlyList<SummaryRow> rows)
    {
        if (rows.Count == 0)
        {
            return;
        }
        html.Append($"<table class=\"{cssClass}\">\n<tr>")
            .AppendJoin("", headers.Select((h, i) => i == 2 ? $"<th class=\"num\">{HtmlParts.H(h)}</th>" : $"<th>{HtmlParts.H(h)}</th>"))
            .Append("</tr>\n");
        foreach (var row in rows)
        {
            html.Append("<tr><td><code>").Append(HtmlParts.H(row.Experiment)).Append("</code></td><td>").Append(HtmlParts.H(row.What))
                .Append("</td><td class=\"num\">").Append(HtmlParts.H(row.Change)).Append("</td><td>");
            html.Append(row.Verdict is { } v
                ? $"<span class=\"verdict {Fmt.Verdict(v)}\">{Fmt.Verdict(v)}</span>"
                : HtmlParts.H(row.VerdictText));
            html.Append("</td></tr>\n");
        }
        html.Append("</table>\n");
    }
}
