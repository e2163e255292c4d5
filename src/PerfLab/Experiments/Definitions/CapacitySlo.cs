using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// A service-level objective a capacity step must meet: a latency bound written as a threshold is ("p99&lt;100ms",
/// "p95&lt;=250ms", "mean&lt;20ms") and an error-rate bound ("&lt;1%", or "errors&lt;1%").
/// </summary>
public sealed record CapacitySlo(Threshold Latency, Threshold Errors)
{
    public const string DefaultErrors = "<1%";

    /// <summary>
    /// Throws a usage error naming what is wrong and how to write it; <paramref name="sloName"/> and
    /// <paramref name="errorsName"/> are what the user wrote them as (the verb's options, or an experiment file's keys).
    /// </summary>
    public static CapacitySlo Parse(string? latency, string? errors, string sloName = "--slo", string errorsName = "--errors")
    {
        if (string.IsNullOrWhiteSpace(latency))
        {
            throw new PerfLabException($"{sloName} is required: a latency bound such as \"p99<100ms\".", ExitCode.Usage);
        }
        var slo = ParseAs(sloName, latency);
        if (slo.Measured is not { Unit: "ms" } || slo.Operator is not ("<" or "<="))
        {
            throw new PerfLabException(
                $"{sloName} '{latency}': the SLO is an upper bound on a latency, e.g. p99<100ms, p95<=250ms or mean<20ms.", ExitCode.Usage);
        }
        if (slo.Value <= 0)
        {
            throw new PerfLabException($"{sloName} '{latency}': the latency bound must be positive.", ExitCode.Usage);
        }
        var text = string.IsNullOrWhiteSpace(errors) ? DefaultErrors : errors.Trim();
        var limit = ParseAs(errorsName, text.StartsWith('<') ? Threshold.Errors + text : text);
        if (limit.Metric != Threshold.Errors || !limit.Percent || limit.Operator is not ("<" or "<=") || limit.Value is < 0 or > 100)
        {
            throw new PerfLabException(
                $"{errorsName} '{errors}': an upper bound on the error rate in percent, e.g. \"<1%\" or \"<=0%\".", ExitCode.Usage);
        }
        return new CapacitySlo(slo, limit);
    }

    private static Threshold ParseAs(string option, string text)
    {
        try
        {
            return Threshold.Parse(text);
        }
        catch (PerfLabException ex)
        {
            throw new PerfLabException($"{option} {ex.Message}", ExitCode.Usage);
        }
    }

    /// <summary>The bound in ms.</summary>
    public double LimitMs => Latency.Value;

    public string Describe() => $"{Latency.Text}, {Errors.Text}";

    /// <summary>The SLO's latency figure in a step's latency statistics.</summary>
    public double LatencyOf(ScenarioStats stats) => Latency.Measured!.Combine([stats]);
}
