using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Capacity;

/// <summary>
/// The capacity search: constant-rate steps doubling from <see cref="CapacityRange.From"/> until one breaks the SLO
/// (or <see cref="CapacityRange.Max"/> holds), then bisection between the last that held and the first that broke
/// until the bracket is within the precision, then the boundary confirmed: the last rate that held and the first that
/// broke tried again, interleaved, until they give the same answers back to back or
/// <see cref="CapacityRange.MaxConfirmations"/> is spent (a boundary a disagreeing try widened bisected again). A
/// rising or bisecting step that breaks as a stall may (on a busy machine, latency under twice the SLO's bound) is
/// tried once more before the search believes it. The capacity's interval is read from every try
/// (<see cref="CapacityBoundary"/>). A step the generator could not drive ends the search: the capacity is
/// then at least the last rate that held, and the result says the generator was the limit.
/// </summary>
public static class CapacitySearch
{
    public delegate Task<CapacityStep> Probe(int index, string phase, double rate, CancellationToken ct);

    public static async Task<CapacityResult> RunAsync(string url, CapacitySlo slo, CapacityRange range, CapacityStepSettings settings,
        Probe probe, Action<CapacityStep>? onStep, CancellationToken ct)
    {
        var steps = new List<CapacityStep>();
        async Task<CapacityStep> Step(string phase, double rate)
        {
            var step = await probe(steps.Count + 1, phase, rate, ct).ConfigureAwait(false);
            steps.Add(step);
            onStep?.Invoke(step);
            return step;
        }

        // A break a stall may explain: on a busy machine, with latency under twice the SLO's bound (a stall adds its length
        // to latency; a rate well above the capacity queues for seconds, as 2.5-3.6 s at 1.5-2x it did on a busy host).
        bool mayBeStall(CapacityStep s) => !s.Holds && Ends(s) is null && MachineLoad.IsBusy(s.MachineLoad)
            && s.LatencyMs < StallFactor * slo.LimitMs;

        CapacityStep? held = null, broke = null;
        var outcome = CapacityOutcome.AboveMax;
        var from = range.From;
        for (var round = 0; round < MaxRounds; round++)
        {
            (held, broke, outcome) = await RiseAsync(Step, mayBeStall, range, from, held).ConfigureAwait(false);
            if (outcome == CapacityOutcome.Found && held is not null && broke is not null)
            {
                (held, broke, outcome) = await BisectAsync(Step, mayBeStall, range, held, broke).ConfigureAwait(false);
            }
            if (outcome == CapacityOutcome.Found && held is not null && broke is not null)
            {
                (held, broke, outcome) = await ConfirmAsync(Step, mayBeStall, range, steps, held, broke!).ConfigureAwait(false);
            }
            if (outcome != CapacityOutcome.Found || broke is not null || held is null)
            {
                break;
            }
            // Nothing above the rate that holds broke on its tries: its breaks were a busy machine's, so the search
            // rises on from it.
            from = Math.Min(held.TargetRps * CapacityRange.Growth, range.Max);
            outcome = held.TargetRps >= range.Max ? CapacityOutcome.AboveMax : CapacityOutcome.Incomplete;
            if (outcome == CapacityOutcome.AboveMax)
            {
                break;
            }
        }
        return Result(url, slo, settings, outcome, held, outcome == CapacityOutcome.Found ? broke : null, steps);
    }

    /// <summary>
    /// The rounds of rising, bisecting and confirming a search may run: a second when confirmation found no break above.
    /// Each round confirms with at most <see cref="CapacityRange.MaxConfirmations"/> steps.
    /// </summary>
    public const int MaxRounds = 2;

    /// <summary>A busy break whose latency is under this many times the SLO's bound is tried once more.</summary>
    private const double StallFactor = 2;

