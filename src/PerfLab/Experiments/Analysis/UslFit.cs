using MathNet.Numerics.LinearAlgebra;
using MathNet.Numerics.Optimization;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Fits the Universal Scalability Law X(N) = λN / (1 + σ(N−1) + κN(N−1)) to measured (users, throughput) points, every
/// block's own point at each N rather than one median, by nonlinear least squares (Levenberg-Marquardt, analytic
/// Jacobian) started from Gunther's linearised quadratic N/X = (1−σ)/λ + (σ−κ)/λ·N + κ/λ·N². σ ≥ 0 and κ ≥ 0 are
/// enforced (a negative contention or coherency has no meaning): when the free fit goes below zero, the parameter is held
/// at zero and the rest refitted, keeping the feasible fit of least squares. The intervals come from the spread between
/// blocks (jackknife, leaving out one block at a time, Student's t with blocks − 1 degrees of freedom) when there are
/// at least three blocks, else from s²(JᵀJ)⁻¹; N* and the peak throughput get theirs by the delta method.
/// </summary>
public static class UslFit
{
    public const int MinPoints = 4;
    private const int MinBlocksForSpread = 3;
    private static readonly bool[][] FixedSets = [[false, false, false], [false, false, true], [false, true, false], [false, true, true]];

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
        FitParameter Param(int i) => NonNegative(Delta(q => q[i], p, covariance, t)!);
        return new ScalabilityFit
        {
            Variant = variant,
            Lambda = Param(0),
            Sigma = Param(1),
            Kappa = Param(2),
            PeakUsers = Delta(PeakUsers, p, covariance, t) is { } n ? n with { Low = Math.Max(n.Low, 1) } : null,
            PeakRps = Delta(PeakRps, p, covariance, t) is { } x ? NonNegative(x) : null,
            RSquared = tss > 0 ? 1 - (fit.Rss / tss) : 1,
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

    /// <summary>The feasible (σ ≥ 0, κ ≥ 0) least-squares fit: free first, then with σ, κ or both held at zero.</summary>
    private static Solution Solve(List<Sample> points)
    {
        var n = Vector<double>.Build.DenseOfEnumerable(points.Select(q => q.Users));
        var x = Vector<double>.Build.DenseOfEnumerable(points.Select(q => q.Rps));
        var start = Start(points);
        Solution? best = null;
        foreach (var held in FixedSets)
        {
            var guess = Vector<double>.Build.Dense(3, i => held[i] ? 0 : start[i]);
            var model = ObjectiveFunction.NonlinearModel(Model, Gradient, n, x);
            Vector<double> p;
            try
            {
                p = new LevenbergMarquardtMinimizer(maximumIterations: 10_000).FindMinimum(model, guess, isFixed: [.. held])
                    .MinimizingPoint;
            }
            catch (ArgumentException)
            {
                // Points scattered this widely (a machine so busy whole windows stalled) can walk the minimizer to
                // parameters that are not finite: that start is skipped, the others (at worst λ alone) still fit.
                continue;
            }
            if (!p.All(double.IsFinite) || p[1] < 0 || p[2] < 0 || p[0] <= 0)
            {
                continue;
            }
            var rss = points.Sum(q => Math.Pow(q.Rps - Model(p, q.Users), 2));
            if (best is null || rss < best.Rss - (1e-12 * best.Rss))
            {
                best = new Solution(p, Covariance(p, points, rss, held), rss, held.Count(h => !h));
            }
        }
        // Held at zero both, λ alone always fits (X = λN); the loop only skips it for a non-positive λ.
        return best ?? new Solution(Vector<double>.Build.Dense([points[0].Rps / points[0].Users, 0, 0]),
            Matrix<double>.Build.Dense(3, 3), double.NaN, 1);
    }

    private static Vector<double> Gradient(Vector<double> p, double users)
    {
        var d = 1 + (p[1] * (users - 1)) + (p[2] * users * (users - 1));
        var scale = -p[0] * users / (d * d);
        return Vector<double>.Build.Dense([users / d, scale * (users - 1), scale * users * (users - 1)]);
    }

    /// <summary>The linearised least-squares fit of N/X as a quadratic in N, kept within 0 ≤ σ, κ &lt; 1.</summary>
    private static Vector<double> Start(List<Sample> points)
    {
        var design = Matrix<double>.Build.Dense(points.Count, 3, (i, j) => Math.Pow(points[i].Users, j));
        var y = Vector<double>.Build.DenseOfEnumerable(points.Select(q => q.Users / q.Rps));
        var c = design.Solve(y);
        var sum = c[0] + c[1] + c[2];
        var lambda = sum > 0 ? 1 / sum : points[0].Rps / points[0].Users;
        var kappa = Math.Clamp(c[2] * lambda, 0, 0.5);
        var sigma = Math.Clamp((c[1] * lambda) + kappa, 0, 0.9);
        return Vector<double>.Build.Dense([lambda, sigma, kappa]);
    }

    /// <summary>s²(JᵀJ)⁻¹ over the free parameters; a parameter held at zero has no variance of its own.</summary>
    private static Matrix<double> Covariance(Vector<double> p, List<Sample> points, double rss, bool[] held)
    {
        var free = Enumerable.Range(0, 3).Where(i => !held[i]).ToArray();
        var jacobian = Matrix<double>.Build.DenseOfRowVectors(points.Select(q =>
            Vector<double>.Build.DenseOfEnumerable(free.Select(i => Gradient(p, q.Users)[i]))));
        var s2 = rss / Math.Max(1, points.Count - free.Length);
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

    private static FitParameter NonNegative(FitParameter f) => f with { Low = Math.Max(f.Low, 0) };
}
