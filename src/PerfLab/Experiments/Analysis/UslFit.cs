using MathNet.Numerics.LinearAlgebra;
using MathNet.Numerics.Optimization;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Fits the Universal Scalability Law X(N) = λN / (1 + σ(N−1) + κN(N−1)) to measured (users, throughput) points, every
/// block's own point at each N rather than one median, by nonlinear least squares on <b>relative</b> error,
/// Σ((X − X̂)/X̂)² (Levenberg-Marquardt, analytic Jacobian): throughput at the top of a sweep is 10-30 times one user's,
/// so on absolute error the top points alone decide σ and κ and a 1-user point 20 % off costs nothing. Each miss is
/// divided by the curve X̂, not by the measured X (weights 1/X²): a point a stalled machine measured near zero then
/// misses by at most 100 %, where its own tiny X would let it outweigh every other point. The residual 1 − X/X̂ is
/// linear in 1/λ, σ/λ and κ/λ, so Gunther's linearised quadratic N/X = (1 + σ(N−1) + κN(N−1))/λ, each row scaled by
/// X/N, is this fit without its bounds: the start. σ is kept in [0, 1] and κ ≥ 0 (a negative contention or coherency
/// has no meaning; σ above 1 would mean a second user lowers throughput from the start, which scattered points of a
/// busy machine can pull a free fit to): a parameter the free fit takes out of its range is held at the bound it
/// crossed and the rest refitted, keeping the feasible fit of least (relative) squares. The intervals come from the
/// spread between blocks (jackknife, leaving out one block at a time, Student's t with blocks − 1 degrees of freedom)
/// when there are at least three blocks, else from s²(JᵀJ)⁻¹; N* and the peak throughput get theirs by the delta
/// method; each interval is clipped to its parameter's range. R² is on the throughput itself, 1 − Σ(X − X̂)²/Σ(X − X̄)²,
/// so it reads as before whichever error was minimised.
/// </summary>
public static class UslFit
{
    public const int MinPoints = 4;
    private const int MinBlocksForSpread = 3;
    private static readonly (double Low, double High) NonNegative = (0, double.PositiveInfinity);

    /// <summary>Each parameter's range, λ, σ, κ: a throughput, a share, a cost per pair.</summary>
    private static readonly (double Low, double High)[] Ranges = [NonNegative, (0, 1), NonNegative];

    /// <summary>
    /// The fits tried, each parameter free (null) or held at a bound of its range: σ at 0 or 1, κ at 0 (its range
    /// has no upper bound to cross); λ always free.
    /// </summary>
    private static readonly double?[][] Holds = [[null, null, null], [null, null, 0], [null, 0, null], [null, 0, 0], [null, 1, null],
        [null, 1, 0]];

    /// <summary>One measured point: N users, the throughput measured there, and the block it was measured in.</summary>
    public readonly record struct Sample(double Users, double Rps, int Block);

    private sealed record Solution(Vector<double> P, Matrix<double> Covariance, double Rss, int Free);

    /// <summary>The fit of points from one block, or null when there are fewer than <see cref="MinPoints"/> distinct users.</summary>
    public static ScalabilityFit? Fit(string variant, IReadOnlyList<(double Users, double Rps)> measured) =>
        Fit(variant, [.. measured.Select(p => new Sample(p.Users, p.Rps, 0))]);

