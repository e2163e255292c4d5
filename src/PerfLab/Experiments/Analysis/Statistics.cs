using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// The statistics behind every verdict. Repetitions are few (3 to 20), so intervals come from Student's t
/// distribution rather than a bootstrap, whose percentile intervals are too narrow at such sizes. Throughput and
/// latency are compared as ratios, on log values, turned back into percent: within interleaved blocks as pairs
/// (<see cref="ComparePaired"/>, so drift that hits a whole block cancels), else as independent groups (Welch).
/// </summary>
public static class Statistics
{
    public const double Confidence = 0.95;

    /// <summary>
    /// The median, with the 95 % t interval of the mean; a single sample has no interval. Every estimated quantity
    /// (throughput, latency, counters) cannot be negative, so neither can its interval.
    /// </summary>
    public static Estimate Estimate(IReadOnlyList<double> samples)
    {
        if (samples.Count == 0)
        {
            return new Estimate(double.NaN, double.NaN, double.NaN, 0);
        }
        var median = Descriptive.Median(samples);
        if (samples.Count == 1)
        {
            return new Estimate(median, median, median, 1);
        }
        var mean = samples.Average();
        var halfWidth = StudentT.MarginOfError(samples, Confidence)!.Value;
        // The median and the mean's interval can disagree for skewed samples: widen so the interval holds the median.
        return new Estimate(median, Math.Max(0, Math.Min(mean - halfWidth, median)), Math.Max(mean + halfWidth, median), samples.Count);
    }

    /// <summary>
    /// The change of <paramref name="candidate"/> against <paramref name="baseline"/> in percent, with its 95 %
    /// interval (Welch on log values), and the verdict: a difference is called only when the interval excludes zero
    /// and the change exceeds the noise floor.
    /// </summary>
    public static (double Change, double Low, double High, Verdict Verdict) Compare(
        IReadOnlyList<double> baseline, IReadOnlyList<double> candidate, bool higherIsBetter, double noiseFloorPercent)
    {
        if (baseline.Count < 2 || candidate.Count < 2 || baseline.Concat(candidate).Any(v => v <= 0 || !double.IsFinite(v)))
        {
            var rough = baseline.Count > 0 && candidate.Count > 0 && Descriptive.Median(baseline) > 0
                ? (Descriptive.Median(candidate) / Descriptive.Median(baseline) - 1) * 100
                : double.NaN;
            return (rough, double.NaN, double.NaN, Verdict.NotEnoughData);
        }
        var logA = baseline.Select(v => Math.Log(v)).ToList();
        var logB = candidate.Select(v => Math.Log(v)).ToList();
        var varA = Descriptive.Variance(logA) / logA.Count;
        var varB = Descriptive.Variance(logB) / logB.Count;
        var diff = logB.Average() - logA.Average();
        var se = Math.Sqrt(varA + varB);
        double low, high;
        if (se == 0)
        {
            low = high = diff;
        }
        else
        {
            // Welch–Satterthwaite degrees of freedom.
            var df = Math.Pow(varA + varB, 2) / (varA * varA / (logA.Count - 1) + varB * varB / (logB.Count - 1));
            var t = StudentT.InverseCdf(1 - (1 - Confidence) / 2, df);
            low = diff - t * se;
            high = diff + t * se;
        }
        return Verdicted(diff, low, high, higherIsBetter, noiseFloorPercent);
    }

    /// <summary>
    /// The change within pairs (baseline, candidate) measured in the same block: the mean of the log-ratios with its
    /// 95 % t interval (n - 1 degrees of freedom), turned back into percent. A drift that moves both runs of a block
    /// cancels in its ratio, which independent groups cannot do.
    /// </summary>
    public static (double Change, double Low, double High, Verdict Verdict) ComparePaired(
        IReadOnlyList<(double Baseline, double Candidate)> pairs, bool higherIsBetter, double noiseFloorPercent)
    {
        if (pairs.Count < 2 || pairs.Any(p => p.Baseline <= 0 || p.Candidate <= 0 || !double.IsFinite(p.Baseline) || !double.IsFinite(p.Candidate)))
        {
            return (double.NaN, double.NaN, double.NaN, Verdict.NotEnoughData);
        }
        var ratios = pairs.Select(p => Math.Log(p.Candidate / p.Baseline)).ToList();
        var mean = ratios.Average();
        var se = Math.Sqrt(Descriptive.Variance(ratios) / ratios.Count);
        var t = StudentT.InverseCdf(1 - (1 - Confidence) / 2, ratios.Count - 1);
        return Verdicted(mean, mean - t * se, mean + t * se, higherIsBetter, noiseFloorPercent);
    }

    /// <summary>A log-scale change and its interval in percent, with the verdict rule: the interval excludes zero and the change exceeds the floor.</summary>
    private static (double Change, double Low, double High, Verdict Verdict) Verdicted(double diff, double low, double high,
        bool higherIsBetter, double noiseFloorPercent)
    {
        var change = (Math.Exp(diff) - 1) * 100;
        var lowPercent = (Math.Exp(low) - 1) * 100;
        var highPercent = (Math.Exp(high) - 1) * 100;
        var excludesZero = lowPercent > 0 || highPercent < 0;
        var verdict = !excludesZero || Math.Abs(change) <= noiseFloorPercent
            ? Verdict.NoDifferenceDetected
            : (change > 0) == higherIsBetter ? Verdict.Better : Verdict.Worse;
        return (change, lowPercent, highPercent, verdict);
    }
}
