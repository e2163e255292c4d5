using System.Text;
using PerfLab.Results;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>
/// compare-results as one offline HTML page: the gates, provenance, every figure with its verdict, errors, and what
/// only one side has; the same tables as the Markdown, and like report.html a Content-Security-Policy that forbids
/// every network request.
/// </summary>
public static class ComparisonHtmlWriter
{
    private const string Style = """
        body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #1f2328; }
        table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
        th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
        th { background: #f6f8fa; }
        td.num, th.num { text-align: right; white-space: nowrap; }
        .note { color: #57606a; font-size: 0.9em; }
        .warning { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px; }
        """;

    public static void Write(ResultsComparison comparison, TextWriter output)
    {
        var title = $"PerfLab results compared: {comparison.LabelB} against {comparison.LabelA}";
        var html = new StringBuilder();
        html.Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
            .Append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
            .Append("<title>").Append(H(title)).Append("</title>\n<style>\n").Append(Style).Append("</style>\n</head>\n<body>\n")
            .Append("<h1>").Append(H(title)).Append("</h1>\n");
        ThresholdSection.WriteHtml(html, comparison.Thresholds);
        Table(html, ComparisonWriter.Provenance(comparison), "provenance");
        html.Append("<p class=\"note\">").Append(H(ResultsComparison.Method)).Append("</p>\n");
        if (comparison.Figures.Count == 0)
        {
            html.Append("<p>The two result folders have no experiment, variant and scenario in common.</p>\n");
        }
        else
        {
            foreach (var experiment in comparison.Figures.Select(f => f.Experiment).Distinct())
            {
                html.Append("<h2>").Append(H(experiment)).Append("</h2>\n");
                Table(html, ComparisonWriter.Figures(comparison, experiment), "figures");
            }
            html.Append("<h2>Errors</h2>\n");
            Table(html, ComparisonWriter.Errors(comparison), "errors");
        }
        ComparisonWriter.Lists(comparison, (heading, items) =>
        {
            html.Append("<h2>").Append(H(heading)).Append("</h2>\n<ul>\n");
            foreach (var item in items)
            {
                html.Append("<li>").Append(H(item)).Append("</li>\n");
            }
            html.Append("</ul>\n");
        });
        html.Append("</body>\n</html>\n");
        output.Write(html.ToString());
    }
}