    /// <summary>The fit, or null when there are fewer than <see cref="MinPoints"/> distinct users with a positive throughput.</summary>
    public static ScalabilityFit? Fit(string variant, IReadOnlyList<Sample> measured)
    {
        var points = Usable(measured);
        if (!Enough(points))
        {
            return null;
        }
        var fit = Solve(points);
        var p = fit.P;
        var blocks = points.Select(q => q.Block).Distinct().Order().ToList();
        var leftOut = blocks.Select(b => points.Where(q => q.Block != b).ToList()).Where(Enough).ToList();
        var fromBlocks = blocks.Count >= MinBlocksForSpread && leftOut.Count == blocks.Count;
        var covariance = fromBlocks
            ? Matrix<double>.Build.DenseOfArray(Statistics.JackknifeCovariance([.. leftOut.Select(l => Solve(l).P.ToArray())]))
            : fit.Covariance;
        var t = Statistics.TwoSidedT(fromBlocks ? blocks.Count - 1 : Math.Max(1, points.Count - fit.Free));

        var fitted = points.Select(q => Model(p, q.Users)).ToList();
        var mean = points.Average(q => q.Rps);
        var tss = points.Sum(q => Math.Pow(q.Rps - mean, 2));
        var rss = points.Select((q, i) => Math.Pow(q.Rps - fitted[i], 2)).Sum();
        FitParameter Param(int i) => Clip(Delta(q => q[i], p, covariance, t)!, Ranges[i]);
        return new ScalabilityFit
        {
            Variant = variant,
            Lambda = Param(0),
            Sigma = Param(1),
            Kappa = Param(2),
            PeakUsers = Delta(PeakUsers, p, covariance, t) is { } n ? n with { Low = Math.Max(n.Low, 1) } : null,
            PeakRps = Delta(PeakRps, p, covariance, t) is { } x ? Clip(x, NonNegative) : null,
            RSquared = tss > 0 ? 1 - (rss / tss) : 1,
            Blocks = blocks.Count,
            IntervalsFrom = fromBlocks ? $"the spread of {blocks.Count} blocks (jackknife)" : "the scatter around the curve",
            Points = points
                .Select((q, i) => new ScalabilityPoint(q.Users, q.Rps, fitted[i], 100 * (q.Rps - fitted[i]) / fitted[i], q.Block))
                .ToList(),
        };
    }

    /// <summary>
    /// Each variant's fit along a sweep of users, from every successful run's all-scenario RPS at each point (one per
    /// block); variants with too few points are left out.
    /// </summary>
    public static IReadOnlyList<ScalabilityFit> ForSweep(IReadOnlyList<string> variants, IReadOnlyList<double> users,
        IReadOnlyList<ExperimentResult?> points) =>
        [.. variants.Select(v => Fit(v, Samples(v, users, points))).OfType<ScalabilityFit>()];

    /// <summary>
    /// Each variant's σ, κ and N* against the baseline's along a sweep of users, paired by block (<see cref="Compare"/>).
    /// </summary>
    public static IReadOnlyList<ScalabilityComparison> ComparisonsForSweep(IReadOnlyList<string> variants, string baseline,
        IReadOnlyList<double> users, IReadOnlyList<ExperimentResult?> points) =>
        [.. variants.Where(v => v != baseline && variants.Contains(baseline))
            .Select(v => Compare(v, baseline, Samples(v, users, points), Samples(baseline, users, points)))
            .OfType<ScalabilityComparison>()];

    /// <summary>A variant's all-scenario RPS of every successful run at each point, with its block.</summary>
    private static List<Sample> Samples(string variant, IReadOnlyList<double> users, IReadOnlyList<ExperimentResult?> points) =>
        [.. users.SelectMany((n, i) => (points[i]?.Runs ?? [])
            .Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
            .Select(r => new Sample(n, Metrics.Rps.Read(r, Metric.AllScenarios), r.Repetition)))];

    /// <summary>
    /// <paramref name="variant"/>'s σ, κ and N* minus <paramref name="baseline"/>'s, paired by block: the blocks ran both
    /// variants interleaved, so the jackknife leaves the same block out of both fits and the differences' spread is that
    /// of the pairs (a block that ran slow slows both and cancels). Student's t with blocks − 1 degrees of freedom. Null
    /// without three blocks common to both, each leaving four users or more; N* null when either fit has no peak.
    /// </summary>
    public static ScalabilityComparison? Compare(string variant, string baseline, IReadOnlyList<Sample> candidate,
        IReadOnlyList<Sample> reference)
    {
        var (a, b) = (Usable(candidate), Usable(reference));
        var blocks = a.Select(q => q.Block).Intersect(b.Select(q => q.Block)).Order().ToList();
        (a, b) = (a.Where(q => blocks.Contains(q.Block)).ToList(), b.Where(q => blocks.Contains(q.Block)).ToList());
        var leftOut = blocks.Select(k => (A: a.Where(q => q.Block != k).ToList(), B: b.Where(q => q.Block != k).ToList())).ToList();
        if (blocks.Count < MinBlocksForSpread || leftOut.Any(l => !Enough(l.A) || !Enough(l.B)))
        {
            return null;
        }
        static double[] Differences(List<Sample> x, List<Sample> y)
        {
            var (p, q) = (Solve(x).P, Solve(y).P);
            return [p[1] - q[1], p[2] - q[2], PeakUsers(p) - PeakUsers(q)];
        }
        var whole = Differences(a, b);
        var dropped = leftOut.Select(l => Differences(l.A, l.B)).ToList();
        var t = Statistics.TwoSidedT(blocks.Count - 1);
        FitParameter? Difference(int i)
        {
            if (!double.IsFinite(whole[i]) || dropped.Any(d => !double.IsFinite(d[i])))
            {
                return null;
            }
            var half = t * Math.Sqrt(Statistics.JackknifeCovariance([.. dropped.Select(d => new[] { d[i] })])[0, 0]);
            return new FitParameter(whole[i], whole[i] - half, whole[i] + half);
        }
        return new ScalabilityComparison
        {
            Variant = variant,
            Baseline = baseline,
            Sigma = Difference(0)!,
            Kappa = Difference(1)!,
            PeakUsers = Difference(2),
            Blocks = blocks.Count,
        };
    }

