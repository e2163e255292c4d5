using System.Globalization;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// What a report says about a users sweep's Universal Scalability Law fits, independent of Markdown or HTML: σ, κ
/// and the peak in a sentence per variant, the residuals in a table, and (HTML) the measured points with the curve.
/// </summary>
internal static class ScalabilityContent
{
    public const string Intro =
        "Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by nonlinear least squares to each variant's " +
        "median " +
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
        return Invariant($"{fit.Variant}: λ = {fit.Lambda.Value:0.#} RPS per user, σ = {Param(fit.Sigma)}, κ = {Param(fit.Kappa)}; ")
            + Invariant($"{peak} (R² {fit.RSquared:0.###}).");
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
               select (IReadOnlyList<Cell>)[fit.Variant, Fmt.Num(p.Users, 0), Fmt.Num(p.MeasuredRps, 1), Fmt.Num(p.FittedRps, 1),
                   Fmt.Signed(p.ResidualPercent) + " %"],
        ]);

    /// <summary>An inline SVG: each variant's measured points (dots) and its fitted curve (line), throughput against users.</summary>
    public static string Chart(IReadOnlyList<ScalabilityFit> fits)
    {
        var maxN = fits.SelectMany(f => f.Points).Max(p => p.Users);
        var series = new List<PlotSeries>();
        for (var v = 0; v < fits.Count; v++)
        {
            var fit = fits[v];
            var curve = Enumerable.Range(0, 61).Select(i => 1 + ((maxN - 1) * i / 60.0)).Select(n => (n, Fitted(fit, n), "")).ToList();
            series.Add(new PlotSeries(fit.Variant + " (USL)", curve, Line: true, Dots: false, Colour: v));
            series.Add(new PlotSeries(fit.Variant, [.. fit.Points.Select(p => (p.Users, p.MeasuredRps,
                Invariant($"{p.Users:0} users: {p.MeasuredRps:0.#} RPS measured, {p.FittedRps:0.#} fitted")))],
                Line: false, Dots: true, Colour: v));
        }
        return SvgPlot.Render("usl", "throughput against users with the fitted USL curve", "users (N)", "RPS", series);
    }

    private static double Fitted(ScalabilityFit fit, double n) =>
        fit.Lambda.Value * n / (1 + (fit.Sigma.Value * (n - 1)) + (fit.Kappa.Value * n * (n - 1)));

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
