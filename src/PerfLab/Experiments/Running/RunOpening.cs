using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running;

/// <summary>
/// What a run settles before its first block: how noisy the machine is today (a few seconds of a fixed CPU task), and
/// whether the minimum blocks fit the budget (shortened to fit, or refused before anything starts).
/// </summary>
public static class RunOpening
{
    /// <summary>
    /// Seconds outside any measurement per run (SUT start and stop,
    /// /info) and per experiment (traces analysed, the next planned).
    /// </summary>
    private const double RunOverheadSeconds = 5;
    private const double ExperimentOverheadSeconds = 45;

    /// <summary>
    /// The estimate for one batch (or upload) of a counted run, whose profile duration is only a cap: the seeds' batches
    /// take 0.2-2 s (200 requests to a 150 ms endpoint; a 16 MB upload at 10 ms RTT).
    /// </summary>
    private const double CountedBatchSeconds = 2;

    public static async Task<CpuCalibration> CalibrateAsync(IRunObserver observer, CancellationToken ct)
    {
        var calibration = await CpuCalibration.RunAsync(ct: ct);
        observer.Message(string.Create(CultureInfo.InvariantCulture,
            $"this machine today: a busy thread had a core {calibration.CoreSharePercent:0} % of the time; the core's speed "
                + $"varied {calibration.SpeedCvPercent:0.#} % (a fixed task, {calibration.CpuMs.Count} times)"));
        return calibration;
    }

    /// <summary>
    /// The report's first line: the calibration with the per-second throughput of the first measured run that has a
    /// steady one (timed, not counted in batches whose completions come in bursts, not a capacity search, and three
    /// seconds with completions at least: a run whose requests take longer than its seconds, such as a starved
    /// blocking variant's, has none),
    /// for the shape of that experiment's blocks; null before any run succeeded.
    /// </summary>
    public static MachineNoise? AtStart(CpuCalibration calibration, IReadOnlyList<ExperimentResult> results)
    {
        var measured = results.SelectMany(e => e.Runs.Where(r => r.Status == RunStatus.Ok).Select(r => (Experiment: e, Run: r))).ToList();
        if (measured.Count == 0)
        {
            return null;
        }
        static List<double> PerSecond(RunRecord run) => run.Timeline.Select(p => p.Rps).Where(r => r > 0).ToList();
        // A capacity search's timeline is its steps' rising rates, not a steady load: its seconds say nothing of noise.
        static bool Steady(RunRecord run) => run.BatchTimesMs.Count == 0 && run.Capacity is null;
        var (first, run) = measured.FirstOrDefault(m => Steady(m.Run)
            && double.IsFinite(NoiseEstimate.SecondToSecondCvPercent(PerSecond(m.Run))), measured[0]);
        var perSecond = Steady(run) ? PerSecond(run) : [];
        var windows = run.Cost?.Windows ?? [];
        var shape = windows.Count > 0
            ? new BlockShape(first.Blocks, windows.Count, windows.Average(w => w.Seconds))
            : new BlockShape(first.Blocks, 1, first.Duration.TotalSeconds);
        return NoiseEstimate.AtStart(perSecond, calibration, shape);
    }

    /// <summary>
    /// The experiments with their profile fitted into <paramref name="budget"/> (unchanged without one, or when the
    /// minimum fits); throws a usage error, before anything starts, when even the shortest minimum overruns it.
    /// </summary>
    public static IReadOnlyList<ExperimentDefinition> FitBudget(IReadOnlyList<ExperimentDefinition> experiments,
        ProfileName profileName, TimeSpan? budget,
        Func<ExperimentDefinition, (int Blocks, int Variants)> minimum, List<string> changes)
    {
        if (budget is not { } total || experiments.Count == 0)
        {
            return experiments;
        }
        var planned = experiments.Select(e =>
        {
            var profile = e.Profiles[profileName];
            var (blocks, variants) = minimum(e);
            var slots = profile.Slots ?? 1;
            // A capacity search's length is its steps', not known before it runs: an estimate, like a count of batches.
            var known = e.Capacity is null && e.RunsForItsDuration;
            var length = e.Capacity is not null ? RunPlan.PlannedRunSeconds(e, profile) - profile.Warmup.TotalSeconds
                : known ? profile.Duration.TotalSeconds
                : Math.Min(profile.Duration.TotalSeconds, CountedBatchSeconds * Math.Max(1, profile.Batches));
            return new MinimumBlocks(e.Name, blocks, variants, profile.Warmup.TotalSeconds, slots, length / slots,
                variants * RunOverheadSeconds + ExperimentOverheadSeconds / Math.Max(1, blocks), known);
        }).ToList();
        var fit = BudgetFit.Plan(planned, total);
        // The time outside measurement and the length of counted runs are estimates: only the timed minimum itself,
        // shortened as far as it goes, refuses a run; an overrun the estimates alone predict is said, not refused.
        if (!fit.Fits && fit.Planned.Sum(e => e.KnownSeconds) > total.TotalSeconds)
        {
            throw new PerfLabException(fit.Describe(total), ExitCode.Usage);
        }
        changes.AddRange(fit.Changes);
        if (!fit.Fits)
        {
            changes.Add(string.Create(CultureInfo.InvariantCulture,
                $"the minimum blocks may take about {fit.NeededSeconds / 60:0.#} min with starts and traces, over the budget: "
                    + $"the run ends once they are done"));
        }
        return experiments.Select((e, i) =>
        {
            var profile = e.Profiles[profileName];
            var shaped = fit.Planned[i];
            if (shaped.WarmupSeconds == planned[i].WarmupSeconds && shaped.Slots == planned[i].Slots)
            {
                return e;
            }
            var fitted = profile with
            {
                Warmup = TimeSpan.FromSeconds(shaped.WarmupSeconds),
                Slots = profile.Slots is null ? null : shaped.Slots,
                Duration = profile.Slots is null ? profile.Duration : TimeSpan.FromSeconds(shaped.SlotSeconds * shaped.Slots),
            };
            return e with { Profiles = e.Profiles.ToDictionary(p => p.Key, p => p.Key == profileName ? fitted : p.Value) };
        }).ToList();
    }
}
