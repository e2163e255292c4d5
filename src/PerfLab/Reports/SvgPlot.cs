using System.Globalization;
using System.Text;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>One series of an <see cref="SvgPlot"/>: dots for measured points, a line for a curve, or both.</summary>
/// <param name="Intervals">Per point (same order), the 95 % interval drawn as a whisker; null for none.</param>
internal sealed record PlotSeries(string Name, IReadOnlyList<(double X, double Y, string Tip)> Points, bool Line, bool Dots,
    int Colour = -1, IReadOnlyList<(double Low, double High)?>? Intervals = null)
{
    /// <summary>The dots' radius: a larger one marks the points a chart is about (a capacity found).</summary>
    public double Radius { get; init; } = 4;
    /// <summary>Dots drawn as rings: points shown but not counted (a history's runs noisier than the change).</summary>
    public bool Hollow { get; init; }
}

/// <summary>A horizontal reference line (an SLO bound) with its label.</summary>
internal sealed record PlotLine(double Y, string Label);

/// <summary>
/// A small x-y chart as SVG, drawn on the server so that a report section needs no script and the same image stands
/// alone as a file beside report.md: axes from zero (or below, for changes that fall) to the largest value, each series
/// in its own colour with its name, dots with a hover title and optional whiskers, optional reference lines and x ticks.
/// </summary>
internal static class SvgPlot
{
    private static readonly string[] Colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
    // The plot ends at PlotRight; the legend beside it is as wide as its longest name needs (about 7 px a character).
    private const double PlotRight = 430, Height = 300, Left = 60, Bottom = 40, Top = 15, Legend = 130, CharWidth = 7;

    /// <param name="xTicks">Labelled positions on the x axis (a sweep's values); without them the axis says how far it goes.</param>
    public static string Render(string cssClass, string label, string xAxis, string yAxis, IReadOnlyList<PlotSeries> series,
        IReadOnlyList<PlotLine>? lines = null, IReadOnlyList<(double X, string Label)>? xTicks = null)
    {
        var frame = Frame.Of(series, lines);
        var svg = new StringBuilder(Open(cssClass, label, frame.Width, Height));
        Axes(svg, frame, xAxis, yAxis, xTicks);
        foreach (var line in lines ?? [])
        {
            var y = frame.Py(line.Y);
            svg.Append(Line(Left, y, PlotRight, y, "stroke=\"#555\" stroke-dasharray=\"6 4\""))
                .Append(Text(PlotRight + 8, y + 4, "font-size=\"11\"", H(line.Label))).Append('\n');
        }
        for (var i = 0; i < series.Count; i++)
        {
            Series(svg, frame, series[i], Colours[(series[i].Colour >= 0 ? series[i].Colour : i) % Colours.Length], i);
        }
        return svg.Append("</svg>\n").ToString();
    }