    /// <summary>
    /// Rising steps from <paramref name="from"/>, doubling up to the range's maximum, until one breaks. A step that
    /// breaks is run once more before the search believes it when it is the first (a target still cold: JIT, caches)
    /// or as a stall may have broken it (on a busy machine, latency under twice the SLO's bound).
    /// </summary>
    private static async Task<(CapacityStep? Held, CapacityStep? Broke, CapacityOutcome Outcome)> RiseAsync(
        Func<string, double, Task<CapacityStep>> step, Func<CapacityStep, bool> mayBeStall, CapacityRange range, double from,
        CapacityStep? held)
    {
        for (var rate = from; ; rate = Math.Min(rate * CapacityRange.Growth, range.Max))
        {
            var next = await step("step", rate).ConfigureAwait(false);
            if (held is null ? !next.Holds && Ends(next) is null : mayBeStall(next))
            {
                next = await step("repeat", rate).ConfigureAwait(false);
            }
            if (Ends(next) is { } end)
            {
                return (held, null, end);
            }
            if (!next.Holds)
            {
                return (held, next, held is null ? CapacityOutcome.BelowFrom : CapacityOutcome.Found);
            }
            held = next;
            if (rate >= range.Max)
            {
                return (held, null, CapacityOutcome.AboveMax);
            }
        }
    }

    /// <summary>Bisection between the last rate that held and the first that broke, until the bracket is within the precision.</summary>
    private static async Task<(CapacityStep Held, CapacityStep Broke, CapacityOutcome Outcome)> BisectAsync(
        Func<string, double, Task<CapacityStep>> step, Func<CapacityStep, bool> mayBeStall, CapacityRange range, CapacityStep held,
        CapacityStep broke)
    {
        for (var i = 0; i < CapacityRange.MaxBisections; i++)
        {
            // Narrow enough on the rates asked for: the bisection moves those. The bracket reported is from the rate
            // achieved, which is lower when the target completed less than it was sent, so it may read wider.
            if (broke.TargetRps - held.TargetRps <= range.Precision * held.TargetRps)
            {
                break;
            }
            var rate = (held.TargetRps + broke.TargetRps) / 2;
            var next = await step("bisect", rate).ConfigureAwait(false);
            if (mayBeStall(next))
            {
                // A break on a busy machine may be a stall's: the bisection moves on the rate's next try instead.
                next = await step("repeat", rate).ConfigureAwait(false);
            }
            if (Ends(next) is { } end)
            {
                return (held, broke, end);
            }
            (held, broke) = next.Holds ? (next, broke) : (held, next);
        }
        return (held, broke, CapacityOutcome.Found);
    }

    /// <summary>
    /// The boundary tried again, its two rates back to back, so one stall is not taken for the capacity: until the rate
    /// that held holds and the one that broke breaks again, or <see cref="CapacityRange.MaxConfirmations"/> confirming
    /// steps ran. A try that disagrees widens the boundary to the rates that gave one answer (<see cref="CapacityBoundary"/>);
    /// when that is wider than the precision, the bracket is bisected again between them, so the rates in between are
    /// tried rather than the interval falling back to the last doubling; then the new boundary is tried again.
    /// </summary>
    private static async Task<(CapacityStep Held, CapacityStep? Broke, CapacityOutcome Outcome)> ConfirmAsync(
        Func<string, double, Task<CapacityStep>> step, Func<CapacityStep, bool> mayBeStall, CapacityRange range,
        List<CapacityStep> steps, CapacityStep held, CapacityStep broke)
    {
        for (var tries = 0; tries < CapacityRange.MaxConfirmations; tries += 2)
        {
            var again = await step("confirm", held.TargetRps).ConfigureAwait(false);
            var next = Ends(again) is null ? await step("confirm", broke.TargetRps).ConfigureAwait(false) : again;
            if (Ends(next) is { } end)
            {
                return (held, broke, end);
            }
            if (again.Holds && !next.Holds)
            {
                return (again, broke, CapacityOutcome.Found);
            }
            if (CapacityBoundary.Held(steps) is not { } holding)
            {
                break;
            }
            held = holding.Last(s => s.Holds);
            if (CapacityBoundary.Broke(steps, held.TargetRps) is not { } above)
            {
                // Every rate above it that broke has held since: no boundary above is known (the caller rises on).
                return (held, null, CapacityOutcome.Found);
            }
            broke = above[^1];
            if (broke.TargetRps - held.TargetRps > range.Precision * held.TargetRps)
            {
                var outcome = CapacityOutcome.Found;
                (held, broke, outcome) = await BisectAsync(step, mayBeStall, range, held, broke).ConfigureAwait(false);
                if (outcome != CapacityOutcome.Found)
                {
                    return (held, broke, outcome);
                }
            }
        }
        return (held, broke, CapacityOutcome.Found);
    }

