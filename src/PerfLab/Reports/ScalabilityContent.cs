using System.Globalization;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// What a report says about a users sweep's Universal Scalability Law fits, independent of Markdown or HTML: σ, κ
/// and the peak in a sentence per variant, the residuals in a table, and (HTML) the measured points with the curve.
/// </summary>
internal static class ScalabilityContent
{
    public const string Intro =
        "Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by least squares on relative error (σ within " +
        "[0, 1], κ ≥ 0) to every block's throughput at each number of users: σ is contention (work queueing for one shared " +
        "resource), κ coherency (the cost of keeping shared state consistent, which makes throughput fall past a peak at N*). " +
        "Intervals are 95 %, from the spread between blocks with three blocks or more. The law assumes one app instance and a " +
        "closed model whose users only wait on the app; a variant's lower σ or κ says why it scales better.";

    /// <summary>
    /// What σ and κ mean for this app, one sentence each: "sync: contention: 7 % of each request's work waits on something
    /// shared [5, 9 %], so it never serves more than 900 RPS; coherency: ..., the knee at 24 users [20, 30], 850 RPS."
    /// </summary>
    public static string Sentence(ScalabilityFit fit)
    {
        var sigma = Invariant($"contention: {100 * fit.Sigma.Value:0.#} % of each request's work waits on something shared ")
            + Invariant($"[{100 * fit.Sigma.Low:0.#}, {100 * fit.Sigma.High:0.#} %]");
        var coherency = fit.PeakUsers is { } n
            ? Invariant($"coherency: every pair of users in flight adds {G(100 * fit.Kappa.Value)} % of a request's time, so ")
                + Invariant($"throughput peaks at {n.Value:0} users [{n.Low:0}, {n.High:0}], {Rps(fit.PeakRps)}, and falls beyond")
            : fit.PeakRps is { } ceiling
                ? Invariant($"no coherency cost measured (κ = 0): throughput levels off towards λ/σ = {ceiling.Value:N0} RPS, no peak")
                : "neither contention nor coherency measured: it scales linearly over the users measured";
        return Invariant($"{fit.Variant}: {sigma}; {coherency} (λ = {fit.Lambda.Value:0.#} RPS per user, R² {fit.RSquared:0.###}).");
    }

    /// <summary>
    /// "async against sync, paired by block (3): σ −0.026 [−0.09, +0.04], κ +0.0003 [−0.001, +0.002], N* −1 [−8, +6]:
    /// none apart", naming those whose interval excludes zero.
    /// </summary>
    public static string Comparison(ScalabilityComparison c)
    {
        var parts = new List<(string Name, FitParameter? Difference, string Format)>
            { ("σ", c.Sigma, "+0.####;−0.####;0"), ("κ", c.Kappa, "+0.######;−0.######;0"), ("N*", c.PeakUsers, "+0.#;−0.#;0") };
        var apart = parts.Where(p => p.Difference is { } d && ScalabilityComparison.Apart(d)).Select(p => p.Name).ToList();
        return Invariant($"{c.Variant} against {c.Baseline}, paired by block ({c.Blocks}): ")
            + string.Join(", ", parts.Select(p => p.Difference is { } d
                ? $"{p.Name} {S(d.Value, p.Format)} [{S(d.Low, p.Format)}, {S(d.High, p.Format)}]"
                : $"{p.Name} not compared (no peak in a fit)"))
            + (apart.Count == 0 ? ": none apart" : $": apart on {string.Join(", ", apart)}");
    }

    private static string S(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);

    /// <summary>The seed-style table: one row per variant, each parameter with its interval.</summary>
    public static ReportTable Parameters(IReadOnlyList<ScalabilityFit> fits) => new(
        [new("variant", Align.Left), new("λ RPS/user"), new("σ [95 % CI]"), new("κ [95 % CI]"), new("N* users [95 % CI]"),
            new("peak RPS [95 % CI]"), new("R²"), new("blocks")],
        [
            .. fits.Select(f => (IReadOnlyList<Cell>)[f.Variant, Fmt.Num(f.Lambda.Value, 1), Param(f.Sigma), Param(f.Kappa),
                f.PeakUsers is { } n ? Invariant($"{n.Value:0} [{n.Low:0}, {n.High:0}]") : "none",
                Rps(f.PeakRps), Fmt.Num(f.RSquared, 3), Fmt.Num(f.Blocks, 0)]),
        ]);

    private static string Rps(FitParameter? x) =>
        x is { } p ? Invariant($"{p.Value:N0} RPS [{p.Low:N0}, {p.High:N0}]") : "none";

    private static string Param(FitParameter p) => Invariant($"{G(p.Value)} [{G(p.Low)}, {G(p.High)}]");

    private static string G(double value) => Math.Abs(value) is > 0 and < 0.001
        ? value.ToString("0.##E+0", CultureInfo.InvariantCulture)
        : value.ToString("0.####", CultureInfo.InvariantCulture);

    /// <summary>One row per variant and users: the blocks' median measured, fitted, residual of that median.</summary>
    public static ReportTable Residuals(IReadOnlyList<ScalabilityFit> fits) => new(
        [new("variant", Align.Left), new("users"), new("measured RPS (median of blocks)"), new("fitted RPS"), new("residual")],
        [
            .. from fit in fits
               from g in fit.Points.GroupBy(p => p.Users)
               let measured = Descriptive.Median([.. g.Select(p => p.MeasuredRps)])
               let fitted = g.First().FittedRps
               select (IReadOnlyList<Cell>)[fit.Variant, Fmt.Num(g.Key, 0), Fmt.Num(measured, 1), Fmt.Num(fitted, 1),
                   Fmt.Signed(100 * (measured - fitted) / fitted) + " %"],
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
