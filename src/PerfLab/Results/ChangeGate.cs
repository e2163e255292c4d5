using System.Globalization;

namespace PerfLab.Results;

/// <summary>
/// The <c>change</c> gate: which comparison it reads, and how. <c>change&gt;-5%</c> reads each experiment's deciding
/// metric (its <c>decide:</c>, as <see cref="Deciding"/> resolves it), so a gate follows the same figure as the verdict;
/// <c>rps-change&gt;-5%</c>, <c>cost-change&gt;-3%</c> or <c>p99-change&gt;-10%</c> name the metric. Every change is
/// read with better positive, so one threshold means the same for every metric: a cost or latency drop of 4 % is +4 %.
/// </summary>
public static class ChangeGate
{
    /// <summary>
    /// The metric a <c>METRIC-change</c> names: a comparable metric's key or threshold name (rps, p99, mean,
    /// cpu-per-request, batch-mean-ms, capacity-rps), or a word of <c>decide:</c> (cost, latency).
    /// </summary>
    public static Metric MetricOf(string name, string text) =>
        Metrics.Deciding(name) ?? Metrics.Comparable.FirstOrDefault(m => m.Key == name || m.ThresholdNames.Contains(name))
            ?? throw Threshold.Invalid(text, $"'{name}' is not a metric a change can be read of; use change (the deciding "
                + $"metric), rps-change, cost-change, latency-change (p99) or one of "
                + $"{string.Join(", ", Metrics.Comparable.Select(m => m.ThresholdNames.FirstOrDefault() ?? m.Key))} with -change");

    /// <summary>
    /// The metric <paramref name="threshold"/> reads on an experiment decided by <paramref name="deciding"/>. Limited to one
    /// scenario of several (<paramref name="oneOfSeveral"/>), a metric of the whole run (cost, batch time, capacity: not
    /// told apart by scenario) gives way to that scenario's RPS; the check says which it read.
    /// </summary>
    public static Metric MetricKey(Threshold threshold, Metric deciding, bool oneOfSeveral)
    {
        var metric = threshold.ChangeOf ?? deciding;
        return oneOfSeveral && !metric.PerScenario ? Metrics.Rps : metric;
    }

    /// <summary>
    /// One change checked on its 95 % interval, better positive: <c>change&gt;-5%</c> on the worse end (the end least
    /// favourable to the gate; <c>change&lt;10%</c> the better one), <c>no-worse</c> on the worse end against minus the
    /// margin (non-inferiority). Without an interval the gate cannot hold; a gate the interval's width alone fails says
    /// what would decide it.
    /// </summary>
    public static ThresholdCheck Check(Threshold threshold, string scope, GatedChange change)
    {
        var (estimate, worse, better) = change.Oriented();
        var nonInferiority = threshold.Metric == Threshold.NoWorse;
        var margin = threshold.Margin ?? change.NoiseFloorPercent ?? GatedChange.DefaultMarginPercent;
        var lower = nonInferiority || threshold.Operator is ">" or ">=";
        var end = lower ? worse : better;
        var holds = nonInferiority ? end >= -margin : threshold.Holds(end);
        var described = Describe(change.Metric, change.ChangePercent);
        string observed;
        if (!double.IsFinite(end))
        {
            observed = $"{described}; no 95 % interval (one repetition): {NoInterval}";
            holds = false;
        }
        else
        {
            var bound = nonInferiority ? -margin : threshold.Value;
            var within = nonInferiority
                ? string.Create(CultureInfo.InvariantCulture, $"{(holds ? "within" : "beyond")} the margin {bound:0.##} % "
                    + $"({(threshold.Margin is null ? change.NoiseFloorPercent is null ? "default" : "noise floor" : "stated")})")
                : holds ? "holds" : "does not hold";
            observed = string.Create(CultureInfo.InvariantCulture,
                $"{described}; {(lower ? "worse" : "better")} end {end:+0.##;-0.##;0} % {within}");
            if (!holds)
            {
                observed += "; " + ToDecide(change, lower ? estimate - bound : bound - estimate,
                    lower ? change.WorseMeasured : change.BetterMeasured, change.Measured(bound));
            }
        }
        return new ThresholdCheck(threshold.Text, scope, observed, holds) { Reads = [change.Reads] };
    }

    /// <summary>What a gate needs that one repetition cannot give, said where it fails.</summary>
    public const string NoInterval = "run at least 2 blocks (--profile quick, or --repeat 3)";

