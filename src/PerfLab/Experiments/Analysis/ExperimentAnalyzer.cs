using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>What the analysis of one experiment needs to know of the invocation.</summary>
/// <param name="Noise">The floors a verdict must clear; an A/A run compares against zero and records its changes afterwards.</param>
/// <param name="Margin">`--margin`: the margin an equivalent lies within, over every experiment file's <c>margin:</c>.</param>
public sealed record AnalysisSettings(ProfileName Profile, int? Repeat, bool Aa, NoiseFloors Noise, double? Margin = null);

/// <summary>Turns an experiment's runs into its result: summaries, comparisons, findings, claims and notes.</summary>
public static class ExperimentAnalyzer
{
    /// <param name="pooled">
    /// The comparisons when they come from elsewhere (pooled over invocations, <see cref="InvocationPooling"/>): the
    /// claims are judged on them too; null: compared from <paramref name="runs"/>.
    /// </param>
    public static ExperimentResult Analyze(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs, AnalysisSettings settings,
        IReadOnlyList<Comparison>? pooled = null)
    {
        var variants = experiment.VariantsToRun(settings.Aa);
        var analyzed = experiment with { Variants = variants, Claims = settings.Aa ? [] : experiment.Claims };
        var margin = settings.Margin ?? experiment.Margin ?? VerdictBounds.DefaultMarginPercent;
        VerdictBounds Bounds(string scenario, Metric metric) => settings.Aa
            ? new VerdictBounds(0, "none (A/A: compared against zero)", margin)
            : settings.Noise.Bounds(scenario, metric, margin);
        var comparisons = pooled ?? VariantStatistics.Compare(analyzed, runs, Bounds);
        var profile = experiment.Profiles[settings.Profile];
        var result = new ExperimentResult
        {
            Name = experiment.Name,
            Title = experiment.Title + (settings.Aa ? " (A/A: the baseline against itself)" : ""),
            Seed = experiment.Seed,
            Reproduces = experiment.Reproduces,
            FileHash = experiment.FileHash,
            Baseline = experiment.Baseline,
            LoadDescription = DescribeLoad(experiment, profile),
            Variants = variants.Select(v => v.Name).ToList(),
            Scenarios = experiment.Scenarios.Select(s => s.Name).ToList(),
            Warmup = profile.Warmup,
            Duration = profile.Duration,
            Runs = runs,
            Summaries = VariantStatistics.Summarize(analyzed, runs),
            Comparisons = comparisons,
            Findings = Diagnosis.Diagnose(analyzed, runs),
            Claims = VariantStatistics.CheckClaims(analyzed, runs, Bounds, pooled is null ? null : claim => pooled.FirstOrDefault(c =>
                claim.Against == experiment.Baseline && c.Variant == claim.Variant && c.Scenario == claim.Scenario
                && c.Metric == claim.Metric)),
            Notes = settings.Aa
                ? AaNotes(analyzed, runs, comparisons, settings.Repeat ?? profile.Repeat, settings.Noise)
                : NotesOf(experiment, runs),
            Noise = NoiseAnalysis.Of(runs),
            MachineNoise = NoiseEstimate.OfRuns(experiment.Baseline, runs),
            DecidedBy = experiment.Decide,
            Conditions = experiment.Conditions.IsEmpty ? null : experiment.Conditions,
            SweepPoint = experiment.Point,
            App = experiment.App is { } app ? $"{app.Kind.ToString().ToLowerInvariant()} {app.Path}" : "the built-in SUT",
            VariantEffects = variants.Select(v => Effects(v.Name, runs)).ToList(),
        };
        // What its blocks could decide, read from its comparisons: the slot formula leaves out the blocks' own spread.
        return result with { MachineNoise = DecidableNoise.Of(result.MachineNoise, [result]) };
    }

    /// <summary>A variant's confirmed and unconfirmed switches, as its runs saw them (each item once).</summary>
    private static VariantEffectSummary Effects(string variant, IReadOnlyList<RunRecord> runs)
    {
        var own = runs.Where(r => r.Variant == variant).ToList();
        return new VariantEffectSummary(variant,
            own.SelectMany(r => r.Confirmed).Distinct().ToList(),
            own.SelectMany(r => r.Unconfirmed).Distinct().ToList());
    }

