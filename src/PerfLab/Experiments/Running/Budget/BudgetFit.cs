using System.Globalization;

namespace PerfLab.Experiments.Running.Budget;

/// <summary>
/// One experiment's minimum, as planned: its blocks, its variants, and what one variant costs in a block (a warm-up
/// capped at <paramref name="WarmupSeconds"/>, then <paramref name="Slots"/> slots of <paramref name="SlotSeconds"/>
/// each after a short re-warm), plus the time outside any measurement (SUT starts, traces analysed) per block.
/// <paramref name="LengthKnown"/> is false when the runs end by a count (batches, uploads), so that their
/// <paramref name="SlotSeconds"/> is an estimate. <paramref name="WarmupFloorSeconds"/> is the shortest cap the budget may
/// give its warm-ups: <see cref="ShortestWarmupSeconds"/>, or the whole cap where a runtime tiers, whose warm-up ends
/// when tiering has settled (12-24 s for framework's three runtimes, docs/warm-up.md); cut shorter, it would measure
/// code still being compiled. <paramref name="WarmupsAtOnce"/>: a block warms its variants up together, so its warm-up
/// lasts one cap, not one per variant (<see cref="PerfLab.Experiments.Running.Blocks.AlternatingBlock.WarmsUpAtOnce"/>).
/// </summary>
public sealed record MinimumBlocks(string Experiment, int Blocks, int Variants, double WarmupSeconds, int Slots, double SlotSeconds,
    double OverheadSecondsPerBlock, bool LengthKnown = true, double WarmupFloorSeconds = MinimumBlocks.ShortestWarmupSeconds,
    bool WarmupsAtOnce = false)
{
    /// <summary>The fewest slots a shortened block keeps: two turns still put every variant on both sides of the others.</summary>
    public const int FewestSlots = 2;

    /// <summary>The shortest warm-up cap a shortened block keeps; JIT and connection pools need some seconds.</summary>
    public const double ShortestWarmupSeconds = 5;

    /// <summary>Whether the budget may not shorten its warm-up at all: its runtimes tier.</summary>
    public bool WarmupKeptWhole => WarmupFloorSeconds > ShortestWarmupSeconds;

    public double Seconds =>
        Blocks * (((WarmupsAtOnce ? 1 : Variants) * WarmupSeconds) + (Variants * Slots * (SlotSeconds + 0.5)) + OverheadSecondsPerBlock);

    /// <summary>The part of <see cref="Seconds"/> known before the run: the timed windows and warm-up caps, no estimate.</summary>
    public double KnownSeconds => LengthKnown ? Seconds - Blocks * OverheadSecondsPerBlock : 0;
}

/// <summary>What the budget made of the minimum blocks: unchanged, shortened (and how), or impossible (and what would fit).</summary>
public sealed record BudgetFitResult(bool Fits, IReadOnlyList<MinimumBlocks> Planned, IReadOnlyList<string> Changes, double NeededSeconds)
{
    public string Describe(TimeSpan budget) => Fits
        ? Changes.Count == 0 ? "the minimum blocks fit the budget as planned" : "to fit the budget: " + string.Join("; ", Changes)
        : string.Create(CultureInfo.InvariantCulture,
            $"the minimum blocks need {NeededSeconds / 60:0.#} min even with {MinimumBlocks.FewestSlots} slots " +
                $"and {MinimumBlocks.ShortestWarmupSeconds:0} s warm-ups{KeptWhole()}, " +
            $"more than the budget of {budget.TotalMinutes:0.#} min: raise --budget "
                + $"to {Math.Ceiling(NeededSeconds / 60):0} min or run fewer experiments");

    private string KeptWhole() => Planned.Where(e => e.WarmupKeptWhole).ToList() is { Count: > 0 } kept
        ? string.Create(CultureInfo.InvariantCulture,
            $" (kept whole where runtimes tier: {string.Join(", ", kept.Select(e => $"{e.Experiment}'s {e.WarmupFloorSeconds:0} s"))})")
        : "";
}

/// <summary>
/// Plans the minimum blocks into a budget before the run starts: a run promises to end within its budget (plus 5 %), so
/// when the minimum alone would overrun it, the warm-up caps are shortened first (the steady-state warm-up usually ends
/// before its cap anyway), then the slots per variant are reduced (fewer, the same length: each slot is still one
/// window of the same kind). A tiered runtime's warm-up is never shortened (<see cref="MinimumBlocks.WarmupFloorSeconds"/>).
/// When even that does not fit, the run is refused before anything starts.
/// </summary>
public static class BudgetFit
{
    /// <summary>The share of the budget the minimum may take; the stopping rule spends the rest where precision is missing.</summary>
    public const double MinimumShare = 1.0;

    public static BudgetFitResult Plan(IReadOnlyList<MinimumBlocks> experiments, TimeSpan budget)
    {
        var limit = budget.TotalSeconds * MinimumShare;
        var planned = experiments.ToList();
        var changes = new List<string>();
        if (planned.Sum(e => e.Seconds) <= limit)
        {
            return new BudgetFitResult(true, planned, changes, planned.Sum(e => e.Seconds));
        }
        // Warm-ups first: a cap the steady-state check seldom reaches costs little to lower.
        var warmups = planned.Select(e => e with { WarmupSeconds = Math.Min(e.WarmupSeconds, e.WarmupFloorSeconds) }).ToList();
        var excess = planned.Sum(e => e.Seconds) - limit;
        var saved = planned.Sum(e => e.Seconds) - warmups.Sum(e => e.Seconds);
        var share = saved > 0 ? Math.Min(1, excess / saved) : 0;
        for (var i = 0; i < planned.Count; i++)
        {
            var cut = planned[i].WarmupSeconds - (planned[i].WarmupSeconds - warmups[i].WarmupSeconds) * share;
            var rounded = Math.Floor(cut);
            if (rounded < planned[i].WarmupSeconds)
            {
                changes.Add(string.Create(CultureInfo.InvariantCulture,
                    $"{planned[i].Experiment}: warm-up cap {planned[i].WarmupSeconds:0} s -> {rounded:0} s"));
                planned[i] = planned[i] with { WarmupSeconds = rounded };
            }
            else if (share > 0 && planned[i].WarmupKeptWhole)
            {
                changes.Add($"{planned[i].Experiment}: warm-up cap "
                    + string.Create(CultureInfo.InvariantCulture, $"{planned[i].WarmupSeconds:0} s kept ")
                    + "(its runtimes tier: it ends once tiering settles)");
            }
        }
        // Then slots, one at a time from the experiment with the most.
        while (planned.Sum(e => e.Seconds) > limit && planned.Where(e => e.Slots > MinimumBlocks.FewestSlots)
            .MaxBy(e => e.Slots) is { } most)
        {
            var i = planned.IndexOf(most);
            planned[i] = most with { Slots = most.Slots - 1 };
        }
        for (var i = 0; i < planned.Count; i++)
        {
            if (planned[i].Slots < experiments[i].Slots)
            {
                changes.Add(string.Create(CultureInfo.InvariantCulture,
                    $"{planned[i].Experiment}: {experiments[i].Slots} slots -> {planned[i].Slots} per variant"));
            }
        }
        var needed = planned.Sum(e => e.Seconds);
        return new BudgetFitResult(needed <= limit, planned, changes, needed);
    }
}
