namespace PerfLab.Results;

/// <summary>
/// Which all-scenario comparisons decide an experiment's verdicts (its <c>decide:</c>), and which headline figures a
/// report shows beside them, so that the stopping rule, the summary, the charts and CI read the same comparison.
/// </summary>
public static class Deciding
{
    /// <summary>
    /// The metric key whose all-scenario comparisons decide: the one asked for when it was compared, else the batch
    /// time of a burst or upload experiment, else RPS (cost needs the app's CPU, which only the app's machine reads).
    /// </summary>
    public static string Key(IEnumerable<Comparison> comparisons, string asked) =>
        Key(comparisons.Where(c => c.Scenario == Metric.AllScenarios).Select(c => c.Metric).ToHashSet(), asked);

    /// <summary>
    /// The deciding key among the metric keys <paramref name="compared"/> (any scenario's, as compare-results has them).
    /// Cost asked is decided at the cores' full speed when that was compared (every run sampled their speed).
    /// </summary>
    public static string Key(IReadOnlySet<string> compared, string asked) =>
        asked == Metrics.CpuPerRequest.Key && compared.Contains(Metrics.CpuPerRequestAtFullSpeed.Key) ? Metrics.CpuPerRequestAtFullSpeed.Key
        : compared.Contains(asked) ? asked
        : compared.Contains(Metrics.BatchMeanMs.Key) ? Metrics.BatchMeanMs.Key
        : Metrics.Rps.Key;

    /// <summary>The key that decides an experiment's verdicts (see <see cref="Key(IEnumerable{Comparison}, string)"/>).</summary>
    public static string Key(ExperimentResult experiment) => Key(experiment.Comparisons, experiment.DecidedBy);

    /// <summary>
    /// The headline figures shown beside the deciding one, in this order: throughput (or batch time) and cost per
    /// request, whichever do not decide. A report shows both, whichever decides.
    /// </summary>
    public static IReadOnlyList<string> Beside(string deciding) =>
        [.. new[] { Metrics.Rps.Key, Metrics.BatchMeanMs.Key, Metrics.CpuPerRequest.Key }.Where(k => k != deciding)];

    /// <summary>
    /// Why the deciding figure is not the one the experiment file asked for (cost or latency that was not compared), or
    /// null when it is. RPS asked of a burst experiment is its batch time, which says so already.
    /// </summary>
    public static string? Fallback(ExperimentResult experiment, string deciding) =>
        experiment.DecidedBy == Metrics.Rps.Key || experiment.DecidedBy == deciding || deciding == Metrics.CpuPerRequestAtFullSpeed.Key
            ? null
            : $"decide: asked for {Metrics.Find(experiment.DecidedBy)?.Name ?? experiment.DecidedBy}, which was not measured; " +
              $"decided on {Metrics.Get(deciding).Name}";
}
