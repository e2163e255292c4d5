using System.Globalization;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Budget;

/// <summary>Why an experiment adds no more blocks, or that it goes on (now, or later).</summary>
public enum StopKind
{
    Continue,
    /// <summary>Short of its target after its minimum blocks: more once every experiment has had its own, as the budget allows.</summary>
    Later,
    FixedRepetitions,
    PrecisionReached,
    MaximumBlocks,
    BudgetSpent,
    /// <summary>A variant never took effect: more blocks could not compare it.</summary>
    NeverInEffect,
}

/// <summary>Whether to add another block, and why not; <see cref="Reason"/> is the sentence results.json and the report show.</summary>
public sealed record StopDecision(StopKind Kind, string? Reason)
{
    public static readonly StopDecision Continue = new(StopKind.Continue, null);

    public static readonly StopDecision Later =
        new(StopKind.Later, "more blocks once every experiment has its first ones, as the budget allows");

    public bool Stop => Kind is not (StopKind.Continue or StopKind.Later);
}

/// <summary>
/// When an experiment has run enough blocks. Always at least <paramref name="MinBlocks"/> (the profile's repeat);
/// without a precision target, exactly that. With one, blocks are added until every primary comparison's 95 %
/// interval half-width is at most the target, or <paramref name="MaxBlocks"/> were run, or the time budget has no
/// room for another block. Like BenchmarkDotNet's rule (iterate until the standard error is within 2 % of the mean),
/// but on the quantity the verdict is about: the change against the baseline.
/// </summary>
public sealed record StoppingRule(int MinBlocks, int MaxBlocks, double? PrecisionPercent)
{
    /// <summary>The cap when a precision is asked for and the profile sets no MaxRepeat.</summary>
    public const int DefaultMaxBlocks = 20;

    /// <param name="repeat">`--repeat`: overrides the profile's minimum.</param>
    /// <param name="precisionPercent">`--precision`: overrides the profile's target.</param>
    public static StoppingRule For(Definitions.ProfileDefinition profile, int? repeat, double? precisionPercent)
    {
        var min = repeat ?? profile.Repeat;
        var target = precisionPercent ?? profile.PrecisionPercent;
        var max = target is null ? min : Math.Max(min, profile.MaxRepeat ?? DefaultMaxBlocks);
        return new StoppingRule(min, max, target);
    }

    /// <param name="blocks">Blocks completed.</param>
    /// <param name="widestHalfWidthPercent">The widest primary half-width now (+∞ when one cannot be computed yet).</param>
    /// <param name="roomForAnotherBlock">Whether the time budget allows one more block.</param>
    public StopDecision Decide(int blocks, double widestHalfWidthPercent, bool roomForAnotherBlock)
    {
        if (blocks < MinBlocks)
        {
            return StopDecision.Continue;
        }
        if (PrecisionPercent is not { } target)
        {
            return new StopDecision(StopKind.FixedRepetitions, "fixed repetitions");
        }
        var widest = Describe(widestHalfWidthPercent);
        if (widestHalfWidthPercent <= target)
        {
            return new StopDecision(StopKind.PrecisionReached,
                string.Create(CultureInfo.InvariantCulture, $"precision reached: widest half-width {widest} <= {target:0.#} %"));
        }
        if (blocks >= MaxBlocks)
        {
            return new StopDecision(StopKind.MaximumBlocks, string.Create(CultureInfo.InvariantCulture,
                $"maximum of {MaxBlocks} blocks reached: widest half-width {widest}, target {target:0.#} %"));
        }
        if (!roomForAnotherBlock)
        {
            return new StopDecision(StopKind.BudgetSpent,
                string.Create(CultureInfo.InvariantCulture, $"budget spent: widest half-width {widest}, target {target:0.#} %"));
        }
        return StopDecision.Continue;
    }

    /// <summary>
    /// A widest half-width as a progress line says it: "4.2 %"; "over 1000 %" past that (two blocks of a noisy ratio give
    /// t(1) = 12.7 standard errors, read once as 20581024.0 %, a figure that tells nothing more); "not yet computable"
    /// before it can be.
    /// </summary>
    public static string Describe(double widestHalfWidthPercent) => widestHalfWidthPercent switch
    {
        double.PositiveInfinity or double.NaN => "not yet computable",
        > 1000 => "over 1000 %",
        _ => string.Create(CultureInfo.InvariantCulture, $"{widestHalfWidthPercent:0.0} %"),
    };

    /// <summary>
    /// Why more blocks cannot help: a variant none of whose runs took effect (its /info contradicted what was asked,
    /// e.g. Server GC on one core, where the runtime runs workstation GC)
    /// will not start to; <see cref="StopDecision.Continue"/> when none such.
    /// </summary>
    public static StopDecision NeverInEffect(IEnumerable<RunRecord> runs) =>
        runs.GroupBy(r => r.Variant)
            .Where(g => g.All(r => r.FailureKind == FailureKind.VariantNotInEffect))
            .Select(g => new StopDecision(StopKind.NeverInEffect,
                $"variant {g.Key} never took effect ({g.First().FailureReason}); more blocks could not compare it"))
            .FirstOrDefault() ?? StopDecision.Continue;

    /// <summary>
    /// The widest 95 % half-width in percent of the primary comparisons: every variant against the baseline on all
    /// scenarios' deciding metric (<see cref="ExperimentDefinition.Decide"/>: RPS, CPU per request or p99; batch mean
    /// time for burst and upload experiments). A comparison's half-width is the narrower of
    /// two readings of its interval: in points of the baseline, (High − Low) / 2, and relative to the change itself,
    /// the ratio's ×/÷ factor (√(hi/lo) − 1, hi and lo the interval's ends as ratios). They agree for small changes; for
    /// a nine-fold gain known to 7 % of itself, [+675, +860] %, the points read ±92 and no number of blocks would bring
    /// them under 10, while the ratio is 8.7 ×/÷ 1.11. +∞ when one has no interval yet.
    /// </summary>
    public static double WidestHalfWidth(IEnumerable<Comparison> comparisons, Metric? decide = null)
    {
        // The deciding metric's comparisons when there are any (cost needs the app's CPU, read on this machine only).
        var all = comparisons.Where(c => c.Scenario == Metric.AllScenarios).ToList();
        var metric = Deciding.Key(all, decide ?? Metrics.Rps);
        var widths = all.Where(c => c.Metric == metric || c.Metric == Metrics.BatchMeanMs)
            .Select(c => Statistics.HalfWidth(c.LowPercent, c.HighPercent))
            .ToList();
        return widths.Count > 0 ? widths.Max() : 0;
    }
}
