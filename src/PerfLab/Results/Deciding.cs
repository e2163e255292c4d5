namespace PerfLab.Results;

/// <summary>
/// Which all-scenario comparisons decide an experiment's verdicts (its <c>decide:</c>), and which headline figures a
/// report shows beside them, so that the stopping rule, the summary, the charts and CI read the same comparison.
/// </summary>
public static class Deciding
{
    /// <summary>
    /// The metric whose all-scenario comparisons decide: the one asked for when it was compared, else the batch time of
    /// a burst or upload experiment, else RPS (cost needs the app's CPU, which only the app's machine reads).
    /// </summary>
    public static Metric Key(IEnumerable<Comparison> comparisons, Metric asked) =>
        Key(comparisons.Where(c => c.Scenario == Metric.AllScenarios).Select(c => c.Metric).ToHashSet(), asked);

    /// <summary>
    /// The deciding metric among the metrics <paramref name="compared"/> (any scenario's, as compare-results has them).
    /// Cost asked is decided at the cores' full speed when that was compared (every run sampled their speed).
    /// </summary>
    public static Metric Key(IReadOnlySet<Metric> compared, Metric asked) =>
        asked == Metrics.CpuPerRequest && compared.Contains(Metrics.CpuPerRequestAtFullSpeed) ? Metrics.CpuPerRequestAtFullSpeed
        : compared.Contains(asked) ? asked
        : compared.Contains(Metrics.BatchMeanMs) ? Metrics.BatchMeanMs
        : Metrics.Rps;

    /// <summary>The metric that decides an experiment's verdicts (see <see cref="Key(IEnumerable{Comparison}, Metric)"/>).</summary>
    public static Metric Key(ExperimentResult experiment) => Key(experiment.Comparisons, experiment.DecidedBy);

    /// <summary>
    /// The headline figures shown beside the deciding one, in this order: throughput (or batch time) and cost per
    /// request, whichever do not decide. A report shows both, whichever decides.
    /// </summary>
    public static IReadOnlyList<Metric> Beside(Metric deciding) =>
        [.. new[] { Metrics.Rps, Metrics.BatchMeanMs, Metrics.CpuPerRequest }.Where(m => m != deciding)];

    /// <summary>
    /// Why the deciding figure is not the one the experiment file asked for (cost or latency that was not compared), or
    /// null when it is. RPS asked of a burst experiment is its batch time, which says so already.
    /// </summary>
    public static string? Fallback(ExperimentResult experiment, Metric deciding) =>
        experiment.DecidedBy == Metrics.Rps || experiment.DecidedBy == deciding || deciding == Metrics.CpuPerRequestAtFullSpeed
            ? null
            : $"decide: asked for {experiment.DecidedBy.Name}, which was not measured; decided on {deciding.Name}";
}
