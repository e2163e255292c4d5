using PerfLab.Common;

namespace PerfLab.Results;

/// <summary>
/// The statistics behind every verdict. Repetitions are few (3 to 20), so intervals come from Student's t
/// distribution rather than a bootstrap, whose percentile intervals are too narrow at such sizes. Throughput and
/// latency are compared as ratios, on log values, turned back into percent: within interleaved blocks as pairs
/// (<see cref="ComparePaired"/>, so drift that hits a whole block cancels), else as independent groups (Welch), or,
/// when only two summaries are left (<c>compare-results</c> of two result folders), from their two intervals
/// (<see cref="CompareEstimates"/>). Every one of them ends in the same verdict rule (<see cref="Decide"/>).
/// </summary>
public static class Statistics
{
    public const double Confidence = 0.95;

    /// <summary>
    /// Student's t that a 95 % two-sided interval takes at <paramref name="degreesOfFreedom"/>: the one place the 95 %
    /// becomes a quantile (2.5 % in each tail), so every interval perflab states is taken at the same confidence.
    /// </summary>
    public static double TwoSidedT(double degreesOfFreedom) => StudentT.InverseCdf(1 - (1 - Confidence) / 2, degreesOfFreedom);

    /// <summary>The median of <paramref name="values"/> (NaN for none): what a threshold and a report read of several runs.</summary>
    public static double Median(IReadOnlyList<double> values) => Descriptive.Median(values);

    /// <summary>
    /// The item whose figure is the median, the lower middle one of an even count: a median that must be one of the
    /// items (a run to draw), not the mean of two. Throws on no items.
    /// </summary>
    public static T MedianOf<T>(IReadOnlyList<T> items, Func<T, double> figure) =>
        items.OrderBy(figure).ElementAt((items.Count - 1) / 2);

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
    /// interval (Welch on log values), and the verdict of <see cref="Decide"/>.
    /// </summary>
    public static (double Change, double Low, double High, Verdict Verdict) Compare(
        IReadOnlyList<double> baseline, IReadOnlyList<double> candidate, bool higherIsBetter, double noiseFloorPercent,
        double? equivalenceMarginPercent = null)
    {
        if (baseline.Count < 2 || candidate.Count < 2 || baseline.Concat(candidate).Any(v => v <= 0 || !double.IsFinite(v)))
        {
            var rough = baseline.Count > 0 && candidate.Count > 0 && Descriptive.Median(baseline) > 0
                ? (Descriptive.Median(candidate) / Descriptive.Median(baseline) - 1) * 100
                : double.NaN;
            return (rough, double.NaN, double.NaN, Verdict.Inconclusive);
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
            var t = TwoSidedT(df);
            low = diff - t * se;
            high = diff + t * se;
        }
        return Verdicted(diff, low, high, higherIsBetter, noiseFloorPercent, equivalenceMarginPercent);
    }

    /// <summary>
    /// The change within pairs (baseline, candidate) measured in the same block: the mean of the log-ratios with its
    /// 95 % t interval (n - 1 degrees of freedom), turned back into percent. A drift that moves both runs of a block
    /// cancels in its ratio, which independent groups cannot do. <paramref name="minimumHalfWidth"/>, on the log scale,
    /// is the narrowest the interval may be (what the slots inside the blocks give: <c>SlotSpread</c>); the interval's
    /// half-width is the wider of the two.
    /// </summary>
    public static (double Change, double Low, double High, Verdict Verdict) ComparePaired(
        IReadOnlyList<(double Baseline, double Candidate)> pairs, bool higherIsBetter, double noiseFloorPercent,
        double? equivalenceMarginPercent = null, double minimumHalfWidth = 0)
    {
        if (pairs.Count < 2
            || pairs.Any(p => p.Baseline <= 0 || p.Candidate <= 0 || !double.IsFinite(p.Baseline) || !double.IsFinite(p.Candidate)))
        {
            return (double.NaN, double.NaN, double.NaN, Verdict.Inconclusive);
        }
        var ratios = pairs.Select(p => Math.Log(p.Candidate / p.Baseline)).ToList();
        var mean = ratios.Average();
        var se = Math.Sqrt(Descriptive.Variance(ratios) / ratios.Count);
        var halfWidth = Math.Max(TwoSidedT(ratios.Count - 1) * se, minimumHalfWidth);
        return Verdicted(mean, mean - halfWidth, mean + halfWidth, higherIsBetter, noiseFloorPercent, equivalenceMarginPercent);
    }

