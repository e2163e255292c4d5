using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// The noise line once blocks were measured, for a whole run or one experiment: how much the slots varied (the median
/// of the experiments' slot-to-slot spreads) and what the blocks could decide (the median 95 % half-width of their
/// paired comparisons of all scenarios, or of invocations pooled, on throughput and on cost). A fresh process's own
/// cost and every other part of the blocks' spread are in those figures; the slot formula
/// (<see cref="NoiseEstimate.HalfWidth"/>) and a few seconds of calibration see none of it, and on a 2-core machine
/// once read "cost changes of 1.7 % or more can" beside A/A intervals of ±5-12 %.
/// </summary>
public static class DecidableNoise
{
    /// <param name="fallback">The line without paired comparisons: the calibration's for a run, the slots' for an experiment.</param>
    public static MachineNoise? Of(MachineNoise? fallback, IReadOnlyList<ExperimentResult> experiments)
    {
        var slotted = experiments.Where(e => e.MachineNoise is not null).ToList();
        var rps = HalfWidths(slotted, _ => Metrics.Rps);
        if (rps.Count == 0)
        {
            return fallback;
        }
        // Cost as it decides (at the cores' full speed when compared); an experiment without cost has none to give.
        var cost = HalfWidths(slotted, e => Deciding.Key(e.Comparisons, Metrics.CpuPerRequest) is var m
            && (m == Metrics.CpuPerRequest || m == Metrics.CpuPerRequestAtFullSpeed) ? m : null);
        var rpsCvs = slotted.Select(e => e.MachineNoise!.RpsCvPercent).Where(double.IsFinite).ToList();
        var costCvs = slotted.Select(e => e.MachineNoise!.CostCvPercent).OfType<double>().Where(double.IsFinite).ToList();
        return new MachineNoise("measured", Descriptive.Median(rpsCvs), // NaN when none is finite
            costCvs.Count > 0 ? Descriptive.Median(costCvs) : null, Descriptive.Median(rps),
            cost.Count > 0 ? Descriptive.Median(cost) : null,
            fallback?.CoreSpeedCvPercent, fallback?.CoreSharePercent)
        {
            Comparisons = rps.Count,
        };
    }

    /// <summary>
    /// The finite half-widths of the experiments' paired (or pooled) all-scenario comparisons on the metric each one's
    /// metric names.
    /// </summary>
    private static List<double> HalfWidths(IEnumerable<ExperimentResult> experiments, Func<ExperimentResult, Metric?> key) =>
        [.. experiments.SelectMany(e => e.Comparisons.Where(c => c.Scenario == Metric.AllScenarios
            && c.Method is "paired" or InvocationPooling.Method && c.Metric == key(e)))
            .Select(c => Statistics.HalfWidth(c.LowPercent, c.HighPercent))
            .Where(double.IsFinite)];
}
