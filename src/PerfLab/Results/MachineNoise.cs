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

    /// <summary>
    /// The blocks the figures assume (the run's or the experiment's); 1 means one repetition, which gives no interval at
    /// all. Null when not known (results.json files written before it was kept).
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public int? Blocks { get; init; }

    /// <summary>
    /// The sentence that opens a report and the console, in plain words: "this run can tell CPU-per-request changes of
    /// 15 % or more apart; RPS changes of 19.4 %", then how much each figure varied. A figure that could not be measured
    /// is said so, with why, never printed as 0 % or NaN.
    /// </summary>
    /// <param name="who">Whose blocks: "this run", or "this experiment" in its own section.</param>
    public string Describe(string who = "this run")
    {
        var what = Source == "measured" ? "slot to slot" : "second to second";
        var (tell, unknown) = Blocks == 1
            ? ([], [$"one repetition gives no 95 % interval, so {who} can tell no change apart from noise (two or more can)"])
            : Decidable(what);
        var basis = Comparisons switch
        {
            1 => " (the 95 % half-width of its one comparison)",
            { } n => $" (the median 95 % half-width of its {n} comparisons)",
            null when Source == "measured" => " (from its slots' spread)",
            null => " (estimated for this budget from its first seconds)",
        };
        var line = tell.Count > 0
            ? $"{who} can tell {tell[0]} or more apart" + string.Concat(tell.Skip(1).Select(t => $"; {t}")) + basis
                + string.Concat(unknown.Select(u => $"; {u}"))
            : Blocks == 1 ? unknown[0] : $"{who} cannot say which changes it can tell apart: " + string.Join("; ", unknown);
        List<string> varies = [];
        if (Usable(RpsCvPercent))
        {
            varies.Add(Invariant($"RPS varies {RpsCvPercent:0.#} % {what}"));
        }
        if (CostCvPercent is { } costCv && Usable(costCv))
        {
            // Alone it says what varied and how ("CPU per request 1.6 %" read as a cost, not a spread).
            varies.Add(varies.Count == 0
                ? Invariant($"CPU per request varies {costCv:0.#} % {what}")
                : Invariant($"CPU per request {costCv:0.#} %"));
        }
        line += varies.Count > 0 ? ". " + string.Join(", ", varies) : "";
        if (CoreSharePercent is { } share && Usable(share))
        {
            line += Invariant($". A busy thread had a core {share:0} % of the time")
                + (CoreSpeedCvPercent is { } speed && double.IsFinite(speed) ? "; " + CoreSpeed(speed) : "");
        }
        return line;
    }

    /// <summary>
    /// The changes the blocks can tell apart, cost first (it moves less than throughput), and what they cannot size, in words.
    /// </summary>
    private (List<string> Tell, List<string> Unknown) Decidable(string what)
    {
        List<string> tell = [];
        List<string> unknown = [];
        if (CostDecidablePercent is { } cost && Usable(cost))
        {
            tell.Add(Invariant($"CPU-per-request changes of {cost:0.#} %"));
        }
        else
        {
            unknown.Add(CostDecidablePercent is null ? "CPU per request not measured" : "CPU-per-request noise could not be measured");
        }
        if (Usable(RpsCvPercent) && Usable(RpsDecidablePercent))
        {
            tell.Add(Invariant($"RPS changes of {RpsDecidablePercent:0.#} %"));
        }
        else
        {
            unknown.Add(RpsCvPercent switch
            {
                double.NaN => "RPS noise not known (no run had three seconds of steady throughput)",
                <= 0 => $"RPS noise could not be measured (throughput did not vary {what}: too few requests completed to show it)",
                _ => "RPS changes could not be sized (the blocks gave no interval)",
            });
        }
        return (tell, unknown);
    }

    /// <summary>"the core's speed varied 1.7 %", or, when that rounds to 0, that it did not vary measurably.</summary>
    public static string CoreSpeed(double speedCvPercent) => Usable(speedCvPercent)
        ? Invariant($"the core's speed varied {speedCvPercent:0.#} %")
        : "the core's speed did not vary measurably";

    // A spread that rounds to 0 is not a quiet machine but too few completions to see one (a starved variant's seconds):
    // printed, it read "RPS changes under 0 % cannot be decided".
    private static bool Usable(double percent) => double.IsFinite(percent) && Math.Round(percent, 1) > 0;

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