    /// <summary>
    /// The change of one summary against another in percent, with its 95 % interval approximated from the two
    /// medians' intervals by the MOVER method (Zou &amp; Donner, 2008) on the log scale: each side of the interval of
    /// ln(b/a) combines the matching half-widths of ln b and ln a in quadrature, which treats the two as independent.
    /// A summary of fewer than two runs has no interval, and so no decided verdict.
    /// </summary>
    public static (double Change, double Low, double High, Verdict Verdict) CompareEstimates(Estimate? a, Estimate? b,
        bool higherIsBetter, double noiseFloorPercent)
    {
        if (a is null || b is null || !Usable(a) || !Usable(b))
        {
            var change = a is { Median: > 0 } && b is not null && double.IsFinite(b.Median) ? (b.Median / a.Median - 1) * 100 : double.NaN;
            return (change, double.NaN, double.NaN, Verdict.Inconclusive);
        }
        var ln = Math.Log(b.Median) - Math.Log(a.Median);
        var aDown = Math.Log(a.Median) - Math.Log(a.Low);
        var aUp = Math.Log(a.High) - Math.Log(a.Median);
        var bDown = Math.Log(b.Median) - Math.Log(b.Low);
        var bUp = Math.Log(b.High) - Math.Log(b.Median);
        var low = ln - Math.Sqrt((bDown * bDown) + (aUp * aUp));
        var high = ln + Math.Sqrt((bUp * bUp) + (aDown * aDown));
        return Verdicted(ln, low, high, higherIsBetter, noiseFloorPercent);
    }

    // Logs need positive figures, and an interval needs at least two runs behind it.
    private static bool Usable(Estimate e) =>
        e.Samples >= 2 && e.Low > 0 && e.Median > 0 && e.High > 0
        && double.IsFinite(e.Low) && double.IsFinite(e.High) && e.Low <= e.Median && e.Median <= e.High;

    /// <summary>A log-scale change and its interval turned into percent, with the verdict of <see cref="Decide"/>.</summary>
    public static (double Change, double Low, double High, Verdict Verdict) Verdicted(double diff, double low, double high,
        bool higherIsBetter, double noiseFloorPercent, double? equivalenceMarginPercent = null)
    {
        var change = (Math.Exp(diff) - 1) * 100;
        var lowPercent = (Math.Exp(low) - 1) * 100;
        var highPercent = (Math.Exp(high) - 1) * 100;
        return (change, lowPercent, highPercent,
            Decide(change, lowPercent, highPercent, higherIsBetter, noiseFloorPercent, equivalenceMarginPercent));
    }

    /// <summary>
    /// The one verdict rule, with two figures for two jobs. <b>Better</b> or <b>worse</b>: the interval excludes zero and
    /// the change exceeds <paramref name="floorPercent"/> (the machine's A/A spread: what an identical pair changes here).
    /// <b>Equivalent</b>: the whole interval lies within ± <paramref name="marginPercent"/> (the margin the user states;
    /// the floor when none is given), which is the two one-sided tests (TOST) of equivalence, here at the 95 % interval,
    /// so each side at 2.5 %. <b>Inconclusive</b>: anything else, i.e. an interval wider than that, or none at all.
    /// </summary>
    public static Verdict Decide(double change, double low, double high, bool higherIsBetter, double floorPercent,
        double? marginPercent = null)
    {
        if (!double.IsFinite(low) || !double.IsFinite(high))
        {
            return Verdict.Inconclusive;
        }
        if ((low > 0 || high < 0) && Math.Abs(change) > floorPercent)
        {
            return (change > 0) == higherIsBetter ? Verdict.Better : Verdict.Worse;
        }
        var margin = marginPercent ?? floorPercent;
        return low >= -margin && high <= margin ? Verdict.Equivalent : Verdict.Inconclusive;
    }

