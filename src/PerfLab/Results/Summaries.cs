namespace PerfLab.Results;

/// <summary>A variant's summary of an experiment and its estimates, as the analysis wrote them, looked up by metric.</summary>
public static class Summaries
{
    /// <summary>The summary of <paramref name="variant"/>'s runs; null when the experiment has none.</summary>
    public static VariantSummary? Of(ExperimentResult experiment, string variant) =>
        experiment.Summaries.FirstOrDefault(s => s.Variant == variant);

    /// <summary>A scenario's estimate of a compared metric (<see cref="VariantSummary.Scenarios"/>); null when it has none.</summary>
    public static Estimate? Estimate(VariantSummary? summary, string scenario, Metric metric) =>
        summary is not null && summary.Scenarios.TryGetValue(scenario, out var metrics) ? metrics.GetValueOrDefault(metric.Key) : null;
}