    /// <summary>An outcome that ends the search at once, or null to go on.</summary>
    private static CapacityOutcome? Ends(CapacityStep step) =>
        step.GeneratorLimited ? CapacityOutcome.GeneratorLimit
        : step.Incomplete ? CapacityOutcome.Incomplete
        : null;

    private static CapacityResult Result(string url, CapacitySlo slo, CapacityStepSettings settings, CapacityOutcome outcome,
        CapacityStep? held, CapacityStep? broke, List<CapacityStep> steps)
    {
        var capacity = held?.AchievedRps;
        (double Low, double? High)? interval = capacity is null ? null : CapacityBoundary.Interval(steps);
        double? bracket = capacity is { } c && broke is not null && c > 0 ? 100 * (broke.TargetRps - c) / c : null;
        return new CapacityResult
        {
            Url = url,
            Slo = slo.Describe(),
            LatencyMetric = slo.Latency.Metric,
            LatencyLimitMs = slo.LimitMs,
            Outcome = outcome,
            CapacityRps = capacity,
            BreaksAtRps = broke?.TargetRps,
            BracketPercent = bracket,
            CapacityLowRps = interval?.Low,
            CapacityHighRps = interval?.High,
            Summary = Summary(slo, outcome, held, broke, steps) + IntervalNote(outcome, interval) + BusyNote(steps),
            StepSeconds = settings.Duration.TotalSeconds,
            WarmupSeconds = settings.Warmup.TotalSeconds,
            Steps = steps,
        };
    }

    /// <summary>
    /// A note when the machine was busy during the search: then its capacity, as much as the target's, was found. The
    /// load average counts every runnable task, this run's own too: on a machine that also holds the generator and
    /// PostgreSQL, the steps that break fill its cores themselves, so the note does not claim the load was someone else's.
    /// </summary>
    private static string BusyNote(List<CapacityStep> steps) =>
        steps.Select(s => s.MachineLoad).Where(MachineLoad.IsBusy).Max() is { } load
            ? string.Create(CultureInfo.InvariantCulture,
                $" The machine was busy (load average up to {load:0.#} on {Environment.ProcessorCount} cores, ")
                + "this run's own SUT, generator and database included): the machine may have been the limit, not the target's design."
            : "";

    /// <summary>" Capacity interval [190.2, 200] RPS: ...", said of a bracketed search only (the others say what they lack).</summary>
    private static string IntervalNote(CapacityOutcome outcome, (double Low, double? High)? interval) =>
        outcome != CapacityOutcome.Found || interval is not { } i ? ""
        : " Capacity interval " + CapacityResult.IntervalText(i.Low, i.High) + (i.High is null
            ? ": open above, as no rate above it broke every time it was tried, right after the rate below held, on a machine "
                + "that was not busy."
            : ": the boundary held and broke again back to back.");

    private static string Summary(CapacitySlo slo, CapacityOutcome outcome, CapacityStep? held, CapacityStep? broke,
        List<CapacityStep> steps)
    {
        string Rps(double value) => value.ToString("N0", CultureInfo.InvariantCulture);
        var last = steps[^1];
        var atLeast = held is null ? "no rate held" : $"the capacity is at least {Rps(held.AchievedRps)} RPS";
        return outcome switch
        {
            CapacityOutcome.Found => $"within {slo.Describe()}: holds at {Rps(held!.AchievedRps)} RPS, breaks at {Rps(broke!.TargetRps)}.",
            CapacityOutcome.AboveMax =>
                $"within {slo.Describe()}: holds at {Rps(held!.AchievedRps)} RPS, the most asked for (--max); the capacity may be higher.",
            CapacityOutcome.BelowFrom =>
                $"breaks already at the lowest rate tried, {Rps(last.TargetRps)} RPS ({last.Reason}): "
                + "lower --from, or check that the URL answers.",
            CapacityOutcome.GeneratorLimit =>
                $"the generator was the limit at {Rps(last.TargetRps)} RPS ({last.Reason}); {atLeast}. "
                + "Run the generator on another machine or give it more cores.",
            _ => $"stopped early at {Rps(last.TargetRps)} RPS ({last.Reason}); {atLeast}.",
        };
    }
}