    private static List<Sample> Usable(IReadOnlyList<Sample> measured) =>
        [.. measured.Where(p => p.Users >= 1 && p.Rps > 0 && double.IsFinite(p.Rps)).OrderBy(p => p.Users)];

    /// <summary>X(N) for parameters (λ, σ, κ).</summary>
    public static double Model(Vector<double> p, double users) =>
        p[0] * users / (1 + (p[1] * (users - 1)) + (p[2] * users * (users - 1)));

    /// <summary>N* = √((1−σ)/κ); NaN when κ ≤ 0 or σ ≥ 1 (no peak).</summary>
    private static double PeakUsers(Vector<double> p) => p[2] > 0 && p[1] < 1 ? Math.Sqrt((1 - p[1]) / p[2]) : double.NaN;

    /// <summary>X(N*), or the ceiling λ/σ when there is no peak; NaN when neither exists.</summary>
    private static double PeakRps(Vector<double> p) =>
        PeakUsers(p) is var n && double.IsFinite(n) ? Model(p, n) : p[1] > 0 ? p[0] / p[1] : double.NaN;

    private static bool Enough(List<Sample> points) => points.Select(p => p.Users).Distinct().Count() >= MinPoints;

    /// <summary>
    /// The feasible (σ in [0, 1], κ ≥ 0) fit of least relative squares: free first, then with σ, κ or both held at a
    /// bound. The model the minimizer fits is X/X̂ to an observed 1 at every point, so its residual is 1 − X/X̂.
    /// </summary>
    private static Solution Solve(List<Sample> points)
    {
        var n = Vector<double>.Build.DenseOfEnumerable(points.Select(q => q.Users));
        var x = Vector<double>.Build.DenseOfEnumerable(points.Select(q => q.Rps));
        var ones = Vector<double>.Build.Dense(points.Count, 1.0);
        var start = Start(points);
        Solution? best = null;
        foreach (var hold in Holds)
        {
            var guess = Vector<double>.Build.Dense(3, i => hold[i] ?? start[i]);
            var model = ObjectiveFunction.NonlinearModel((q, users) => Ratio(q, users, x), (q, users) => RatioJacobian(q, users, x), n,
                ones);
            Vector<double> p;
            try
            {
                p = new LevenbergMarquardtMinimizer(maximumIterations: 10_000)
                    .FindMinimum(model, guess, isFixed: [.. hold.Select(h => h is not null)]).MinimizingPoint;
            }
            catch (ArgumentException)
            {
                // Points scattered this widely (a machine so busy whole windows stalled) can walk the minimizer to
                // parameters that are not finite: that start is skipped, the others (at worst λ alone) still fit.
                continue;
            }
            if (!p.All(double.IsFinite) || p[0] <= 0 || Enumerable.Range(1, 2).Any(i => p[i] < Ranges[i].Low || p[i] > Ranges[i].High))
            {
                continue;
            }
            var rss = (ones - Ratio(p, n, x)).PointwisePower(2).Sum();
            if (best is null || rss < best.Rss - (1e-12 * best.Rss))
            {
                var held = hold.Select(h => h is not null).ToArray();
                best = new Solution(p, Covariance(p, n, x, rss, held), rss, held.Count(h => !h));
            }
        }
        // σ and κ held at zero, λ alone always fits (X = λN); the loop only skips it for a non-positive λ.
        return best ?? new Solution(Vector<double>.Build.Dense([points[0].Rps / points[0].Users, 0, 0]),
            Matrix<double>.Build.Dense(3, 3), double.NaN, 1);
    }

