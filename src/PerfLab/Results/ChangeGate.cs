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
    /// The metric key a <c>METRIC-change</c> names: a comparable metric's key or threshold name (rps, p99, mean,
    /// cpu-per-request, batch-mean-ms, capacity-rps), or a word of <c>decide:</c> (cost, latency).
    /// </summary>
    public static string MetricOf(string name, string text) =>
        (Metrics.Deciding(name) ?? Metrics.Comparable.FirstOrDefault(m => m.Key == name || m.ThresholdNames.Contains(name)))?.Key
            ?? throw Threshold.Invalid(text, $"'{name}' is not a metric a change can be read of; use change (the deciding "
                + $"metric), rps-change, cost-change, latency-change (p99) or one of "
                + $"{string.Join(", ", Metrics.Comparable.Select(m => m.ThresholdNames.FirstOrDefault() ?? m.Key))} with -change");

    /// <summary>
    /// The key <paramref name="threshold"/> reads on an experiment decided by <paramref name="deciding"/>. Limited to one
    /// scenario of several (<paramref name="oneOfSeveral"/>), a metric of the whole run (cost, batch time, capacity: not
    /// told apart by scenario) gives way to that scenario's RPS; the check says which it read.
    /// </summary>
    public static string MetricKey(Threshold threshold, string deciding, bool oneOfSeveral)
    {
        var key = threshold.ChangeOf ?? deciding;
        return oneOfSeveral && !Metrics.Get(key).PerScenario ? Metrics.Rps.Key : key;
    }

    /// <summary>A change in percent with better positive: as measured when higher is better, negated when lower is.</summary>
    public static double Oriented(string key, double changePercent) => Metrics.Get(key).HigherIsBetter ? changePercent : -changePercent;

    /// <summary>One change checked, the figure named with its metric: "RPS -8 %", "CPU per request +6 %, read as -6 % ...".</summary>
    public static ThresholdCheck Check(Threshold threshold, string scope, string key, double changePercent) =>
        new(threshold.Text, scope, Describe(key, changePercent), threshold.Holds(Oriented(key, changePercent)));

    /// <summary>No comparison of the metric the threshold reads: a failed check that names the metric.</summary>
    public static ThresholdCheck Missing(Threshold threshold, string scope, string key) =>
        new(threshold.Text, scope, $"no {Metrics.Get(key).Name} comparison against the baseline", Passed: false);

    public static string Describe(string key, double changePercent)
    {
        var metric = Metrics.Get(key);
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
