using System.Globalization;
using System.Text;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// What a report says about a users sweep's Universal Scalability Law fits, independent of Markdown or HTML: σ, κ
/// and the peak in a sentence per variant, the residuals in a table, and (HTML) the measured points with the curve.
/// </summary>
internal static class ScalabilityContent
{
    public const string Intro =
        "Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by nonlinear least squares to each variant's median " +
        "throughput at each number of users: σ is contention (work queueing for one shared resource), κ coherency (the cost of keeping " +
        "shared state consistent, which makes throughput fall past a peak). Intervals are 95 %. The law assumes one app instance and a " +
        "closed model whose users only wait on the app; a variant's lower σ or κ says why it scales better.";

    /// <summary>"sync: σ = 0.031 [0.020, 0.042], κ = 0.00012 [...]; peak at 88 users [70, 106], 4,120 RPS (R² 0.994)."</summary>
    public static string Sentence(ScalabilityFit fit)
    {
        var peak = fit.PeakUsers is { } n
            ? Invariant($"predicted peak at {n.Value:0} users [{n.Low:0}, {n.High:0}], {fit.PeakRps:N0} RPS")
            : fit.PeakRps is { } ceiling ? Invariant($"no peak (κ ≤ 0): throughput levels off towards λ/σ = {ceiling:N0} RPS")
            : "no peak and no ceiling within the fit (σ and κ ≤ 0: scales linearly over the users measured)";
        return Invariant($"{fit.Variant}: λ = {fit.Lambda.Value:0.#} RPS per user, σ = {Param(fit.Sigma)}, κ = {Param(fit.Kappa)}; {peak} (R² {fit.RSquared:0.###}).");
    }

    private static string Param(FitParameter p) => Invariant($"{G(p.Value)} [{G(p.Low)}, {G(p.High)}]");

    private static string G(double value) => Math.Abs(value) is > 0 and < 0.001
        ? value.ToString("0.##E+0", CultureInfo.InvariantCulture)
        : value.ToString("0.####", CultureInfo.InvariantCulture);

    /// <summary>One row per variant and users: measured, fitted, residual.</summary>
    public static ReportTable Residuals(IReadOnlyList<ScalabilityFit> fits) => new(
        [new("variant", Align.Left), new("users"), new("measured RPS"), new("fitted RPS"), new("residual")],
        [
            .. from fit in fits
               from p in fit.Points
               select (IReadOnlyList<Cell>)[fit.Variant, Fmt.Num(p.Users, 0), Fmt.Num(p.MeasuredRps, 1), Fmt.Num(p.FittedRps, 1), Fmt.Signed(p.ResidualPercent) + " %"],
        ]);

    private static readonly string[] Colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

    /// <summary>An inline SVG: each variant's measured points (dots) and its fitted curve (line), throughput against users.</summary>
    public static string Chart(IReadOnlyList<ScalabilityFit> fits)
    {
        const double width = 560, height = 300, left = 60, bottom = 40, top = 15, right = 130;
        var maxN = fits.SelectMany(f => f.Points).Max(p => p.Users);
        var maxX = fits.SelectMany(f => f.Points).Max(p => Math.Max(p.MeasuredRps, p.FittedRps)) * 1.1;
        double Px(double n) => left + (n / maxN * (width - left - right));
        double Py(double x) => height - bottom - (x / maxX * (height - top - bottom));
        var svg = new StringBuilder();
        svg.Append(Invariant($"<svg class=\"usl\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"throughput against users with the fitted USL curve\">\n"));
        svg.Append(Invariant($"<line x1=\"{left}\" y1=\"{Py(0):0.#}\" x2=\"{width - right}\" y2=\"{Py(0):0.#}\" stroke=\"#888\"/><line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{Py(0):0.#}\" stroke=\"#888\"/>\n"));
        svg.Append(Invariant($"<text x=\"{(left + width - right) / 2:0}\" y=\"{height - 8}\" text-anchor=\"middle\" font-size=\"12\">users (N), up to {maxN:0}</text>\n"));
        svg.Append(Invariant($"<text x=\"12\" y=\"{top + 10}\" font-size=\"12\">RPS</text><text x=\"{left - 4}\" y=\"{Py(maxX / 1.1) + 4:0.#}\" text-anchor=\"end\" font-size=\"11\">{maxX / 1.1:N0}</text>\n"));
        for (var v = 0; v < fits.Count; v++)
        {
            var fit = fits[v];
            var colour = Colours[v % Colours.Length];
            var curve = Enumerable.Range(0, 61).Select(i => 1 + ((maxN - 1) * i / 60.0))
                .Select(n => Invariant($"{Px(n):0.#},{Py(Fitted(fit, n)):0.#}"));
            svg.Append($"<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{string.Join(' ', curve)}\"/>\n");
            foreach (var p in fit.Points)
            {
                svg.Append(Invariant($"<circle cx=\"{Px(p.Users):0.#}\" cy=\"{Py(p.MeasuredRps):0.#}\" r=\"4\" fill=\"{colour}\"><title>{p.Users:0} users: {p.MeasuredRps:0.#} RPS measured, {p.FittedRps:0.#} fitted</title></circle>\n"));
            }
            svg.Append(Invariant($"<text x=\"{width - right + 8}\" y=\"{top + 14 + (16 * v)}\" font-size=\"12\" fill=\"{colour}\">{HtmlParts.H(fit.Variant)}</text>\n"));
        }
        return svg.Append("</svg>\n").ToString();
    }

    private static double Fitted(ScalabilityFit fit, double n) =>
        fit.Lambda.Value * n / (1 + (fit.Sigma.Value * (n - 1)) + (fit.Kappa.Value * n * (n - 1)));

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