    /// <summary>
    /// For an inconclusive verdict from <paramref name="samples"/> blocks (or runs per group, or invocations): the
    /// interval half-width that would decide it, and about how many samples in all would give it. A change beyond the
    /// floor is decided once the interval excludes zero; one inside the margin (<paramref name="equivalenceMarginPercent"/>,
    /// else the floor) once the interval fits inside ± it. A change beyond the floor is worked on the ratio's log scale,
    /// where a several-fold change's interval is symmetric (+660 % [−69.5, +18817] is 7.6 ×/÷ 24.8, which a third block
    /// may decide; in points it reads ±9443 and looked hopeless). The count follows the spread of one sample and
    /// Student's t at each count (t is 12.7 at 2 samples and 4.3 at 3), not the square root alone.
    /// Null when there is no interval, when the change sits on the margin (or between the margin and a wider floor), or
    /// when more than <see cref="MaxSamplesToDecide"/> would be needed.
    /// </summary>
    public static (double HalfWidthPercent, int Samples)? ToDecide(double change, double low, double high, int samples,
        double marginPercent, double? equivalenceMarginPercent = null)
    {
        if (!(high > low) || !double.IsFinite(high - low) || samples < 2)
        {
            return null;
        }
        var beyond = Math.Abs(change) > marginPercent;
        var logScale = beyond && low > -100 && change > -100;
        var have = logScale ? Math.Log((100 + high) / (100 + low)) / 2 : (high - low) / 2;
        // On the log scale, from the interval's own centre (a paired interval's is the change; a Welch interval of the
        // groups' means is centred apart from a change of medians), so that half-width about it leaves zero out.
        var need = !beyond ? (equivalenceMarginPercent ?? marginPercent) - Math.Abs(change)
            : logScale ? Math.Abs(Math.Log((100 + high) * (100 + low) / 1e4) / 2) : Math.Abs(change);
        return need > 0 && SamplesFor(have, samples, need, samples + 1, MaxSamplesToDecide, inclusive: false) is { } n
            ? (logScale ? (Math.Exp(need) - 1) * 100 : need, n)
            : null;
    }

    /// <summary>
    /// The fewest samples in all, from <paramref name="from"/> to <paramref name="max"/>, whose 95 % half-width would be
    /// under <paramref name="target"/> (at most, when <paramref name="inclusive"/>) if one sample's spread stays what
    /// <paramref name="halfWidth"/> over <paramref name="samples"/> gives: a half-width scales as t(n−1)/√n. Null past
    /// <paramref name="max"/>.
    /// </summary>
    public static int? SamplesFor(double halfWidth, int samples, double target, int from, int max, bool inclusive = true)
    {
        var spread = halfWidth * Math.Sqrt(samples) / TwoSidedT(samples - 1);
        for (var n = Math.Max(2, from); n <= max; n++)
        {
            var at = TwoSidedT(n - 1) * spread / Math.Sqrt(n);
            if (inclusive ? at <= target : at < target)
            {
                return n;
            }
        }
        return null;
    }

    /// <summary>More samples than anyone would run: past it, a comparison is called undecidable by adding samples.</summary>
    public const int MaxSamplesToDecide = 1000;

    /// <summary>
    /// The narrower of the points and the relative half-width of an interval of changes in percent (see
    /// <c>StoppingRule.WidestHalfWidth</c>, which explains the two readings).
    /// </summary>
    public static double HalfWidth(double lowPercent, double highPercent)
    {
        var points = (highPercent - lowPercent) / 2;
        if (!double.IsFinite(points))
        {
            return double.PositiveInfinity;
        }
        double lo = 1 + lowPercent / 100, hi = 1 + highPercent / 100;
        var relative = lo > 0 && hi > 0 ? (Math.Sqrt(hi / lo) - 1) * 100 : double.PositiveInfinity;
        return Math.Min(points, relative);
    }

    /// <summary>
    /// The jackknife covariance of an estimate from its leave-one-group-out re-estimates (one row per group left out):
    /// (g−1)/g · Σ (θ₋ᵢ − θ̄)(θ₋ᵢ − θ̄)ᵀ. The spread between groups (blocks) then sets the interval, not a model of the
    /// scatter within them; use Student's t with g − 1 degrees of freedom.
    /// </summary>
    public static double[,] JackknifeCovariance(IReadOnlyList<double[]> leaveOneOut)
    {
        var g = leaveOneOut.Count;
        var k = leaveOneOut[0].Length;
        var mean = Enumerable.Range(0, k).Select(j => leaveOneOut.Average(r => r[j])).ToArray();
        var covariance = new double[k, k];
        for (var a = 0; a < k; a++)
        {
            for (var b = 0; b < k; b++)
            {
                covariance[a, b] = (g - 1.0) / g * leaveOneOut.Sum(r => (r[a] - mean[a]) * (r[b] - mean[b]));
            }
        }
        return covariance;
    }
}
