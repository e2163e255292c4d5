using System.Text;
using PerfLab.Results;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>report.md's sweeps: per sweep its introduction, the crossover of each variant, and the changes per value.</summary>
internal static class MarkdownSweepSection
{
    public static void Write(MarkdownBuilder md, RunResults results)
    {
        if (results.Sweeps is not { Count: > 0 } sweeps)
        {
            return;
        }
        md.Line("## Sweeps");
        md.Line();
        foreach (var sweep in sweeps)
        {
            md.Line($"<a id=\"{SweepContent.Anchor(sweep)}\"></a>");
            md.Line();
            md.Line($"### {Md.Inline(SweepContent.Heading(sweep))}");
            md.Line();
            md.Line(Md.Inline(SweepContent.Intro(sweep)));
            md.Line();
            foreach (var crossover in SweepContent.Crossovers(sweep))
            {
                md.Line($"- **Crossover:** {Md.Inline(crossover)}");
            }
            md.Line();
            md.Line(ChartFiles.Image(ChartFiles.Sweep(sweep)));
            md.Line();
            md.Table(SweepContent.Changes(sweep));
            md.Line();
            WriteScalability(md, sweep);
        }
    }

    private static void WriteScalability(MarkdownBuilder md, SweepResult sweep)
    {
        if (sweep.Scalability is not { Count: > 0 } fits)
        {
            return;
        }
        md.Line($"#### Scalability (USL)");
        md.Line();
        md.Line(Md.Inline(ScalabilityContent.Intro));
        md.Line();
        foreach (var fit in fits)
        {
            md.Line($"- {Md.Inline(ScalabilityContent.Sentence(fit))}");
        }
        md.Line();
        md.Table(ScalabilityContent.Parameters(fits));
        md.Line();
        if (sweep.ScalabilityComparisons is { Count: > 0 } comparisons)
        {
            foreach (var comparison in comparisons)
            {
                md.Line($"- {Md.Inline(ScalabilityContent.Comparison(comparison))}");
            }
            md.Line();
        }
        md.Table(ScalabilityContent.Residuals(fits));
        md.Line();
    }
}

/// <summary>report.html's sweeps: the same as report.md's, plus a chart of each variant's change against the condition.</summary>
internal static class HtmlSweepSection
{
    public static void Write(StringBuilder html, RunResults results)
    {
        if (results.Sweeps is not { Count: > 0 } sweeps)
        {
            return;
        }
        html.Append("<section id=\"sweeps\">\n<h2>Sweeps</h2>\n");
        foreach (var sweep in sweeps)
        {
            var id = SweepContent.Anchor(sweep);
            html.Append($"<div class=\"sweep\" id=\"{id}\">\n<h3>").Append(H(SweepContent.Heading(sweep))).Append("</h3>\n");
            html.Append("<p class=\"note\">").Append(H(SweepContent.Intro(sweep))).Append("</p>\n<ul class=\"facts\">\n");
            foreach (var crossover in SweepContent.Crossovers(sweep))
            {
                html.Append("<li><strong>Crossover:</strong> ").Append(H(crossover)).Append("</li>\n");
            }
            html.Append("</ul>\n");
            html.Append($"<div class=\"charts sweep\" data-sweep=\"{id}\"></div>\n");
            Table(html, SweepContent.Changes(sweep), "sweep");
            WriteScalability(html, sweep);
            html.Append("</div>\n");
        }
        html.Append("</section>\n");
    }

    private static void WriteScalability(StringBuilder html, SweepResult sweep)
    {
        if (sweep.Scalability is not { Count: > 0 } fits)
        {
            return;
        }
        html.Append("<h4>Scalability (USL)</h4>\n<p class=\"note\">").Append(H(ScalabilityContent.Intro))
            .Append("</p>\n<ul class=\"facts\">\n");
        foreach (var fit in fits)
        {
            html.Append("<li>").Append(H(ScalabilityContent.Sentence(fit))).Append("</li>\n");
        }
        html.Append("</ul>\n");
        Table(html, ScalabilityContent.Parameters(fits), "sweep");
        foreach (var comparison in sweep.ScalabilityComparisons ?? [])
        {
            html.Append("<p class=\"note\">").Append(H(ScalabilityContent.Comparison(comparison))).Append("</p>\n");
        }
        html.Append(ScalabilityContent.Chart(fits));
        Table(html, ScalabilityContent.Residuals(fits), "sweep");
    }
}
