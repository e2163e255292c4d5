using System.Text;
using PerfLab.Results;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>report.md's capacity section of an experiment whose runs searched their capacity; nothing for any other.</summary>
internal static class MarkdownCapacitySection
{
    public static void Write(MarkdownBuilder md, ExperimentResult experiment)
    {
        if (!CapacityContent.HasCapacity(experiment))
        {
            return;
        }
        md.Line("### Capacity");
        md.Line();
        md.Line(Md.Inline(CapacityContent.Intro(experiment)));
        md.Line();
        foreach (var (text, verdict) in CapacityContent.Verdicts(experiment))
        {
            md.Line(verdict is Verdict.Better or Verdict.Worse ? $"- **{Md.Inline(text)}**" : $"- {Md.Inline(text)}");
        }
        md.Line();
        md.Table(CapacityContent.Variants(experiment));
        md.Line();
        md.Line($"![p99 against the rate sent, per variant, with the SLO bound]({CapacityContent.ChartFile(experiment)})");
        md.Line();
        md.Table(CapacityContent.Runs(experiment));
        md.Line();
    }
}

/// <summary>report.html's capacity section: the same as report.md's, with the latency-against-rate chart inline.</summary>
internal static class HtmlCapacitySection
{
    public static void Write(StringBuilder html, ExperimentResult experiment)
    {
        if (!CapacityContent.HasCapacity(experiment))
        {
            return;
        }
        html.Append("<h3>Capacity</h3>\n<p class=\"note\">").Append(H(CapacityContent.Intro(experiment)))
            .Append("</p>\n<ul class=\"facts\">\n");
        foreach (var (text, verdict) in CapacityContent.Verdicts(experiment))
        {
            var line = verdict is Verdict.Better or Verdict.Worse ? $"<strong>{H(text)}</strong>" : H(text);
            html.Append("<li>").Append(line).Append("</li>\n");
        }
        html.Append("</ul>\n");
        Table(html, CapacityContent.Variants(experiment), "capacity");
        html.Append(CapacityContent.Chart(experiment));
        Table(html, CapacityContent.Runs(experiment), "capacity");
    }
}
