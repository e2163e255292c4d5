using System.Text;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>The summary in report.md: one list item per variant, the verdict in bold when decided.</summary>
internal static class MarkdownSummarySection
{
    public static void Write(MarkdownBuilder md, RunResults results)
    {
        md.Line($"## {SummaryContent.Title}");
        md.Line();
        md.Line(SummaryContent.Legend);
        md.Line();
        var lines = SummaryContent.Lines(results);
        if (lines.Count == 0)
        {
            md.Line("Nothing to compare: no experiment has a variant besides its baseline.");
        }
        foreach (var line in lines)
        {
            var verdict = line.Verdict switch
            {
                null => "",
                Verdict.Inconclusive => $": *{Fmt.Verdict(Verdict.Inconclusive)}*",
                { } v => $": **{Fmt.Verdict(v)}**",
            };
            var fallback = line.Fallback is { } f ? $" ({Md.Inline(f)})" : "";
            var beside = SummaryContent.BesideText(line) is { } b ? $"; beside: {Md.Inline(b)}" : "";
            beside += InvocationsContent.Text(line.Deciding) is { } each ? $"; {Md.Inline(each)}" : "";
            var decide = line.ToDecide is { } d ? $"; to decide: {Md.Inline(d)}" : "";
            md.Line($"- `{line.Experiment}` {Md.Inline(line.Text)}{verdict}{fallback}{beside}{decide}");
        }
        md.Line();
    }
}

/// <summary>
/// The summary in report.html, the first thing on the page: the machine's noise, then each verdict a coloured badge
/// (one colour per verdict, so the first screen shows the answer at a glance, and a screenshot test can find it).
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
        else
        {
            html.Append("<ul class=\"summary\">\n");
            foreach (var line in lines)
            {
                Line(html, line);
            }
            html.Append("</ul>\n");
        }
        html.Append("<p class=\"note\">").Append(HtmlParts.H(SummaryContent.Legend)).Append("</p>\n</section>\n");
    }

    private static void Line(StringBuilder html, SummaryLine line)
    {
        html.Append("<li><code>").Append(HtmlParts.H(line.Experiment)).Append("</code> ").Append(HtmlParts.H(line.Text));
        if (line.Verdict is { } v)
        {
            html.Append(": <span class=\"verdict ").Append(Fmt.Verdict(v)).Append("\">").Append(Fmt.Verdict(v)).Append("</span>");
        }
        var notes = new[]
        {
            ("", line.Fallback), ("beside: ", SummaryContent.BesideText(line)), ("", InvocationsContent.Text(line.Deciding)),
            ("to decide: ", line.ToDecide),
        };
        foreach (var (label, text) in notes)
        {
            if (text is not null)
            {
                html.Append(" <span class=\"note\">").Append(label).Append(HtmlParts.H(text)).Append("</span>");
            }
        }
        html.Append("</li>\n");
    }
}
