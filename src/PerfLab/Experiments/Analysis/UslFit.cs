using MathNet.Numerics.LinearAlgebra;
using MathNet.Numerics.Optimization;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Fits the Universal Scalability Law X(N) = λN / (1 + σ(N−1) + κN(N−1)) to measured (users, throughput) points by
/// nonlinear least squares (Levenberg-Marquardt, analytic Jacobian), started from the linearised fit
/// N/X = (1−σ)/λ + (σ−κ)/λ·N + κ/λ·N² (Gunther's quadratic). The intervals come from s²(JᵀJ)⁻¹ at the solution,
/// so they widen with the scatter of the points around the curve, and need at least four distinct N.
/// </summary>
public static class UslFit
{
    public const int MinPoints = 4;

    /// <summary>The fit, or null when there are fewer than <see cref="MinPoints"/> distinct users with a positive throughput.</summary>
    public static ScalabilityFit? Fit(string variant, IReadOnlyList<(double Users, double Rps)> measured)
    {
        var points = measured.Where(p => p.Users >= 1 && p.Rps > 0 && double.IsFinite(p.Rps)).OrderBy(p => p.Users).ToList();
        if (points.Select(p => p.Users).Distinct().Count() < MinPoints)
        {
            return null;
        }
        var n = Vector<double>.Build.DenseOfEnumerable(points.Select(p => p.Users));
        var x = Vector<double>.Build.DenseOfEnumerable(points.Select(p => p.Rps));
        var model = ObjectiveFunction.NonlinearModel(Model, Gradient, n, x);
        var result = new LevenbergMarquardtMinimizer(maximumIterations: 10_000).FindMinimum(model, Start(points));
        var p = result.MinimizingPoint;

        var fitted = points.Select(q => Model(p, q.Users)).ToList();
        var rss = points.Select((q, i) => Math.Pow(q.Rps - fitted[i], 2)).Sum();
        var mean = points.Average(q => q.Rps);
        var tss = points.Sum(q => Math.Pow(q.Rps - mean, 2));
        var covariance = Covariance(p, points.Select(q => q.Users).ToList(), rss);
        var t = Statistics.TwoSidedT(points.Count - 3);
        FitParameter Param(int i) => Interval(p[i], covariance[i, i], t);

        return new ScalabilityFit
        {
            Variant = variant,
            Lambda = Param(0),
            Sigma = Param(1),
            Kappa = Param(2),
            PeakUsers = Peak(p, covariance, t),
            PeakRps = p[2] > 0 && p[1] < 1 ? Model(p, Math.Sqrt((1 - p[1]) / p[2])) : p[2] <= 0 && p[1] > 0 ? p[0] / p[1] : null,
            RSquared = tss > 0 ? 1 - (rss / tss) : 1,
            Points = points.Select((q, i) => new ScalabilityPoint(q.Users, q.Rps, fitted[i], 100 * (q.Rps - fitted[i]) / fitted[i]))
                .ToList(),
        };
    }

    /// <summary>
    /// Each variant's fit along a sweep of users, from its median all-scenario
    /// RPS at each point; variants with too few points are left out.
    /// </summary>
    public static IReadOnlyList<ScalabilityFit> ForSweep(IReadOnlyList<string> variants, IReadOnlyList<double> users,
        IReadOnlyList<ExperimentResult?> points) =>
    [
        .. variants.Select(v => Fit(v,
            [.. users.Select((n, i) => (n, points[i]?.Summaries.FirstOrDefault(s => s.Variant == v)?.AllRps?.Median ?? double.NaN))]))
            .OfType<ScalabilityFit>(),
    ];

    /// <summary>X(N) for parameters (λ, σ, κ).</summary>
    public static double Model(Vector<double> p, double users) =>
        p[0] * users / (1 + (p[1] * (users - 1)) + (p[2] * users * (users - 1)));

    private static Vector<double> Gradient(Vector<double> p, double users)
    {
        var d = 1 + (p[1] * (users - 1)) + (p[2] * users * (users - 1));
        var scale = -p[0] * users / (d * d);
        return Vector<double>.Build.Dense([users / d, scale * (users - 1), scale * users * (users - 1)]);
    }

    /// <summary>The linearised least-squares fit of N/X as a quadratic in N, kept within 0 ≤ σ, κ &lt; 1.</summary>
    private static Vector<double> Start(List<(double Users, double Rps)> points)
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

    private static Matrix<double> Covariance(Vector<double> p, List<double> users, double rss)
    {
        var jacobian = Matrix<double>.Build.DenseOfRowVectors(users.Select(u => Gradient(p, u)));
        var s2 = rss / (users.Count - 3);
        return (jacobian.TransposeThisAndMultiply(jacobian)).Inverse() * s2;
    }

    private static FitParameter Interval(double value, double variance, double t)
    {
        var half = t * Math.Sqrt(Math.Max(variance, 0));
        return new FitParameter(value, value - half, value + half);
    }

    /// <summary>N* = √((1−σ)/κ) with a delta-method interval; null when κ ≤ 0 or σ ≥ 1 (no peak).</summary>
    private static FitParameter? Peak(Vector<double> p, Matrix<double> covariance, double t)
    {
        if (p[2] <= 0 || p[1] >= 1)
        {
            return null;
        }
        var peak = Math.Sqrt((1 - p[1]) / p[2]);
        double dSigma = -1 / (2 * p[2] * peak), dKappa = -peak / (2 * p[2]);
        var variance = (dSigma * dSigma * covariance[1, 1]) + (2 * dSigma * dKappa * covariance[1, 2])
            + (dKappa * dKappa * covariance[2, 2]);
        var fit = Interval(peak, variance, t);
        return fit with { Low = Math.Max(fit.Low, 1) };
    }
}
