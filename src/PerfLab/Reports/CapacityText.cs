using System.Globalization;
using System.Text.Json;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>`perflab capacity`'s output: one line per step as it runs, the answer with its bracket, or the result as JSON.</summary>
public static class CapacityText
{
    public static string Header(string url, string slo, double stepSeconds, double warmupSeconds) =>
        Invariant($"capacity of {url} within {slo}: open-model steps of {stepSeconds:0.##} s ")
        + Invariant($"(after {warmupSeconds:0.##} s of warm-up each), latency from the intended send time");

    /// <summary>"step  2  target 400 RPS  sent 399.8  done 399.5  p99 23.1 ms  errors 0 %  trend +1 ms  holds".</summary>
    public static string Step(CapacityStep step, string latencyMetric) =>
        Invariant($"{step.Phase,-6} {step.Index,2}  target {step.TargetRps,8:N1} RPS  sent {step.SentRps,8:N1}  ") +
        Invariant($"done {step.CompletedRps,8:N1}  ") +
        Invariant($"{latencyMetric} {step.LatencyMs,8:0.0} ms  errors {step.ErrorPercent,5:0.##} %  trend {step.TrendMs,5:+0;-0;0} ms  ") +
        (step.Holds ? "holds" : "BREAKS: " + step.Reason);

    public static string Answer(CapacityResult result) =>
        "capacity: " + result.Summary
            + (result.BracketPercent is { } b ? Invariant($" (bracket {b:0.#} %, {result.Steps.Count} steps)") : "")
            + (result.CapacityLowRps is { } low
                ? Environment.NewLine + Invariant($"capacity {result.CapacityRps ?? low:0.#} RPS, interval ")
                    + CapacityResult.IntervalText(low, result.CapacityHighRps)
                : "");

    public static string ToJson(CapacityResult result) => JsonSerializer.Serialize(result, ResultsJson.Options);

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
