using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// The budget of a run repeated as invocations, checked before the first starts: each invocation gets an even share of
/// it, and repeats what a run does before measuring (the database readied, the variants built and primed). A share
/// that the minimum blocks overrun would make every invocation end late and leave the last ones too little to start,
/// so the run is refused up front, saying what would fit, as a single run whose minimum overruns its budget is.
/// </summary>
public static class InvocationShares
{
    /// <summary>What an invocation spends before its first block (16-29 s measured on a busy 2-core machine).</summary>
    public static readonly TimeSpan Preparing = TimeSpan.FromSeconds(30);

    /// <summary>Throws a usage error when <paramref name="count"/> even shares of <paramref name="left"/> cannot hold
    /// the minimum blocks, shortened as far as a run shortens them, with their starts, traces and preparing.</summary>
    public static void Check(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices, int count, TimeSpan left)
    {
        var planned = selected.SelectMany(SweepDefinition.Points).Select(e =>
        {
            var profile = e.Profiles[choices.Profile];
            var minimum = (StoppingRule.For(profile, choices.Repeat, choices.Precision).MinBlocks, e.VariantsToRun(choices.Aa).Count);
            return RunOpening.Minimum(e, profile, minimum, choices.Traced);
        }).ToList();
        var share = left / count;
        var fit = BudgetFit.Plan(planned, share - Preparing);
        if (fit.Fits)
        {
            return;
        }
        var needed = TimeSpan.FromSeconds(fit.NeededSeconds) + Preparing;
        throw new PerfLabException(string.Create(CultureInfo.InvariantCulture,
            $"--invocations {count} gives each invocation {RunOpening.Said(share)} of the budget, but each needs about "
            + $"{RunOpening.Said(needed)} (its minimum blocks, shortened as far as they go, their starts and traces, and "
            + $"{Preparing.TotalSeconds:0} s to prepare): raise --budget to {Math.Ceiling(needed.TotalMinutes * count):0}m "
            + $"or use fewer invocations"), ExitCode.Usage);
    }

    /// <summary>
    /// How many more invocations <paramref name="left"/> holds at the pace the finished ones kept (the mean of their
    /// durations, less a tenth for the shortening a child does within its share), at most <paramref name="wanted"/>.
    /// On a busy machine an invocation overruns its share (its SUT starts and block turns take longer than planned);
    /// running fewer at a share they fit beats starving the last of them into a refusal.
    /// </summary>
    public static int Fitting(TimeSpan left, IReadOnlyList<TimeSpan> took, int wanted)
    {
        if (took.Count == 0)
        {
            return wanted;
        }
        var pace = took.Average(t => t.TotalSeconds) * 0.9;
        return (int)Math.Clamp(Math.Floor(left.TotalSeconds / pace), 0, wanted);
    }
}
