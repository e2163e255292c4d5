using System.Globalization;
using System.Text;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>One series of an <see cref="SvgPlot"/>: dots for measured points, a line for a curve, or both.</summary>
internal sealed record PlotSeries(
    string Name, IReadOnlyList<(double X, double Y, string Tip)> Points, bool Line, bool Dots, int Colour = -1)
{
    /// <summary>The dots' radius: a larger one marks the points a chart is about (a capacity found).</summary>
    public double Radius { get; init; } = 4;
}

/// <summary>A horizontal reference line (an SLO bound) with its label.</summary>
internal sealed record PlotLine(double Y, string Label);

/// <summary>
/// A small inline SVG x-y chart, drawn on the server so a report section needs no script: axes from zero to the
/// largest value, each series in its own colour with its name, dots with a hover title, optional reference lines.
/// </summary>
internal static class SvgPlot
{
    private static readonly string[] Colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
    private const double Width = 560, Height = 300, Left = 60, Bottom = 40, Top = 15, Right = 130;

    public static string Render(string cssClass, string label, string xAxis, string yAxis, IReadOnlyList<PlotSeries> series, IReadOnlyList<PlotLine>? lines = null)
    {
        var all = series.SelectMany(s => s.Points).ToList();
        var maxX = all.Count > 0 ? Math.Max(all.Max(p => p.X), 1e-9) : 1;
        var topY = Math.Max(all.Count > 0 ? all.Max(p => p.Y) : 1, lines?.Count > 0 ? lines.Max(l => l.Y) : 0);
        var maxY = Math.Max(topY * 1.1, 1e-9);
        double Px(double x) => Left + (x / maxX * (Width - Left - Right));
        double Py(double y) => Height - Bottom - (Math.Min(y, maxY) / maxY * (Height - Top - Bottom));

        var svg = new StringBuilder();
        svg.Append(I($"<svg class=\"{cssClass}\" viewBox=\"0 0 {Width} {Height}\" width=\"{Width}\" height=\"{Height}\" role=\"img\" aria-label=\"{H(label)}\">\n"));
        svg.Append(I($"<line x1=\"{Left}\" y1=\"{Py(0):0.#}\" x2=\"{Width - Right}\" y2=\"{Py(0):0.#}\" stroke=\"#888\"/><line x1=\"{Left}\" y1=\"{Top}\" x2=\"{Left}\" y2=\"{Py(0):0.#}\" stroke=\"#888\"/>\n"));
        svg.Append(I($"<text x=\"{(Left + Width - Right) / 2:0}\" y=\"{Height - 8}\" text-anchor=\"middle\" font-size=\"12\">{H(xAxis)}, up to {maxX:N0}</text>\n"));
        svg.Append(I($"<text x=\"12\" y=\"{Top + 10}\" font-size=\"12\">{H(yAxis)}</text><text x=\"{Left - 4}\" y=\"{Py(topY) + 4:0.#}\" text-anchor=\"end\" font-size=\"11\">{topY:N0}</text>\n"));
        foreach (var line in lines ?? [])
        {
            svg.Append(I($"<line x1=\"{Left}\" y1=\"{Py(line.Y):0.#}\" x2=\"{Width - Right}\" y2=\"{Py(line.Y):0.#}\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>"));
            svg.Append(I($"<text x=\"{Width - Right + 8}\" y=\"{Py(line.Y) + 4:0.#}\" font-size=\"11\">{H(line.Label)}</text>\n"));
        }
        for (var i = 0; i < series.Count; i++)
        {
            var s = series[i];
            var colour = Colours[(s.Colour >= 0 ? s.Colour : i) % Colours.Length];
            if (s.Line)
            {
                svg.Append($"<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{string.Join(' ', s.Points.Select(p => I($"{Px(p.X):0.#},{Py(p.Y):0.#}")))}\"/>\n");
            }
            foreach (var p in s.Dots ? s.Points : [])
            {
                svg.Append(I($"<circle cx=\"{Px(p.X):0.#}\" cy=\"{Py(p.Y):0.#}\" r=\"{s.Radius:0.#}\" fill=\"{colour}\">"))
                    .Append(I($"<title>{H(p.Tip)}</title></circle>\n"));
            }
            svg.Append(I($"<text x=\"{Width - Right + 8}\" y=\"{Top + 14 + (16 * i)}\" font-size=\"12\" fill=\"{colour}\">{H(s.Name)}</text>\n"));
        }
        return svg.Append("</svg>\n").ToString();
    }

    private static string I(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
