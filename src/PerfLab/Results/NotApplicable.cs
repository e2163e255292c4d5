using System.Globalization;

namespace PerfLab.Results;

/// <summary>
/// Runs that could not run by design rather than by a fault: the runtime itself refuses what the variant asks under
/// the point's conditions. Server GC on one CPU is the case: the runtime creates the server heap only when the process
/// may use more than one CPU, so at a one-core point the server variant runs workstation GC whatever it sets, its /info
/// contradicts it and the run stops as "did not take effect". That is the finding at that point, not a failed run: it
/// is reported as not applicable and does not turn the exit code into a failure.
/// </summary>
public static class NotApplicable
{
    /// <summary>
    /// Why <paramref name="run"/> of <paramref name="experiment"/> could
    /// not run by design; null for a run that ran or really failed.
    /// </summary>
    public static string? Reason(ExperimentResult experiment, RunRecord run)
    {
        if (run.Status == RunStatus.Ok || run.FailureKind != Results.FailureKind.VariantNotInEffect || CoresOf(experiment, run) != 1)
        {
            return null;
        }
        // Only the GC mode may be what did not take effect: a variant that also missed anything else really failed.
        var reason = run.FailureReason ?? "";
        // Worded by the built-in SUT's /info check (VariantCheck) or by an app's process check (EffectCheck).
        var gcOnly = (reason.Contains("asked server, observed workstation", StringComparison.Ordinal)
                || reason.Contains("asked for server, /info reports workstation", StringComparison.Ordinal))
            && reason.Split(';').All(part => part.Contains("GC mode", StringComparison.Ordinal));
        return gcOnly ? "server GC needs more than one CPU: on one core the runtime runs workstation GC whatever the variant sets" : null;
    }

    /// <summary>Failed runs that were not "not applicable": the ones that make a run exit as failed.</summary>
    public static IEnumerable<(ExperimentResult Experiment, RunRecord Run)> RealFailures(RunResults results) =>
        results.Experiments.SelectMany(e => e.Runs.Where(r => r.Status != RunStatus.Ok && Reason(e, r) is null).Select(r => (e, r)));

    private static int? CoresOf(ExperimentResult experiment, RunRecord run)
    {
        if (run.SutInfo.TryGetValue("processorCount", out var text)
            && int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var count))
        {
            return count;
        }
        if (experiment.SweepPoint is { Condition: ConditionKind.Cores } point)
        {
            return (int)point.Value;
        }
        return experiment.Conditions?.Cores;
    }
}