    /// <summary>
    /// The opening of a standalone SVG image: its namespace, size and view box, a title for screen readers and a white
    /// ground (a code host's dark theme would otherwise put black text on black).
    /// </summary>
    public static string Open(string cssClass, string label, double width, double height) =>
        I($"<svg class=\"{cssClass}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" ") +
        I($"width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{H(label)}\" font-family=\"sans-serif\">\n") +
        I($"<title>{H(label)}</title>\n<rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>\n");

    /// <summary>A line element, coordinates to a tenth of a pixel, then <paramref name="attributes"/> as given.</summary>
    public static string Line(double x1, double y1, double x2, double y2, string attributes) =>
        I($"<line x1=\"{x1:0.#}\" y1=\"{y1:0.#}\" x2=\"{x2:0.#}\" y2=\"{y2:0.#}\" {attributes}/>");

    /// <summary>A text element at (x, y); <paramref name="content"/> is markup, escaped by the caller.</summary>
    public static string Text(double x, double y, string attributes, string content) =>
        I($"<text x=\"{x:0.#}\" y=\"{y:0.#}\" {attributes}>{content}</text>");

    private static void Axes(StringBuilder svg, Frame f, string xAxis, string yAxis, IReadOnlyList<(double X, string Label)>? xTicks)
    {
        var zero = f.Py(0);
        const string small = "text-anchor=\"end\" font-size=\"11\"";
        svg.Append(Line(Left, zero, PlotRight, zero, "stroke=\"#888\""))
            .Append(Line(Left, Top, Left, Height - Bottom, "stroke=\"#888\""));
        var caption = xTicks is { Count: > 0 } ? H(xAxis) : I($"{H(xAxis)}, up to {f.MaxX:N0}");
        svg.Append('\n').Append(Text((Left + PlotRight) / 2, Height - 8, "text-anchor=\"middle\" font-size=\"12\"", caption))
            .Append('\n');
        foreach (var (x, text) in xTicks ?? [])
        {
            svg.Append(Text(f.Px(x), Height - Bottom + 14, "class=\"tick\" text-anchor=\"middle\" font-size=\"11\"", H(text))).Append('\n');
        }
        svg.Append(Text(12, Top + 10, "font-size=\"12\"", H(yAxis))).Append(Text(Left - 4, f.Py(f.TopY) + 4, small, I($"{f.TopY:N0}")));
        if (f.BottomY < 0)
        {
            svg.Append(Text(Left - 4, zero + 4, small, "0")).Append(Text(Left - 4, f.Py(f.BottomY) + 4, small, I($"{f.BottomY:N0}")));
        }
        svg.Append('\n');
    }

    private static void Series(StringBuilder svg, Frame f, PlotSeries s, string colour, int index)
    {
        if (s.Line)
        {
            var points = string.Join(' ', s.Points.Select(p => I($"{f.Px(p.X):0.#},{f.Py(p.Y):0.#}")));
            svg.Append($"<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{points}\"/>\n");
        }
        for (var j = 0; j < s.Points.Count && s.Intervals is not null; j++)
        {
            if (j < s.Intervals.Count && s.Intervals[j] is { } interval)
            {
                var x = f.Px(s.Points[j].X);
                var attributes = $"class=\"whisker\" stroke=\"{colour}\" stroke-width=\"1.5\"";
                svg.Append(Line(x, f.Py(interval.Low), x, f.Py(interval.High), attributes)).Append('\n');
            }
        }
        foreach (var p in s.Dots ? s.Points : [])
        {
            var paint = s.Hollow ? $"fill=\"#fff\" stroke=\"{colour}\" stroke-width=\"1.5\"" : $"fill=\"{colour}\"";
            svg.Append(I($"<circle cx=\"{f.Px(p.X):0.#}\" cy=\"{f.Py(p.Y):0.#}\" r=\"{s.Radius:0.#}\" {paint}>"))
                .Append(I($"<title>{H(p.Tip)}</title></circle>\n"));
        }
        svg.Append(Text(PlotRight + 8, Top + 14 + (16 * index), $"font-size=\"12\" fill=\"{colour}\"", H(s.Name))).Append('\n');
    }

    /// <summary>Where values land: x from zero to the largest, y from zero (or the lowest below it) to a tenth above the highest.</summary>
    private sealed record Frame(double MaxX, double TopY, double BottomY, double MinY, double MaxY, double Width)
    {
        public static Frame Of(IReadOnlyList<PlotSeries> series, IReadOnlyList<PlotLine>? lines)
        {
            var all = series.SelectMany(s => s.Points).ToList();
            var ys = all.Select(p => p.Y)
                .Concat(series.SelectMany(s => s.Intervals ?? []).OfType<(double Low, double High)>()
                    .SelectMany(i => new[] { i.Low, i.High }))
                .Concat(lines?.Select(l => l.Y) ?? [])
                .Where(double.IsFinite)
                .ToList();
            var maxX = all.Count > 0 ? Math.Max(all.Max(p => p.X), 1e-9) : 1;
            var top = Math.Max(ys.Count > 0 ? ys.Max() : 1, 0);
            var bottom = Math.Min(ys.Count > 0 ? ys.Min() : 0, 0);
            var span = Math.Max(top - bottom, 1e-9);
            var names = series.Select(s => s.Name).Concat(lines?.Select(l => l.Label) ?? []).ToList();
            var legend = Math.Max(Legend, 16 + (CharWidth * (names.Count > 0 ? names.Max(n => n.Length) : 0)));
            return new Frame(maxX, top, bottom, bottom < 0 ? bottom - (span * 0.1) : 0, top + (span * 0.1), PlotRight + legend);
        }

        public double Px(double x) => Left + (x / MaxX * (PlotRight - Left));

        public double Py(double y) =>
            Height - Bottom - ((Math.Clamp(y, MinY, MaxY) - MinY) / (MaxY - MinY) * (Height - Top - Bottom));
    }

    private static string I(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
