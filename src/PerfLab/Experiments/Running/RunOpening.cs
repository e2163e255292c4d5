using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.Experiments.Running.Blocks;
using PerfLab.Experiments.Running.Budget;
using PerfLab.Experiments.Running.Warmup;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Experiments.Running;

/// <summary>
/// The experiments with their minimum blocks shaped to the budget, and whether the minimum fits in what is left of it
/// (when not, the run goes on and ends late, as it said).
/// </summary>
public sealed record FittedBudget(IReadOnlyList<ExperimentDefinition> Experiments, bool Fits);

/// <summary>
/// What a run settles before its first block: how noisy the machine is today (a few seconds of a fixed CPU task), and
/// whether the minimum blocks fit the budget (shortened to fit, or refused before anything starts).
/// </summary>
public static class RunOpening
{
    /// <summary>
    /// Seconds outside any measurement, as measured on a quiet run of the default suite (2 cores; a busy machine takes
    /// longer, which the budget's later blocks read from the runs themselves): a SUT started, confirmed and stopped
    /// for one run of its own (1-3 s) or for its turn in a block of alternating slots (3.5 s a variant: gc's three SUTs
    /// started together, confirmed, their first requests and feeds, each slot's start and their stop took 10.5 s of a
    /// block, 2026-11-29; a block's warm-ups are counted apart); a variant's first run traced for 5 s and its trace
    /// analysed (6-7 s); per experiment, its analysis and the next one's first start.
    /// </summary>
    public const double SingleRunStartSeconds = 3;
    public const double AlternatingStartSeconds = 4;
    public const double TraceSeconds = 7;
    public const double ExperimentOverheadSeconds = 5;

    /// <summary>
    /// The estimate for one batch (or upload) of a counted run, whose profile duration is only a cap: the seeds' batches
    /// take 0.2-2 s (200 requests to a 150 ms endpoint; a 16 MB upload at 10 ms RTT).
    /// </summary>
    private const double CountedBatchSeconds = 2;

