using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Capacity;

/// <summary>
/// Where a capacity search's SLO flips, read from every step it ran, repeats included. A step that holds is evidence a
/// stall cannot fake (a busy machine only makes steps break); a step that breaks is not, when the machine was busy. So
/// a rate counts as holding when it held and every try of it that broke did so on a busy machine (a stall explains
/// those), and as breaking only when every try of it broke: on a quiet machine, a rate whose tries disagree lies inside
/// the interval instead of at one of its ends. The upper end is a rate that broke every time it was tried, right after
/// the rate below it held (the boundary reproduced back to back), on a machine that was not busy; without such a rate
/// the interval is open above. A busy machine so widens the interval above rather than lowering its ends.
/// </summary>
public static class CapacityBoundary
{
    /// <summary>
    /// The highest rate that held and broke only on a busy machine (its tries, in the order they ran), or null when none
    /// did.
    /// </summary>
    public static IReadOnlyList<CapacityStep>? Held(IReadOnlyList<CapacityStep> steps) =>
        Rates(steps).Where(g => g.Any(s => s.Holds) && g.All(s => s.Holds || MachineLoad.IsBusy(s.MachineLoad)))
            .MaxBy(g => g[0].TargetRps);

    /// <summary>
    /// The lowest rate above <paramref name="below"/> whose every try broke, or, when every rate above it held at least
    /// once, the lowest rate above it that broke at all (the search tries it again); null when nothing above broke.
    /// </summary>
    public static IReadOnlyList<CapacityStep>? Broke(IReadOnlyList<CapacityStep> steps, double below)
    {
        var above = Rates(steps).Where(g => g[0].TargetRps > below && g.Any(s => !s.Holds)).OrderBy(g => g[0].TargetRps).ToList();
        return above.FirstOrDefault(g => g.All(s => !s.Holds)) ?? above.FirstOrDefault();
    }

    /// <summary>
    /// The capacity's interval: from the lowest rate credited to a holding try of the highest rate that held (0 when
    /// none did, see <see cref="Held"/>), to the lowest rate above it that always broke (null: open above, see the class).
    /// </summary>
    public static (double Low, double? High) Interval(IReadOnlyList<CapacityStep> steps)
    {
        var held = Held(steps);
        var rate = held?[0].TargetRps ?? 0;
        var broke = Broke(steps, rate);
        var confirmed = broke is not null && broke.All(s => !s.Holds) && broke.Count >= 2
            && broke.Any(s => !MachineLoad.IsBusy(s.MachineLoad) && HeldJustBefore(steps, s));
        return (held?.Where(s => s.Holds).Min(s => s.AchievedRps) ?? 0, confirmed ? broke![0].TargetRps : null);
    }

    /// <summary>True when the step run just before <paramref name="step"/> held at a lower rate.</summary>
    private static bool HeldJustBefore(IReadOnlyList<CapacityStep> steps, CapacityStep step) =>
        steps.FirstOrDefault(s => s.Index == step.Index - 1) is { Holds: true } before && before.TargetRps < step.TargetRps;

    /// <summary>The steps grouped by the rate asked for, leaving out those that ended the search (generator, early end).</summary>
    private static IEnumerable<List<CapacityStep>> Rates(IReadOnlyList<CapacityStep> steps) =>
        steps.Where(s => !s.GeneratorLimited && !s.Incomplete).GroupBy(s => s.TargetRps).Select(g => g.ToList());
}
