using System.Globalization;
using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// The machine's noise as a run found it, and what it leaves decidable: the first thing a report and the console say.
/// </summary>
/// <param name="Source">Where the figures come from: "calibration" (the run's first seconds) or "measured" (its own slots).</param>
/// <param name="RpsCvPercent">How much throughput varies second to second
/// (calibration) or slot pair to slot pair (measured), in percent.</param>
/// <param name="CostCvPercent">The same for CPU per request; null when not measured.</param>
/// <param name="RpsDecidablePercent">With this budget's blocks, RPS changes smaller
/// than this cannot be told from noise (a 95 % interval's half-width).</param>
/// <param name="CostDecidablePercent">The same for cost per request; null when not measured.</param>
/// <param name="CoreSpeedCvPercent">A fixed single-thread task's CPU time, repetition
/// to repetition: the core's own speed changing (null when not calibrated).</param>
/// <param name="CoreSharePercent">That task's CPU time against its wall time: how
/// much of the time a busy thread had a core (null when not calibrated).</param>
public sealed record MachineNoise(string Source, double RpsCvPercent, double? CostCvPercent, double RpsDecidablePercent,
    double? CostDecidablePercent, double? CoreSpeedCvPercent = null, double? CoreSharePercent = null)
{
    /// <summary>
    /// How many comparisons the decidable figures are the median half-width of, a whole run's or one experiment's
    /// (null: the calibration's or the slots' line, computed from the spread and the blocks' shape).
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public int? Comparisons { get; init; }

    /// <summary>The sentence that opens a report and the console: how noisy, and what that leaves decidable.</summary>
    /// <param name="blocks">Whose blocks the comparisons are: the run's, or one experiment's in its own section.</param>
    public string Describe(string blocks = "this run's blocks")
    {
        var what = Source == "measured" ? "slot to slot" : "second to second";
        var budget = Comparisons switch
        {
            1 => $"in {blocks} (the 95 % half-width of its one comparison)",
            { } n => $"in {blocks} (the median 95 % half-width of its {n} comparisons)",
            null => "with this budget",
        };
        var line = double.IsFinite(RpsCvPercent)
            ? string.Create(CultureInfo.InvariantCulture,
                $"this machine today: RPS varies {RpsCvPercent:0.#} % {what}; {budget} RPS changes "
                    + $"under {RpsDecidablePercent:0.#} % cannot be decided")
            : "this machine today: RPS noise not known (no run had three seconds of steady throughput)";
        line += CostDecidablePercent is { } cost
            ? string.Create(CultureInfo.InvariantCulture,
                $"; cost changes of {cost:0.#} % or more can (CPU per request varies {CostCvPercent:0.#} %)")
            : "; cost per request not measured";
        if (CoreSharePercent is { } share)
        {
            line += string.Create(CultureInfo.InvariantCulture,
                $". A busy thread had a core {share:0} % of the time; the core's speed varied {CoreSpeedCvPercent:0.#} %");
        }
        return line;
    }
}
