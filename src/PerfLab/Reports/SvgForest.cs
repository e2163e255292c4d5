using System.Globalization;
using System.Text;
using static PerfLab.Reports.HtmlParts;
using static PerfLab.Reports.SvgPlot;

namespace PerfLab.Reports;

/// <summary>
/// A forest plot as SVG: one row per variant and headline figure, the change against the baseline as a square on its
/// 95 % interval, a dashed line at zero, and the figures and verdict written out beside each row, so the image says
/// everything a reader needs without the report around it. The deciding rows take their verdict's colour (as the
/// HTML summary's badges), the rows beside them grey.
/// </summary>
internal static class SvgForest
{
    // Row labels end where the plot starts, as far in as the longest label needs (about 7 px a bold character).
    private const double PlotWidth = 280, FiguresWidth = 240, Head = 44, RowHeight = 24, Foot = 44, CharWidth = 7;
    private const string Beside = "#8c959f";

    private static readonly Dictionary<string, string> _verdictColours = new()
    {
        ["better"] = "#1a7f37", ["worse"] = "#cf222e", ["equivalent"] = "#0969da", ["inconclusive"] = "#8250df",
    };

    public static string Render(ChangeChart chart, string cssClass = "forest")
    {
        var bottom = Head + (chart.Rows.Count * RowHeight);
        var (low, high, step) = Range(chart.Rows);
        var labelRight = Math.Max(120, 8 + (CharWidth * chart.Rows.Max(r => Label(r).Length)));
        var (plotLeft, plotRight) = (labelRight + 12, labelRight + 12 + PlotWidth);
        double Px(double change) => plotLeft + ((change - low) / (high - low) * PlotWidth);
        var width = Math.Max(plotRight + FiguresWidth, 8 + (CharWidth * chart.Title.Length));
        var svg = new StringBuilder(Open(cssClass, chart.Title, width, bottom + Foot));
        svg.Append(Text(8, 20, "font-size=\"13\" font-weight=\"600\"", H(chart.Title))).Append('\n');
        // Ticks by index, not by adding steps, so that zero is exactly zero and not -0 or 5e-17.
        for (var k = (long)Math.Round(low / step); k <= (long)Math.Round(high / step); k++)
        {
            var tick = k == 0 ? 0 : k * step;
            var label = $"{Fmt.Signed(tick, Decimals(step))} %";
            svg.Append(Line(Px(tick), Head - 6, Px(tick), bottom, "stroke=\"#eaeef2\""))
                .Append(Text(Px(tick), bottom + 16, "class=\"tick\" text-anchor=\"middle\" font-size=\"11\"", label)).Append('\n');
        }
        svg.Append(Line(Px(0), Head - 6, Px(0), bottom, "class=\"zero\" stroke=\"#555\" stroke-dasharray=\"4 3\"")).Append('\n');
        var caption = $"change against {H(chart.Baseline)} (%)";
        svg.Append(Text((plotLeft + plotRight) / 2, bottom + 34, "text-anchor=\"middle\" font-size=\"12\"", caption)).Append('\n');
        for (var i = 0; i < chart.Rows.Count; i++)
        {
            Row(svg, chart.Rows[i], (labelRight, plotRight + 12, Head + (i * RowHeight) + (RowHeight / 2)), Px);
        }
        return svg.Append("</svg>\n").ToString();
    }

    private static string Label(ChangeRow row) => row.Decides ? $"{row.Variant}: {row.Metric}" : $"{row.Metric} (beside)";

    /// <param name="at">Where the row's label ends, where its figures start, and its middle.</param>
    private static void Row(StringBuilder svg, ChangeRow row, (double LabelRight, double FiguresLeft, double Y) at, Func<double, double> px)
    {
        var y = at.Y;
        var colour = row.Decides ? _verdictColours.GetValueOrDefault(row.Verdict, "#57606a") : Beside;
        var weight = row.Decides ? " font-weight=\"600\"" : "";
        svg.Append(Text(at.LabelRight, y + 4, $"text-anchor=\"end\" font-size=\"12\"{weight}", H(Label(row)))).Append('\n');
        if (row is { Low: { } low, High: { } high })
        {
            svg.Append(Line(px(low), y, px(high), y, $"class=\"interval\" stroke=\"{colour}\" stroke-width=\"2\""));
            foreach (var end in new[] { low, high })
            {
                svg.Append(Line(px(end), y - 5, px(end), y + 5, $"stroke=\"{colour}\" stroke-width=\"2\""));
            }
            svg.Append('\n');
        }
        var figures = Fmt.Change(row.Change, row.Low ?? double.NaN, row.High ?? double.NaN);
        svg.Append(I($"<rect class=\"change\" x=\"{px(row.Change) - 4:0.#}\" y=\"{y - 4:0.#}\" width=\"8\" height=\"8\" "))
            .Append(I($"fill=\"{colour}\">"))
            .Append(I($"<title>{H(figures)}</title></rect>\n"));
        var verdict = row.Decides ? $" <tspan fill=\"{colour}\" font-weight=\"600\">{row.Verdict}</tspan>" : "";
        svg.Append(Text(at.FiguresLeft, y + 4, "class=\"figures\" font-size=\"12\"", H(figures) + verdict)).Append('\n');
    }

    /// <summary>The axis: zero and every change and interval end inside, with a little room, in round steps.</summary>
    private static (double Low, double High, double Step) Range(IReadOnlyList<ChangeRow> rows)
    {
        var values = rows.SelectMany(r => new[] { r.Change, r.Low ?? r.Change, r.High ?? r.Change }).Append(0).ToList();
        var (min, max) = (values.Min(), values.Max());
        var span = Math.Max(max - min, 1);
        var step = Step(span / 4);
        return (Math.Floor((min - (span * 0.05)) / step) * step, Math.Ceiling((max + (span * 0.05)) / step) * step, step);
    }

    /// <summary>1, 2 or 5 times a power of ten, the nearest at or above <paramref name="rough"/>.</summary>
    private static double Step(double rough)
    {
        var power = Math.Pow(10, Math.Floor(Math.Log10(rough)));
        return new[] { 1, 2, 5, 10 }.Select(m => m * power).First(s => s >= rough - 1e-12);
    }

    private static int Decimals(double step) => step >= 1 ? 0 : (int)Math.Ceiling(-Math.Log10(step));

    private static string I(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