    public static async Task<CpuCalibration> CalibrateAsync(IRunObserver observer, CancellationToken ct)
    {
        // The cores' speed is sampled from here on: its full-speed reference is taken while the machine is calibrated.
        _ = CoreSpeed.Shared;
        var calibration = await CpuCalibration.RunAsync(ct: ct);
        observer.Report(string.Create(CultureInfo.InvariantCulture,
            $"this machine today: a busy thread had a core {calibration.CoreSharePercent:0} % of the time; "
                + $"{MachineNoise.CoreSpeed(calibration.SpeedCvPercent)} (a fixed task, {calibration.CpuMs.Count} times)"));
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
    /// The experiments with their profile fitted into what is left of <paramref name="budget"/> after
    /// <paramref name="spent"/> (perflab's build, the database's start, the variants' builds, a priming run: the
    /// budget counts from the invocation's start); unchanged without a budget or when the minimum fits. Throws a usage
    /// error, before anything is measured, when even the shortest timed minimum overruns the whole budget; when it
    /// overruns only what preparing left, the run goes on and says by how much it will end late (and
    /// <see cref="FittedBudget.Fits"/> is false).
    /// </summary>
    public static FittedBudget FitBudget(IReadOnlyList<ExperimentDefinition> experiments,
        ProfileName profileName, TimeSpan? budget, TimeSpan spent, bool traced,
        Func<ExperimentDefinition, (int Blocks, int Variants)> minimum, List<string> changes)
    {
        if (budget is not { } total || experiments.Count == 0)
        {
            return new FittedBudget(experiments, Fits: budget is not null);
        }
        var planned = experiments.Select(e => Minimum(e, e.Profiles[profileName], minimum(e), traced)).ToList();
        var left = total - spent;
        var fit = BudgetFit.Plan(planned, left > TimeSpan.Zero ? left : TimeSpan.Zero);
        // The time outside measurement and the length of counted runs are estimates: only the timed minimum itself,
        // shortened as far as it goes, refuses a run; an overrun the estimates alone predict is said, not refused.
        if (!fit.Fits && fit.Planned.Sum(e => e.KnownSeconds) > total.TotalSeconds)
        {
            throw new PerfLabException(fit.Describe(total), ExitCode.Usage);
        }
        // Said when the minimum had to be shortened or overruns (what preparing took is then part of why), not on every run.
        if (spent >= TimeSpan.FromSeconds(10) && (!fit.Fits || fit.Changes.Count > 0))
        {
            changes.Add($"{Said(spent)} of the {Said(total)} budget went to preparing (perflab's build, the database, the "
                + $"variants' builds, any priming run); the minimum blocks are planned into the {Said(left)} left");
        }
        changes.AddRange(fit.Changes);
        if (!fit.Fits)
        {
            changes.Add(string.Create(CultureInfo.InvariantCulture,
                $"the minimum blocks may take about {fit.NeededSeconds / 60:0.#} min with starts and traces, over the "
                    + $"{Math.Max(0, left.TotalMinutes):0.#} min left: the run ends once they are done"));
        }
        return new FittedBudget([.. experiments.Select((e, i) => Shaped(e, profileName, planned[i], fit.Planned[i]))], fit.Fits);
    }

    /// <summary>
    /// One experiment's minimum as the budget plans it: every warm-up at its cap (a warm-up until steady that never
    /// settles lasts exactly its cap), its slots or window, the time outside measurement per block, and its traces. A
    /// variant whose runtime tiers keeps its whole cap however short the budget (<see cref="TieredWarmup.Applies"/>).
    /// </summary>
    public static MinimumBlocks Minimum(ExperimentDefinition e, ProfileDefinition profile, (int Blocks, int Variants) minimum,
        bool traced)
    {
        var (blocks, variants) = minimum;
        var slots = profile.Slots ?? 1;
        // A capacity search's length is its steps', not known before it runs: an estimate, like a count of batches.
        var known = e.Capacity is null && e.RunsForItsDuration;
        var length = e.Capacity is not null ? RunPlan.PlannedRunSeconds(e, profile) - profile.Warmup.TotalSeconds
            : known ? profile.Duration.TotalSeconds
            : Math.Min(profile.Duration.TotalSeconds, CountedBatchSeconds * Math.Max(1, profile.Batches));
        var start = AlternatingBlock.Applies(e, profile) ? AlternatingStartSeconds : SingleRunStartSeconds;
        var once = ExperimentOverheadSeconds + (traced && e.Traced ? variants * TraceSeconds : 0);
        var floor = e.Variants.Any(v => TieredWarmup.Applies(profile, v))
            ? profile.Warmup.TotalSeconds
            : MinimumBlocks.ShortestWarmupSeconds;
        var atOnce = AlternatingBlock.Applies(e, profile) && AlternatingBlock.WarmsUpAtOnce(profile, e.Variants);
        return new MinimumBlocks(e.Name, blocks, variants, profile.Warmup.TotalSeconds, slots, length / slots,
            variants * start + once / Math.Max(1, blocks), known, floor, atOnce);
    }

    /// <summary>A duration as the run's messages say it: seconds under two minutes, else minutes.</summary>
    public static string Said(TimeSpan time) => time.TotalSeconds < 120
        ? string.Create(CultureInfo.InvariantCulture, $"{Math.Max(0, time.TotalSeconds):0} s")
        : string.Create(CultureInfo.InvariantCulture, $"{time.TotalMinutes:0.#} min");

    private static ExperimentDefinition Shaped(ExperimentDefinition e, ProfileName profileName, MinimumBlocks planned,
        MinimumBlocks shaped)
    {
        if (shaped.WarmupSeconds == planned.WarmupSeconds && shaped.Slots == planned.Slots)
        {
            return e;
        }
        var profile = e.Profiles[profileName];
        var fitted = profile with
        {
            Warmup = TimeSpan.FromSeconds(shaped.WarmupSeconds),
            Slots = profile.Slots is null ? null : shaped.Slots,
            Duration = profile.Slots is null ? profile.Duration : TimeSpan.FromSeconds(shaped.SlotSeconds * shaped.Slots),
        };
        return e with { Profiles = e.Profiles.ToDictionary(p => p.Key, p => p.Key == profileName ? fitted : p.Value) };
    }
}
