using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// The evidence behind an experiment's verdicts, shown by both writers: every run's figure in run order
/// (drift shows), how many blocks ran and why the runner stopped, where the noise came from, and how each run warmed up
/// and closed its window.
/// </summary>
internal static class EvidenceContent
{
    /// <summary>
    /// One row per variant, one column per block: the all-scenario RPS of
    /// that variant's run in that block, with its place in the run order.
    /// </summary>
    public static ReportTable RunsInOrder(ExperimentResult experiment)
    {
        var blocks = experiment.Runs.Select(r => r.Repetition).Distinct().Order().ToList();
        var burst = experiment.Runs.Any(r => r.BatchTimesMs.Count > 0);
        var rows = experiment.Variants.Select(variant => (IReadOnlyList<Cell>)
            [new Cell(variant, Code: true), .. blocks.Select(block =>
                RunCell(experiment.Runs.FirstOrDefault(r => r.Variant == variant && r.Repetition == block), burst))])
            .ToList();
        return new ReportTable([new("variant", Align.Left), .. blocks.Select(b => new Column($"block {Fmt.Int(b)}"))], rows);
    }

    private static Cell RunCell(RunRecord? run, bool burst)
    {
        if (run is null)
        {
            return Fmt.Missing;
        }
        if (run.Status != RunStatus.Ok)
        {
            return $"failed ({run.FailureKind?.ToString() ?? "unknown"}) #{Fmt.Int(run.Order)}";
        }
        var figure = burst && run.BatchTimesMs.Count > 0
            ? Fmt.Num(run.BatchTimesMs.Average(), 1) + " ms"
            : Fmt.Num(run.Scenarios.Sum(s => s.Rps), 1);
        var flags = (run.Settled == false ? " (warm-up cap)" : "") + (run.Scenarios.Any(s => s.BoundedByWindow) ? " (window-bound)" : "");
        return $"{figure} #{Fmt.Int(run.Order)}{flags}";
    }

    /// <summary>
    /// The facts of an experiment both writers list under its heading after the load and the runs: the deciding figure,
    /// the machine's noise in its own blocks, the blocks, the noise taken apart and the windows; those with no text left out.
    /// </summary>
    public static IReadOnlyList<(string Label, string Text)> Facts(ExperimentResult experiment)
    {
        var deciding = Deciding.Key(experiment);
        var decided = deciding.Name + (Deciding.Fallback(experiment, deciding) is { } why ? $" ({why})" : "");
        return [.. new[]
        {
            ("Decided by", decided), ("Machine noise", experiment.MachineNoise?.Describe("this experiment")),
            ("Method", Method(experiment)), ("Blocks", Blocks(experiment)), ("Time", Time(experiment)),
            ("Noise", Noise(experiment)), ("Windows", Windows(experiment)),
        }.Where(f => f.Item2 is not null).Select(f => (f.Item1, f.Item2!))];
    }

    /// <summary>Blocks, precision target and stop reason; null for a result from before blocks were recorded.</summary>
    public static string? Blocks(ExperimentResult experiment)
    {
        if (experiment.Blocks <= 0)
        {
            return null;
        }
        var target = experiment.PrecisionTargetPercent is { } p ? $", precision target ±{Fmt.Num(p, 1)} %" : "";
        return $"{Fmt.Int(experiment.Blocks)} blocks{target}; stopped: {experiment.StopReason ?? "not recorded"}.";
    }

    /// <summary>How its blocks spent their processes, e.g. "in-process: each block is one process serving every variant, ...".</summary>
    public static string? Method(ExperimentResult experiment) =>
        BlockMethod.All.FirstOrDefault(m => m.Key == experiment.Method) is { } method ? $"{method.Key}: {method.Description}." : null;

    /// <summary>The duty cycle: how much of the experiment's wall time its intervals are made of; null when not recorded.</summary>
    public static string? Time(ExperimentResult experiment) => experiment.Time is not { Share: { } share } t ? null :
        $"{Fmt.Num(share * 100, 1)} % of its {Fmt.Duration(TimeSpan.FromSeconds(t.WallSeconds))} inside measured windows " +
        $"({Fmt.Num(t.MeasuredSeconds, 0)} s); the rest started, warmed up, traced and stopped its processes.";

    public static string? Noise(ExperimentResult experiment) => experiment.Noise is not { } n ? null :
        $"within a run {Fmt.Num(n.WithinRunCvPercent, 1)} % per second (alone it would give {Fmt.Num(n.ExpectedRunToRunCvPercent, 1)} % " +
        $"between runs); between runs {Fmt.Num(n.RunToRunCvPercent, 1)} % with the drift removed; " +
        $"drift {Fmt.Signed(n.DriftPercentPerRun, 2)} % " +
        $"per run ({Fmt.Num(n.DriftShare * 100, 0)} % of the spread), over {Fmt.Int(n.Runs)} runs.";

    /// <summary>How the runs warmed up and how their windows closed; null when there is nothing to say.</summary>
    public static string? Windows(ExperimentResult experiment)
    {
        var ok = experiment.Runs.Where(r => r.Status == RunStatus.Ok).ToList();
        var parts = new List<string>();
        var timed = ok.Where(r => r.Settled is not null && r.WarmupSeconds is not null).ToList();
        if (timed.Count > 0)
        {
            var settled = timed.Count(r => r.Settled != false);
            parts.Add($"warm-up {Fmt.Num(timed.Min(r => r.WarmupSeconds!.Value), 1)}-" +
                      $"{Fmt.Num(timed.Max(r => r.WarmupSeconds!.Value), 1)} s, " +
                      $"{Fmt.Int(settled)} of {Fmt.Int(timed.Count)} runs steady before the cap");
        }
        var tiered = ok.Where(r => r.Tiering is not null).ToList();
        if (tiered.Count > 0)
        {
            var settledAfter = tiered.Where(r => r.Tiering!.SettledAfterSeconds is not null)
                .Select(r => r.Tiering!.SettledAfterSeconds!.Value).ToList();
            parts.Add($"tiering settled in {Fmt.Int(settledAfter.Count)} of {Fmt.Int(tiered.Count)} warm-ups" +
                      (settledAfter.Count > 0 ? $" (after {Fmt.Num(settledAfter.Min(), 1)}-{Fmt.Num(settledAfter.Max(), 1)} s)" : "") +
                      $", then {Fmt.Num(tiered.Min(r => r.Tiering!.WindowCompilesPerSecond), 1)}-" +
                      $"{Fmt.Num(tiered.Max(r => r.Tiering!.WindowCompilesPerSecond), 1)} methods compiled a second in the windows");
        }
        var inFlight = ok.Sum(r => r.Scenarios.Sum(s => s.InFlightAtEnd));
        if (inFlight > 0)
        {
            parts.Add($"{Fmt.Int(inFlight)} requests in flight when windows closed "
                + $"(oldest {Fmt.Num(ok.Max(r => r.Scenarios.Max(s => s.InFlightOldestMs)), 0)} ms), reported, not counted");
        }
        var bounded = ok.Count(r => r.Scenarios.Any(s => s.BoundedByWindow));
        if (bounded > 0)
        {
            parts.Add($"{Fmt.Int(bounded)} runs bounded by the window (median latency over a fifth of it): lengthen the duration");
        }
        return parts.Count > 0 ? string.Join("; ", parts) + "." : null;
    }
}
