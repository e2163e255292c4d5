using System.Globalization;
using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// The answer of a capacity search: the highest arrival rate (open model) at which the target held its SLO, the
/// lowest at which it broke, and every step measured on the way. <see cref="CapacityRps"/> is always a rate the
/// generator actually sent and the target actually completed, never a rate only asked for.
/// </summary>
public sealed record CapacityResult
{
    public required string Url { get; init; }
    /// <summary>The SLO as given, normalised: "p99&lt;100ms, errors&lt;1%".</summary>
    public required string Slo { get; init; }
    /// <summary>The SLO's latency figure ("p99") and its bound in ms.</summary>
    public required string LatencyMetric { get; init; }
    public required double LatencyLimitMs { get; init; }
    /// <summary>How the search ended (see <see cref="CapacityOutcome"/>).</summary>
    public required CapacityOutcome Outcome { get; init; }
    /// <summary>The highest rate that held (sent and completed per second); null when none did.</summary>
    public double? CapacityRps { get; init; }
    /// <summary>
    /// The lowest rate tried above <see cref="CapacityRps"/> that
    /// broke the SLO (the rate asked for); null when none did.
    /// </summary>
    public double? BreaksAtRps { get; init; }
    /// <summary>The bracket's width relative to <see cref="CapacityRps"/>, in percent; null without both ends.</summary>
    public double? BracketPercent { get; init; }
    /// <summary>
    /// The capacity's interval, its worse end: the lowest rate credited to a try of the highest rate that held every time
    /// it was tried (the boundary is tried again, see CapacitySearch), 0 when every rate broke at least once. A
    /// <c>capacity&gt;=N</c> gate reads this end. Null when no rate held at all.
    /// </summary>
    public double? CapacityLowRps { get; init; }
    /// <summary>
    /// The interval's upper end: the lowest rate above that broke every time it was tried, right after the rate below
    /// held, on a machine that was not busy. Null: open above (a busy machine, tries that disagreed, or nothing broke).
    /// </summary>
    public double? CapacityHighRps { get; init; }
    /// <summary>The answer in one sentence, as printed.</summary>
    public required string Summary { get; init; }
    public required double StepSeconds { get; init; }
    public required double WarmupSeconds { get; init; }
    public required IReadOnlyList<CapacityStep> Steps { get; init; }

    /// <summary>"[190.2, 200] RPS", or "[190.2 RPS, open above)" without an upper end.</summary>
    public static string IntervalText(double low, double? high) => high is { } h
        ? string.Create(CultureInfo.InvariantCulture, $"[{low:0.#}, {h:0.#}] RPS")
        : string.Create(CultureInfo.InvariantCulture, $"[{low:0.#} RPS, open above)");

    /// <summary>The step whose rate is the capacity found (the highest that held), or null when none held.</summary>
    public CapacityStep? StepAtCapacity() =>
        CapacityRps is { } capacity ? Steps.FirstOrDefault(s => s.Holds && s.AchievedRps == capacity) : null;
}

[JsonConverter(typeof(JsonStringEnumConverter<CapacityOutcome>))]
public enum CapacityOutcome
{
    /// <summary>Bracketed: a rate that held and one that broke, within the precision asked for.</summary>
    Found,
    /// <summary>Every rate up to --max held: the capacity is at least the last one.</summary>
    AboveMax,
    /// <summary>The lowest rate tried already broke the SLO (or the target answered errors at every rate).</summary>
    BelowFrom,
    /// <summary>
    /// The generator could not send the rate asked for (or its CPU was
    /// saturated): the capacity is at least the last rate that held.
    /// </summary>
    GeneratorLimit,
    /// <summary>A step ended early (the target stopped answering, or the search was interrupted).</summary>
    Incomplete,
}

/// <summary>One constant-rate step of a capacity search.</summary>
/// <param name="Phase">"step" (rising rates), "repeat" (a first step that broke, run once more in case
/// the target was cold), "bisect" (between the last rate that held and the first that broke) or "confirm" (the
/// boundary's two rates tried again, back to back).</param>
/// <param name="TargetRps">The arrival rate asked of the generator.</param>
/// <param name="SentRps">Requests the generator actually sent per second of the measured window.</param>
/// <param name="CompletedRps">Requests that completed per second of the measured window.</param>
/// <param name="LatencyMs">The SLO's latency figure (e.g. p99), from the intended send time.</param>
/// <param name="ErrorPercent">Errors (HTTP status ≥ 400, timeouts, connection errors) in percent of completed requests.</param>
/// <param name="TrendMs">How much the per-second median latency rose across the window (least-squares fit), in ms.</param>
/// <param name="Trending">True when <see cref="TrendMs"/> says the queue grew within the step.</param>
/// <param name="GeneratorLimited">True when the generator, not the target, set
/// the pace (its CPU, or sends behind schedule while the target kept up).</param>
/// <param name="Incomplete">True when the step ended early (the target stopped answering, or the search was interrupted).</param>
/// <param name="Holds">Whether the step held: SLO latency and errors within
/// their limits, no upward trend, not generator-limited, complete.</param>
/// <param name="Reason">Why it broke ("p99 312 ms ≥ 100 ms"), or "holds".</param>
public sealed record CapacityStep(
    int Index,
    string Phase,
    double TargetRps,
    double SentRps,
    double CompletedRps,
    long Requests,
    double LatencyMs,
    double P50Ms,
    double P99Ms,
    double ErrorPercent,
    double TrendMs,
    bool Trending,
    bool GeneratorLimited,
    bool Incomplete,
    bool Holds,
    string Reason)
{
    /// <summary>The machine's one-minute load average at the end of the step (null where unknown).</summary>
    public double? MachineLoad { get; init; }

    /// <summary>The rate this step may be credited with: what was both sent and completed.</summary>
    [JsonIgnore]
    public double AchievedRps => Math.Min(SentRps, CompletedRps);
}

/// <summary>A variant's capacity searches over its runs, and what the reports show of them: computed here, rendered there.</summary>
public static class CapacitySearches
{
    /// <summary>The searches of <paramref name="variant"/>'s runs, in the order they ran.</summary>
    public static IReadOnlyList<CapacityResult> Of(ExperimentResult experiment, string variant) =>
        [.. experiment.Runs.Where(r => r.Variant == variant && r.Capacity is not null).OrderBy(r => r.Order).Select(r => r.Capacity!)];

    /// <summary>The capacity's median and 95 % interval over the searches that found one.</summary>
    public static Estimate Estimate(IReadOnlyList<CapacityResult> searches) =>
        Statistics.Estimate([.. searches.Select(c => c.CapacityRps ?? double.NaN).Where(double.IsFinite)]);

    /// <summary>The search whose capacity is the median (the lower middle one of an even count): the curve a chart draws.</summary>
    public static CapacityResult Median(IReadOnlyList<CapacityResult> searches) =>
        Statistics.MedianOf(searches, c => c.CapacityRps ?? double.NegativeInfinity);
}