    /// <summary>For an A/A run: the false-positive rate of the verdict rule, resampled from all its runs.</summary>
    private static IReadOnlyList<string> AaNotes(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs,
        IReadOnlyList<Comparison> comparisons, int repeat, NoiseFloors noise)
    {
        var notes = new List<string>();
        foreach (var c in comparisons.Where(c => c.Scenario == "all"))
        {
            // The floor a non-A/A run of the metric would clear now, from the A/A changes recorded before this one.
            var floor = noise.Bounds(c.Scenario, c.Metric, VerdictBounds.DefaultMarginPercent).FloorPercent;
            var (bare, withFloor, trialsOf) = c.Method == "paired"
                ? PairedRates(runs, experiment.Baseline, c, floor)
                : UnpairedRates(runs, c, repeat, floor);
            if (double.IsFinite(bare))
            {
                notes.Add(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                    $"A/A false positives ({c.Metric}, all scenarios): over 2000 {trialsOf}, the interval alone called a "
                        + $"difference {bare * 100:0.0} % of the time; with the machine's A/A spread as the floor ({floor:0.0} "
                        + $"%, {noise.SourceOf(c.Scenario, c.Metric)}), {withFloor * 100:0.0} %."));
            }
        }
        return notes;
    }

    private static (double Bare, double WithFloor, string TrialsOf) PairedRates(IReadOnlyList<RunRecord> runs, string baseline,
        Comparison c, double floor)
    {
        var pairs = VariantStatistics.Pairs(runs, baseline, c.Variant, c.Scenario, c.Metric);
        return (VariantStatistics.PairedFalsePositiveRate(pairs, c.Metric, 0),
            VariantStatistics.PairedFalsePositiveRate(pairs, c.Metric, floor),
            $"random relabellings of the two runs in each of the {pairs.Count} blocks");
    }

    private static (double Bare, double WithFloor, string TrialsOf) UnpairedRates(IReadOnlyList<RunRecord> runs, Comparison c,
        int repeat, double floor)
    {
        var ok = runs.Count(r => r.Status == RunStatus.Ok);
        var groupSize = Math.Min(repeat, ok / 2);
        return (VariantStatistics.FalsePositiveRate(runs, c.Scenario, c.Metric, groupSize, 0),
            VariantStatistics.FalsePositiveRate(runs, c.Scenario, c.Metric, groupSize, floor),
            $"random splits of the {ok} runs into two groups of {groupSize}");
    }

    private static IReadOnlyList<string> NotesOf(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs)
    {
        var notes = DatabasePathNotes(experiment, runs);
        if (DatabaseEdgesMissed(runs) is { } missed)
        {
            notes.Add(missed);
        }
        if (SpikesLeftOut(runs) is { } spikes)
        {
            notes.Add(spikes);
        }
        var measured = runs.Where(r => r.MeasuredRttMs is { } m && double.IsFinite(m)).Select(r => r.MeasuredRttMs!.Value).ToList();
        // A scenario sent through a latency proxy (uploads): the path as configured and as measured.
        if (experiment.Scenarios.Select(s => s.Model.PathRtt).FirstOrDefault(r => r is not null) is { } rtt)
        {
            var inv = System.Globalization.CultureInfo.InvariantCulture;
            var through = measured.Count > 0
                ? string.Create(inv, $"measured through it: median {Statistics.Median(measured):0.0} ms (TCP round trips of small "
                    + $"messages, 20 per run, median over {measured.Count} runs).")
                : "not measured.";
            notes.Add(string.Create(inv,
                $"Network path: {rtt.TotalMilliseconds:0.#} ms RTT configured on the latency proxy (each chunk "
                    + $"held {rtt.TotalMilliseconds / 2:0.#} ms each way, bandwidth not limited); {through}"));
        }
        return notes;
    }

    /// <summary>
    /// Windows whose database part was not read while others' was (a db role that did not answer an edge within its 2 s):
    /// said, since CPU per request is then read over fewer windows than were measured. Null when there were none.
    /// </summary>
    private static string? DatabaseEdgesMissed(IReadOnlyList<RunRecord> runs)
    {
        var costs = runs.Where(r => r.Status == RunStatus.Ok && r.Cost is not null).Select(r => r.Cost!).ToList();
        var missed = costs.Sum(c => c.WindowsWithoutDatabase);
        return missed == 0 ? null
            : $"CPU per request: the database's backends were not read at the edges of {missed} of {costs.Sum(c => c.Windows.Count)} "
                + "measured windows (the db role did not answer in time); those windows are left out of the figure, which counts "
                + "the app and its database together over the windows read whole.";
    }

    /// <summary>
    /// Slots left out of CPU per request at full speed as spikes (<see cref="CpuCost.IsSpike"/>), by variant; null when none.
    /// </summary>
    private static string? SpikesLeftOut(IReadOnlyList<RunRecord> runs)
    {
        var spiked = runs.Where(r => r.Status == RunStatus.Ok && r.Cost is { SpikedWindows: > 0 })
            .GroupBy(r => r.Variant).Select(g => $"{g.Key} {g.Sum(r => r.Cost!.SpikedWindows)}").ToList();
        var slots = runs.Where(r => r.Status == RunStatus.Ok).Sum(r => r.Cost?.Windows.Count ?? 0);
        return spiked.Count == 0 ? null
            : string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"CPU per request at full speed: slots left out as spikes, each over {CpuCost.SpikeRatio:0.0} times its run's median ")
                + $"slot ({string.Join(", ", spiked)} of {slots} slots): what the machine did in those seconds, not the variant "
                + "(docs/cost.md, \"Spikes\").";
    }

    /// <summary>Per variant with a database RTT: configured, and measured through the proxy and directly (medians over runs).</summary>
    private static List<string> DatabasePathNotes(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs)
    {
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        var notes = new List<string>();
        foreach (var variant in experiment.Variants)
        {
            var configured = experiment.Conditions.Under(variant.Conditions).DatabaseRttMs;
            var paths = runs.Where(r => r.Variant == variant.Name && r.DatabasePath is not null).Select(r => r.DatabasePath!).ToList();
            if (configured is not { } rtt)
            {
                continue;
            }
            var measured = paths.Count > 0
                ? string.Create(inv, $"SELECT 1 through it {Statistics.Median(paths.Select(p => p.MeasuredRttMs).ToList()):0.000} ms, "
                    + $"directly {Statistics.Median(paths.Select(p => p.DirectRttMs).ToList()):0.000} ms (each the median "
                    + $"of {paths[0].Queries} queries before the run, then the median over {paths.Count} runs)")
                : "not measured (no run reached it)";
            notes.Add(string.Create(inv,
                $"Database path of {variant.Name}: {rtt:0.###} ms RTT configured on a latency proxy between the SUT and PostgreSQL (half "
                    + $"held each way, bandwidth not limited; the proxy runs in perflab's process, so its CPU counts as "
                    + $"the generator's); {measured}."));
        }
        return notes;
    }

    public static string DescribeLoad(ExperimentDefinition experiment, ProfileDefinition profile) =>
        DescribeScenarios(experiment, profile)
        + (profile.Slots is { } slots
            ? $"; the variants of a block run at once and take turns, {slots} {(profile.Window is null ? "slots" : "windows")} of "
                + $"{DurationText.Format(profile.Duration / slots)} each"
                + (profile.Window is null ? "" : " on held load, the others stopped")
            : "")
        + (profile.Env.Count == 0
            ? ""
            : "; every variant's SUT runs with " + string.Join(", ", profile.Env.Select(p => $"{p.Key}={p.Value}")))
        + DescribeConditions(experiment);

    /// <summary>"; conditions: database RTT 1 ms; sync: SUT on 1 core", or nothing when none are set.</summary>
    private static string DescribeConditions(ExperimentDefinition experiment)
    {
        var parts = new List<string>();
        if (experiment.Sweep is { } sweep)
        {
            parts.Add($"swept: {ConditionNames.Name(sweep.Condition)} "
                + $"over {string.Join(", ", sweep.Values.Select(v => ConditionNames.Value(sweep.Condition, v)))}");
        }
        if (!experiment.Conditions.IsEmpty)
        {
            parts.Add(experiment.Conditions.Describe());
        }
        parts.AddRange(experiment.Variants.Where(v => !v.Conditions.IsEmpty).Select(v => $"{v.Name}: {v.Conditions.Describe()}"));
        return parts.Count == 0 ? "" : "; conditions: " + string.Join("; ", parts);
    }

    private static string DescribeScenarios(ExperimentDefinition experiment, ProfileDefinition profile) =>
        string.Join("; ", experiment.Scenarios.Select(s => $"{s.Name}: " + (experiment.Capacity is { } capacity
            ? $"{capacity.Describe()}, each step {DurationText.Format(profile.Duration)} after "
                + $"{DurationText.Format(profile.Warmup)} of warm-up"
            : s.Model.ForProfile(profile.Shape).Describe())));
}