    /// <summary>
    /// Why a gate failed on its interval's end, and what would decide it: the estimate itself past the bound (more blocks
    /// will not help), or a narrower interval: on the log scale the interval was taken on, the distance from the estimate
    /// to the bound over the distance to the end read, squared, times the blocks (a half-width shrinks with the square
    /// root of the blocks); the relative half-width that gives it is what --precision asks.
    /// </summary>
    /// <param name="room">How far the estimate lies on the passing side of the bound, better positive (&lt;= 0: past it).</param>
    /// <param name="end">The interval's end the gate read, and <paramref name="bound"/> the bound, both as measured.</param>
    private static string ToDecide(GatedChange change, double room, double end, double bound)
    {
        var estimate = Math.Log(1 + change.ChangePercent / 100);
        var needed = Math.Abs(estimate - Math.Log(1 + bound / 100));
        var halfWidth = Math.Abs(estimate - Math.Log(1 + end / 100));
        if (room <= 0 || !double.IsFinite(needed) || needed <= 0)
        {
            return "the change itself is past it: more blocks will not pass it";
        }
        var blocks = change.Samples >= 2 && double.IsFinite(halfWidth)
            ? (int)Math.Ceiling(change.Samples * Math.Pow(halfWidth / needed, 2))
            : 0;
        var precision = Math.Floor((Math.Exp(needed) - 1) * 1000) / 10;
        return string.Create(CultureInfo.InvariantCulture,
                $"undecided: a 95 % half-width under {precision:0.#} % would decide it (--precision {precision:0.#}%")
            + (blocks > change.Samples
                ? string.Create(CultureInfo.InvariantCulture, $", about {blocks} blocks, e.g. --repeat {blocks})")
                : ")");
    }

    /// <summary>No comparison of the metric the threshold reads: a failed check that names the metric.</summary>
    public static ThresholdCheck Missing(Threshold threshold, string scope, Metric metric) =>
        new(threshold.Text, scope, $"no {metric.Name} comparison against the baseline", Passed: false);

    public static string Describe(Metric metric, double changePercent)
    {
        if (!double.IsFinite(changePercent))
        {
            return $"{metric.Name}: no figure";
        }
        var measured = string.Create(CultureInfo.InvariantCulture, $"{metric.Name} {changePercent:+0.##;-0.##;0} %");
        return metric.HigherIsBetter
            ? measured
            : string.Create(CultureInfo.InvariantCulture, $"{measured}, read as {-changePercent:+0.##;-0.##;0} % (lower is better)");
    }
}

/// <summary>
/// One change as a gate reads it: the figure (<see cref="Metric"/>), its 95 % interval in percent as measured, the noise floor it
/// had to clear, the blocks (or runs) behind it, and which comparison it is (<see cref="Reads"/>, as JUnit names verdicts).
/// </summary>
public sealed record GatedChange(Metric Metric, double ChangePercent, double LowPercent, double HighPercent, double? NoiseFloorPercent,
    int Samples, string Reads)
{
    /// <summary>No-worse's margin where neither a stated margin nor a noise floor is known: the verdicts' default floor.</summary>
    public const double DefaultMarginPercent = 5;

    /// <summary>A run's comparison of <paramref name="experiment"/> (its <paramref name="blocks"/> when not paired).</summary>
    public static GatedChange Of(Comparison c, string experiment, int blocks) =>
        new(c.Metric, c.ChangePercent, c.LowPercent, c.HighPercent, double.IsFinite(c.NoiseFloorPercent) ? c.NoiseFloorPercent : null,
            c.Pairs > 0 ? c.Pairs : blocks, ReadsOf(experiment, c.Variant, c.Scenario, c.Metric));

    /// <summary>"serializer / newtonsoft / all / rps": one comparison, the same for a gate and a verdict.</summary>
    public static string ReadsOf(string experiment, string variant, string scenario, Metric metric) =>
        $"{experiment} / {variant} / {scenario} / {metric.Key}";

    /// <summary>The interval's worse end as measured: the low end when higher is better, else the high one.</summary>
    public double WorseMeasured => Metric.HigherIsBetter ? LowPercent : HighPercent;

    /// <summary>The interval's better end as measured.</summary>
    public double BetterMeasured => Metric.HigherIsBetter ? HighPercent : LowPercent;

    /// <summary>A change read better positive (<paramref name="oriented"/>) as measured: negated when lower is better.</summary>
    public double Measured(double oriented) => Metric.HigherIsBetter ? oriented : -oriented;

    /// <summary>The change and its interval's worse and better ends, better positive (a cost rise of 6 % is -6 %).</summary>
    public (double Change, double Worse, double Better) Oriented() => Metric.HigherIsBetter
        ? (ChangePercent, LowPercent, HighPercent)
        : (-ChangePercent, -HighPercent, -LowPercent);
}