    /// <summary>X/X̂ at every point: X(1 + σ(N−1) + κN(N−1))/(λN).</summary>
    private static Vector<double> Ratio(Vector<double> p, Vector<double> users, Vector<double> x) =>
        Vector<double>.Build.Dense(users.Count, i =>
            x[i] * (1 + (p[1] * (users[i] - 1)) + (p[2] * users[i] * (users[i] - 1))) / (p[0] * users[i]));

    /// <summary>∂(X/X̂)/∂(λ, σ, κ) at every point: −(X/X̂)/λ, X(N−1)/(λN), X(N−1)/λ.</summary>
    private static Matrix<double> RatioJacobian(Vector<double> p, Vector<double> users, Vector<double> x)
    {
        var ratio = Ratio(p, users, x);
        return Matrix<double>.Build.Dense(users.Count, 3, (i, j) => j switch
        {
            0 => -ratio[i] / p[0],
            1 => x[i] * (users[i] - 1) / (p[0] * users[i]),
            _ => x[i] * (users[i] - 1) / p[0],
        });
    }

    /// <summary>
    /// The linearised fit, kept within 0 ≤ σ ≤ 0.9 and 0 ≤ κ ≤ 0.5: (X/N)(a + b(N−1) + cN(N−1)) = 1 by linear least
    /// squares, a = 1/λ, b = σ/λ, c = κ/λ, which minimises the same relative residuals as the fit itself.
    /// </summary>
    private static Vector<double> Start(List<Sample> points)
    {
        static double Term(double users, int j) => j switch { 0 => 1, 1 => users - 1, _ => users * (users - 1) };
        var design = Matrix<double>.Build.Dense(points.Count, 3, (i, j) => points[i].Rps / points[i].Users * Term(points[i].Users, j));
        var c = design.Solve(Vector<double>.Build.Dense(points.Count, 1.0));
        var lambda = c[0] > 0 ? 1 / c[0] : points[0].Rps / points[0].Users;
        var kappa = Math.Clamp(c[2] * lambda, 0, 0.5);
        var sigma = Math.Clamp(c[1] * lambda, 0, 0.9);
        return Vector<double>.Build.Dense([lambda, sigma, kappa]);
    }

    /// <summary>s²(JᵀJ)⁻¹ over the free parameters; a parameter held at a bound has no variance of its own.</summary>
    private static Matrix<double> Covariance(Vector<double> p, Vector<double> users, Vector<double> x, double rss, bool[] held)
    {
        var free = Enumerable.Range(0, 3).Where(i => !held[i]).ToArray();
        var jacobian = RatioJacobian(p, users, x);
        jacobian = Matrix<double>.Build.DenseOfColumnVectors(free.Select(i => jacobian.Column(i)));
        var s2 = rss / Math.Max(1, users.Count - free.Length);
        var inner = jacobian.TransposeThisAndMultiply(jacobian).Inverse() * s2;
        var covariance = Matrix<double>.Build.Dense(3, 3);
        for (var a = 0; a < free.Length; a++)
        {
            for (var b = 0; b < free.Length; b++)
            {
                covariance[free[a], free[b]] = inner[a, b];
            }
        }
        return covariance;
    }

    /// <summary>g(p) with the delta-method interval gᵀΣg (central differences); null when g is not defined at p.</summary>
    private static FitParameter? Delta(Func<Vector<double>, double> g, Vector<double> p, Matrix<double> covariance, double t)
    {
        var value = g(p);
        if (!double.IsFinite(value))
        {
            return null;
        }
        var gradient = Vector<double>.Build.Dense(3, i =>
        {
            var h = 1e-6 * Math.Max(Math.Abs(p[i]), 1e-6);
            Vector<double> up = p.Clone(), down = p.Clone();
            up[i] += h;
            down[i] -= h;
            var (gu, gd) = (g(up), g(down));
            return double.IsFinite(gu) && double.IsFinite(gd) ? (gu - gd) / (2 * h) : 0;
        });
        var half = t * Math.Sqrt(Math.Max(gradient * (covariance * gradient), 0));
        return new FitParameter(value, value - half, value + half);
    }

    /// <summary>The estimate with its interval cut to the parameter's range (the value lies inside it already).</summary>
    private static FitParameter Clip(FitParameter f, (double Low, double High) range) =>
        f with { Low = Math.Clamp(f.Low, range.Low, range.High), High = Math.Clamp(f.High, range.Low, range.High) };
}
