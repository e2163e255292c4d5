using System.Text;
using PerfLab.History;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>
/// `perflab history show --html FILE`: one offline page, one chart per series drawn by <see cref="SvgPlot"/> (no script):
/// each run's median with its 95 % interval by run, hollow where the run's noise floor exceeds the change, each
/// segment's mean as a line, and the change points marked on the axis with their commit.
/// </summary>
public static class HistoryPage
{
    public static void Write(string store, RunOrder order, IReadOnlyList<SeriesAnalysis> series, TextWriter output)
    {
        var html = new StringBuilder();
        html.Append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perflab history</title>\n")
            .Append("<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
                + "h2{font-size:1.1em;margin-top:2em}svg{max-width:100%;height:auto}li{margin:.2em 0}</style></head><body>\n")
            .Append($"<h1>perflab history</h1>\n<p>{H(store)}: {series.Count} series, runs oldest first, {H(order.Said)}. ")
            .Append("Filled: a run's median with its 95 % interval; ring: its run stated a noise floor above the change; ")
            .Append("lines: each segment's mean between change points.</p>\n");
        foreach (var s in series)
        {
            Section(html, s);
        }
        output.Write(html.Append("</body></html>\n").ToString());
    }

    private static void Section(StringBuilder html, SeriesAnalysis s)
    {
        html.Append($"<h2>{H(s.Key.ToString())}</h2>\n");
        PlotSeries Dots(string name, bool hollow, int colour)
        {
            var chosen = s.Points.Select((p, i) => (p, i)).Where(t => t.p.Hollow == hollow).ToList();
            return new PlotSeries(name, [.. chosen.Select(t => ((double)t.i + 1, t.p.Point.Median,
                    $"run {t.i + 1}, {HistoryText.Short(t.p.Run.Commit)}: {Fmt.Num(t.p.Point.Median, 3)} {s.Unit}"))],
                Line: false, Dots: true, colour,
                [.. chosen.Select(t => t.p.Point.Low is { } low && t.p.Point.High is { } high ? ((double, double)?)(low, high) : null)])
            {
                Hollow = hollow,
            };
        }
        var plot = new List<PlotSeries> { Dots("runs", false, 0), Dots("noisier than the change", true, 0) };
        plot.AddRange(s.Segments.Select((g, i) => new PlotSeries(i == 0 ? "segment mean" : "",
            [(g.Start + 0.6, g.Mean, ""), (g.End + 0.4, g.Mean, "")], Line: true, Dots: false, Colour: 1)));
        var ticks = s.ChangePoints.Select(c => (c.Index + 0.5, HistoryText.Short(c.ToCommit))).ToList();
        html.Append(SvgPlot.Render("history", s.Key.ToString(), "run (change points marked with their commit)",
            $"{s.Key.Metric} ({s.Unit})", plot, xTicks: ticks));
        html.Append("<ul>\n");
        foreach (var c in s.ChangePoints)
        {
            var range = $"{HistoryText.Short(c.FromCommit)}..{HistoryText.Short(c.ToCommit)}";
            html.Append($"<li>change point at run {c.Index + 1}, {H(range)}: ")
                .Append($"{H(Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent))}, {Fmt.Verdict(c.Verdict)}")
                .Append(c.IsNew ? ", new with the newest run" : "").Append("</li>\n");
        }
        html.Append(s.ChangePoints.Count == 0 ? "<li>no change point</li>\n" : "").Append("</ul>\n");
    }
}
