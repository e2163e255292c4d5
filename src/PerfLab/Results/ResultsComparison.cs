namespace PerfLab.Results;

/// <summary>One figure of one experiment, variant and scenario in two result folders: B against A.</summary>
public sealed record ComparedFigure(
    string Experiment,
    string Variant,
    string Scenario,
    Metric Metric,
    Estimate? A,
    Estimate? B,
    double ChangePercent,
    double LowPercent,
    double HighPercent,
    double? NoiseFloorPercent,
    Verdict Verdict);

/// <summary>Errors of one experiment, variant and scenario in two result folders, over their successful runs.</summary>
public sealed record ComparedErrors(string Experiment, string Variant, string Scenario, long ErrorsA, long RequestsA, long ErrorsB,
    long RequestsB)
{
    public double RateA => RequestsA > 0 ? 100.0 * ErrorsA / RequestsA : double.NaN;
    public double RateB => RequestsB > 0 ? 100.0 * ErrorsB / RequestsB : double.NaN;
}

/// <summary>
/// What <c>perflab compare-results A B</c> found: the matched figures and what only one side has, with their verdicts
/// and gates as the analysis took them (<c>Experiments/Analysis/ResultsComparer</c>); the writers render it.
/// </summary>
public sealed record ResultsComparison(
    string LabelA,
    string LabelB,
    RunResults A,
    RunResults B,
    IReadOnlyList<ComparedFigure> Figures,
    IReadOnlyList<string> OnlyInA,
    IReadOnlyList<string> OnlyInB,
    IReadOnlyList<string> WithoutData)
{
    /// <summary>Errors side by side, per experiment, variant and scenario in both folders.</summary>
    public IReadOnlyList<ComparedErrors> Errors { get; init; } = [];

    /// <summary>The gates of `--threshold`, checked on B (latency, RPS, errors) and on B against A (change, no-worse).</summary>
    public IReadOnlyList<ThresholdCheck> Thresholds { get; init; } = [];

    public const string Method =
        "Change = B median / A median - 1. Its 95 % interval is approximated from the two medians' intervals by the " +
        "MOVER method (Zou & Donner, 2008) on the log scale: each side of the interval of ln(B/A) combines the matching " +
        "half-widths of ln B and ln A in quadrature, which treats the two runs as independent. The margin is the larger " +
        "noise floor either run measured for the figure (none: zero). Better or worse: the interval excludes zero and the " +
        "change exceeds the margin; equivalent: the whole interval lies within ± the margin (an equivalence test, as TOST); " +
        "inconclusive: the interval is wider than that, or a figure from fewer than two successful runs has none.";
}
