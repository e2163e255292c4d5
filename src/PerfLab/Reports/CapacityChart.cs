using System.Globalization;
using System.Text;
using PerfLab.Results;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>
/// `perflab capacity --html`: the latency-against-rate curve of a capacity search (the "hockey stick": flat while the
/// target keeps up, steep once its queue grows), with the SLO bound as a dashed line and every step in a table.
/// </summary>
public static class CapacityChart
{
    public static string Html(CapacityResult result)
    {
        var html = new StringBuilder();
        html.Append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").Append(H("capacity of " + result.Url))
            .Append("</title>\n");
        html.Append("<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
            + "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}td:last-child{text-align:left}</style></head><body>\n");
        html.Append("<h1>Capacity of <code>").Append(H(result.Url)).Append("</code></h1>\n<p><strong>").Append(H(result.Summary))
            .Append("</strong></p>\n");
        html.Append(Chart(result));
        var table = new ReportTable(
            [new("step"), new("phase", Align.Left), new("target RPS"), new("sent RPS"), new("completed RPS"),
                new(result.LatencyMetric + " ms"), new("errors"), new("trend ms"), new("", Align.Left)],
            [.. result.Steps.Select(s => (IReadOnlyList<Cell>)[Fmt.Int(s.Index), s.Phase, Fmt.Num(s.TargetRps, 1), Fmt.Num(s.SentRps, 1),
                Fmt.Num(s.CompletedRps, 1), Fmt.Num(s.LatencyMs, 1), Fmt.Num(s.ErrorPercent, 2) + " %", Fmt.Signed(s.TrendMs, 0),
                new Cell(s.Holds ? "holds" : s.Reason, Strong: !s.Holds)])]);
        Table(html, table, "capacity");
        return html.Append("</body></html>\n").ToString();
    }

    /// <summary>The SLO latency of each step against the rate it sent, steps in rate order, the SLO bound dashed.</summary>
    public static string Chart(CapacityResult result)
    {
        var points = result.Steps.Where(s => double.IsFinite(s.LatencyMs)).OrderBy(s => s.SentRps)
            .Select(s => (s.SentRps, s.LatencyMs,
                I($"step {s.Index}: sent {s.SentRps:0.#} RPS, {result.LatencyMetric} {s.LatencyMs:0.#} ms, ")
                + I($"{(s.Holds ? "holds" : "breaks")}")))
            .ToList();
        return SvgPlot.Render("capacity", "latency against request rate with the SLO bound", "requests per second sent",
            result.LatencyMetric + " (ms)",
            [new PlotSeries(result.LatencyMetric, points, Line: true, Dots: true)],
            [new PlotLine(result.LatencyLimitMs, I($"SLO {result.LatencyLimitMs:0.#} ms"))]);
    }

    private static string I(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
