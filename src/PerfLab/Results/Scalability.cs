namespace PerfLab.Results;

/// <summary>
/// The Universal Scalability Law fitted to one variant's throughput along a sweep of users (closed model):
/// X(N) = λN / (1 + σ(N−1) + κN(N−1)). σ is contention (the share of work that queues for one shared resource), κ
/// coherency (the cost of keeping shared state consistent, which grows with every pair of users and makes throughput
/// fall past a peak). Fitted on relative error, σ within [0, 1] and κ non-negative. Intervals are 95 %: from the
/// spread between blocks (jackknife) with three blocks or more, else from the fit's covariance (<see cref="IntervalsFrom"/>
/// says which).
/// </summary>
public sealed record ScalabilityFit
{
    public required string Variant { get; init; }
    /// <summary>Throughput of one user (RPS): the slope at the origin.</summary>
    public required FitParameter Lambda { get; init; }
    /// <summary>Contention, dimensionless (0: none; 1: fully serialised).</summary>
    public required FitParameter Sigma { get; init; }
    /// <summary>Coherency, dimensionless (0: none, throughput only levels off at λ/σ).</summary>
    public required FitParameter Kappa { get; init; }
    /// <summary>The users where the fitted throughput peaks, √((1−σ)/κ); null when κ ≤ 0 (no peak: it levels off).</summary>
    public FitParameter? PeakUsers { get; init; }
    /// <summary>
    /// The fitted throughput at <see cref="PeakUsers"/>, or the
    /// ceiling λ/σ when there is no peak; null when neither exists.
    /// </summary>
    public FitParameter? PeakRps { get; init; }
    /// <summary>The blocks whose points were fitted (each block measured every N once).</summary>
    public int Blocks { get; init; } = 1;
    /// <summary>What the intervals come from: the spread of the blocks, or the scatter around the curve (one or two blocks).</summary>
    public string IntervalsFrom { get; init; } = "the scatter around the curve";
    /// <summary>R² of the fit on the measured throughput.</summary>
    public required double RSquared { get; init; }
    /// <summary>Each measured point with the fitted throughput and the residual.</summary>
    public required IReadOnlyList<ScalabilityPoint> Points { get; init; }
}

/// <summary>
/// One variant's σ, κ and N* minus the baseline's along the same sweep, paired by block (the blocks ran both variants
/// interleaved), each difference with its 95 % interval from the spread of the blocks (jackknife).
/// </summary>
public sealed record ScalabilityComparison
{
    public required string Variant { get; init; }
    public required string Baseline { get; init; }
    /// <summary>σ of the variant minus σ of the baseline.</summary>
    public required FitParameter Sigma { get; init; }
    /// <summary>κ of the variant minus κ of the baseline.</summary>
    public required FitParameter Kappa { get; init; }
    /// <summary>N* of the variant minus N* of the baseline; null when either has no peak (κ = 0) in a fit.</summary>
    public FitParameter? PeakUsers { get; init; }
    /// <summary>The blocks paired.</summary>
    public required int Blocks { get; init; }

    /// <summary>True when the difference's interval excludes zero.</summary>
    public static bool Apart(FitParameter difference) => difference.Low > 0 || difference.High < 0;
}

/// <summary>An estimate with its 95 % interval.</summary>
public sealed record FitParameter(double Value, double Low, double High);

/// <param name="Users">N: the closed model's users at this point.</param>
/// <param name="MeasuredRps">The variant's throughput there in one block.</param>
/// <param name="FittedRps">X(N) of the fitted curve.</param>
/// <param name="ResidualPercent">(measured − fitted) / fitted, in percent.</param>
/// <param name="Block">The block (repetition) it was measured in.</param>
public sealed record ScalabilityPoint(double Users, double MeasuredRps, double FittedRps, double ResidualPercent, int Block = 0);
