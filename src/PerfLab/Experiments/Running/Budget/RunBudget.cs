using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Budget;

/// <summary>One experiment's blocks so far: what they measured, and whether it takes more.</summary>
public sealed class ExperimentProgress(ExperimentDefinition experiment, StoppingRule rule)
{
    public ExperimentDefinition Experiment => experiment;
    public StoppingRule Rule => rule;
    public List<RunRecord> Runs { get; } = [];
    public List<TracedRun> Traced { get; } = [];

    /// <summary>The traces that failed (<see cref="Measuring.LoadMeasurement.TraceFailed"/>): the result's notes say why.</summary>
    public List<FailedTrace> TraceFailures { get; } = [];
    public int Blocks { get; set; }

    /// <summary>Wall time its blocks took so far, in seconds (for <see cref="DutyCycle"/>).</summary>
    public double WallSeconds { get; set; }

    /// <summary>The widest primary half-width after the last block (+∞ before one can be computed).</summary>
    public double Widest { get; set; } = double.PositiveInfinity;

    public StopDecision Decision { get; set; } = StopDecision.Continue;

    /// <summary>
    /// How far it is from its precision target: the widest half-width over
    /// the target (+∞ before one can be computed, 0 without a target).
    /// </summary>
    public double Need => Rule.PrecisionPercent is { } target && target > 0 ? Widest / target : 0;

    /// <summary>
    /// The blocks it would take in all for its widest half-width to reach its target if its blocks keep the spread they
    /// have: a half-width scales as t(n−1)/√n over n blocks (a fourth block narrows three blocks' interval by 36 %, a
    /// seventh six blocks' by 12 %). Null without a target or a computable half-width, or beyond its maximum blocks.
    /// </summary>
    public int? BlocksToTarget =>
        Rule.PrecisionPercent is { } target && target > 0 && Blocks >= 2 && double.IsFinite(Widest)
            ? Statistics.SamplesFor(Widest, Blocks, target, Blocks, Rule.MaxBlocks)
            : null;
}

/// <summary>
/// `perflab run --budget`: the time the whole invocation may take, counted from its start (<paramref name="budget"/>,
/// from the ./perflab script's own start when it built perflab first). Every experiment first runs
/// its minimum blocks, in order; the time left then goes one block at a time to the experiment that can reach its
/// precision target for the fewest seconds (<see cref="ExperimentProgress.BlocksToTarget"/> more blocks, each as long as
/// <paramref name="nextBlock"/>, the run plan's estimate from its runs so far), when that fits in what is left; when
/// no target is within reach, to the one furthest from its target (widest half-width over target). Always as long as
/// its next block still fits. So the time goes first where it turns a verdict without its precision into one with it:
/// in a quiet default run the old rule (furthest first) gave all of it to sync-async, whose RPS interval stayed twice
/// its target, while logging and serializer ended one block short of theirs (docs/benchmarks/precision.md).
/// The whole run ends within the budget unless the minimum blocks alone exceed it.
/// </summary>
public sealed class RunBudget(TimeBudget budget, Func<ExperimentProgress, TimeSpan> nextBlock)
{
    private TimeSpan Elapsed => budget.Spent();

    /// <summary>Whether one more block of <paramref name="progress"/> fits in what is left now.</summary>
    public bool HasRoomFor(ExperimentProgress progress) => Fits(budget.Total, Elapsed, nextBlock(progress));

    public static bool Fits(TimeSpan? total, TimeSpan elapsed, TimeSpan nextBlock) => total is not { } t || elapsed + nextBlock <= t;

    /// <summary>The experiment to give the next block to, among those still asking for one and whose block fits; null when none.</summary>
    public ExperimentProgress? Next(IEnumerable<ExperimentProgress> experiments) => Next(experiments, budget.Total, Elapsed, nextBlock);

    public static ExperimentProgress? Next(IEnumerable<ExperimentProgress> experiments, TimeSpan? total, TimeSpan elapsed,
        Func<ExperimentProgress, TimeSpan> nextBlock)
    {
        var fitting = experiments.Where(p => !p.Decision.Stop && Fits(total, elapsed, nextBlock(p))).ToList();
        var left = total is { } t ? t - elapsed : TimeSpan.MaxValue;
        var withinReach = fitting
            .Select(p => (Progress: p, ToTarget: p.BlocksToTarget is { } n ? nextBlock(p) * Math.Max(1, n - p.Blocks) : (TimeSpan?)null))
            .Where(c => c.ToTarget is { } cost && cost <= left)
            .OrderBy(c => c.ToTarget)
            .Select(c => c.Progress)
            .FirstOrDefault();
        return withinReach ?? fitting.OrderByDescending(p => p.Need).FirstOrDefault();
    }
}
