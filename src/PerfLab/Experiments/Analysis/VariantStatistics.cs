using System.Globalization;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>Turns the runs of one experiment into summaries, comparisons, findings and claim checks.</summary>
public static class VariantStatistics
{
    /// <summary>The noise floor used when no A/A run has been recorded on this machine.</summary>
    public const double DefaultNoiseFloorPercent = 5;

    public static IReadOnlyList<VariantSummary> Summarize(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs)
    {
        return experiment.Variants.Select(variant =>
        {
            var ok = runs.Where(r => r.Variant == variant.Name && r.Status == RunStatus.Ok).ToList();
            var scenarios = experiment.Scenarios.ToDictionary(
                s => s.Name,
                s => (IReadOnlyDictionary<string, Estimate>)Metrics.Where(m => m != "batch-mean-ms").ToDictionary(
                    m => m, m => Statistics.Estimate(ok.Select(r => MetricOf(r, s.Name, m)).Where(double.IsFinite).ToList())));
            var counterNames = ok.SelectMany(r => r.Counters.Keys).Distinct().Order(StringComparer.Ordinal);
            return new VariantSummary
            {
                Variant = variant.Name,
                SuccessfulRuns = ok.Count,
                FailedRuns = runs.Count(r => r.Variant == variant.Name && r.Status == RunStatus.Failed),
                Scenarios = scenarios,
                AllRps = ok.Count == 0 ? null : Statistics.Estimate(ok.Select(r => r.Scenarios.Sum(s => s.Rps)).ToList()),
                BatchMeanMs = ok.Any(r => r.BatchTimesMs.Count > 0)
                    ? Statistics.Estimate(ok.Where(r => r.BatchTimesMs.Count > 0).Select(r => r.BatchTimesMs.Average()).ToList())
                    : null,
                Counters = counterNames.ToDictionary(
                    name => name,
                    name => Statistics.Estimate(ok.Where(r => r.Counters.ContainsKey(name)).Select(r => r.Counters[name]).ToList())),
                Efficiency = EfficiencyNames.ToDictionary(
                    name => name,
                    name => Statistics.Estimate(ok.Select(r => Efficiency(r, name)).Where(double.IsFinite).ToList())),
            };
        }).ToList();
    }

    public static readonly IReadOnlyList<string> Metrics = ClaimDefinition.Metrics;
    public static readonly IReadOnlyList<string> EfficiencyNames = ["cpu-ms-per-request", "alloc-kb-per-request", "gc-pause-ms-per-request"];

    public static bool HigherIsBetter(string metric) => metric == "rps";

    /// <summary>One run's figure for a metric: a scenario's, or all scenarios together ("all").</summary>
    public static double MetricOf(RunRecord run, string scenario, string metric)
    {
        if (metric == "batch-mean-ms")
        {
            return run.BatchTimesMs.Count > 0 ? run.BatchTimesMs.Average() : double.NaN;
        }
        var stats = scenario == "all" ? run.Scenarios : run.Scenarios.Where(s => s.Scenario == scenario).ToList();
        if (stats.Count == 0)
        {
            return double.NaN;
        }
        var requests = stats.Sum(s => s.Requests);
        return metric switch
        {
            "rps" => stats.Sum(s => s.Rps),
            // All scenarios together: the request-weighted mean, and the worst p99.
            "mean-ms" => requests == 0 ? double.NaN : stats.Sum(s => s.MeanMs * s.Requests) / requests,
            "p99-ms" => stats.Max(s => s.P99Ms),
            _ => double.NaN,
        };
    }

    /// <summary>
    /// Per-request cost, so that variants compare fairly at different RPS. CPU from cpu-usage (percent of all
    /// cores), allocation from alloc-rate (bytes per second), GC pause from time-in-gc (percent of wall time).
    /// </summary>
    public static double Efficiency(RunRecord run, string name)
    {
        var rps = run.Scenarios.Sum(s => s.Rps);
        if (rps <= 0)
        {
            return double.NaN;
        }
        double Counter(string counter) => run.Counters.TryGetValue(counter, out var v) ? v : double.NaN;
        return name switch
        {
            "cpu-ms-per-request" => Counter(CounterNames.CpuUsage) / 100 * SutCores(run) * 1000 / rps,
            // KB = 1,000 bytes, as the counters' MB are 1,000,000 bytes.
            "alloc-kb-per-request" => Counter(CounterNames.AllocRate) / 1000 / rps,
            "gc-pause-ms-per-request" => Counter(CounterNames.TimeInGc) / 100 * 1000 / rps,
            _ => double.NaN,
        };
    }

    /// <summary>The cores the SUT process saw (its /info), which cpu-usage is a share of.</summary>
    public static int SutCores(RunRecord run) =>
        run.SutInfo.TryGetValue("processorCount", out var c) && int.TryParse(c, CultureInfo.InvariantCulture, out var n) ? n : Environment.ProcessorCount;

    /// <param name="noiseFloor">The floor measured by an A/A run for a scenario and metric, or null for the default.</param>
    /// <param name="measuredFloorSource">How a floor the function gives is described ("measured", or for an A/A run none at all).</param>
    public static IReadOnlyList<Comparison> Compare(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs,
        Func<string, string, double?> noiseFloor, string measuredFloorSource = "measured")
    {
        var results = new List<Comparison>();
        var burst = experiment.Scenarios.Any(s => s.Model.CountsBatches);
        var targets = burst
            ? [("all", "batch-mean-ms")]
            : experiment.Scenarios.Select(s => s.Name).Prepend("all").Distinct()
                .SelectMany(s => new[] { (s, "rps"), (s, "mean-ms"), (s, "p99-ms") })
                .Where(t => experiment.Scenarios.Count > 1 || t.Item1 == "all")
                .ToArray();
        foreach (var variant in experiment.Variants.Where(v => v.Name != experiment.Baseline))
        {
            foreach (var (scenario, metric) in targets)
            {
                var floor = noiseFloor(scenario, metric);
                results.Add(CompareOne(runs, experiment.Baseline, variant.Name, scenario, metric,
                    floor ?? DefaultNoiseFloorPercent, floor is null ? "default" : measuredFloorSource));
            }
        }
        return results;
    }

    /// <summary>
    /// One variant against another on one metric: paired within blocks when at least two blocks hold a successful run
    /// of both (the interleaved runner's case), else Welch on the two groups.
    /// </summary>
    public static Comparison CompareOne(IReadOnlyList<RunRecord> runs, string against, string variant, string scenario,
        string metric, double noiseFloorPercent, string floorSource = "default")
    {
        var higher = HigherIsBetter(metric);
        var pairs = Pairs(runs, against, variant, scenario, metric);
        var paired = pairs.Count >= 2;
        var (change, low, high, verdict) = paired
            ? Statistics.ComparePaired(pairs, higher, noiseFloorPercent)
            : Statistics.Compare(Values(runs, against, scenario, metric), Values(runs, variant, scenario, metric), higher, noiseFloorPercent);
        var halfWidth = (high - low) / 2;
        return new Comparison
        {
            Variant = variant,
            Scenario = scenario,
            Metric = metric,
            HigherIsBetter = higher,
            ChangePercent = change,
            LowPercent = low,
            HighPercent = high,
            NoiseFloorPercent = noiseFloorPercent,
            NoiseFloorSource = floorSource,
            Method = paired ? "paired" : "welch",
            Pairs = paired ? pairs.Count : 0,
            MinimumDetectableEffectPercent = double.IsFinite(halfWidth) ? Math.Max(halfWidth, noiseFloorPercent) : null,
            Verdict = verdict,
        };
    }

    private static List<double> Values(IReadOnlyList<RunRecord> runs, string variant, string scenario, string metric) =>
        runs.Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
            .Select(r => MetricOf(r, scenario, metric)).Where(double.IsFinite).ToList();

    /// <summary>The two variants' figures in each block (RunRecord.Repetition) where both ran successfully.</summary>
    public static List<(double Baseline, double Candidate)> Pairs(IReadOnlyList<RunRecord> runs, string against, string variant,
        string scenario, string metric) =>
        runs.Where(r => r.Status == RunStatus.Ok && (r.Variant == against || r.Variant == variant))
            .GroupBy(r => r.Repetition)
            .Select(block => (
                Baseline: block.Where(r => r.Variant == against).Select(r => MetricOf(r, scenario, metric)).FirstOrDefault(double.NaN),
                Candidate: block.Where(r => r.Variant == variant).Select(r => MetricOf(r, scenario, metric)).FirstOrDefault(double.NaN)))
            .Where(p => double.IsFinite(p.Baseline) && double.IsFinite(p.Candidate))
            .ToList();

    /// <summary>
    /// How often the verdict rule calls a difference between two groups of <paramref name="groupSize"/> runs drawn at
    /// random from runs that are all the same configuration (an A/A run): the false-positive rate on this machine's
    /// real noise. Splits are drawn with a fixed seed, so the figure is reproducible from results.json.
    /// </summary>
    public static double FalsePositiveRate(IReadOnlyList<RunRecord> sameConfigurationRuns, string scenario, string metric,
        int groupSize, double noiseFloorPercent, int trials = 2000, int seed = 20261121)
    {
        var values = sameConfigurationRuns.Where(r => r.Status == RunStatus.Ok)
            .Select(r => MetricOf(r, scenario, metric)).Where(v => double.IsFinite(v) && v > 0).ToArray();
        if (values.Length < 2 * groupSize)
        {
            return double.NaN;
        }
        var random = new Random(seed);
        var calls = 0;
        for (var trial = 0; trial < trials; trial++)
        {
            random.Shuffle(values);
            var verdict = Statistics.Compare(values[..groupSize], values[groupSize..(2 * groupSize)], HigherIsBetter(metric), noiseFloorPercent).Verdict;
            if (verdict is Verdict.Better or Verdict.Worse)
            {
                calls++;
            }
        }
        return (double)calls / trials;
    }

    /// <summary>
    /// The paired counterpart of <see cref="FalsePositiveRate"/>: in an A/A run the two labels of a block are
    /// exchangeable, so each trial swaps them at random in every pair (a sign flip of its log-ratio) and applies the
    /// paired verdict rule. Reproducible from results.json (fixed seed).
    /// </summary>
    public static double PairedFalsePositiveRate(IReadOnlyList<(double Baseline, double Candidate)> pairs, string metric,
        double noiseFloorPercent, int trials = 2000, int seed = 20261121)
    {
        if (pairs.Count < 2)
        {
            return double.NaN;
        }
        var random = new Random(seed);
        var calls = 0;
        var flipped = new (double, double)[pairs.Count];
        for (var trial = 0; trial < trials; trial++)
        {
            for (var i = 0; i < pairs.Count; i++)
            {
                flipped[i] = random.Next(2) == 0 ? pairs[i] : (pairs[i].Candidate, pairs[i].Baseline);
            }
            if (Statistics.ComparePaired(flipped, HigherIsBetter(metric), noiseFloorPercent).Verdict is Verdict.Better or Verdict.Worse)
            {
                calls++;
            }
        }
        return (double)calls / trials;
    }

    public static IReadOnlyList<ClaimCheck> CheckClaims(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs,
        Func<string, string, double?> noiseFloor)
    {
        return experiment.Claims.Select(claim =>
        {
            var measured = runs.Any(r => r.Variant == claim.Variant && r.Status == RunStatus.Ok)
                && runs.Any(r => r.Variant == claim.Against && r.Status == RunStatus.Ok);
            if (!measured)
            {
                return new ClaimCheck
                {
                    Seed = experiment.Seed,
                    Claim = claim.Text,
                    SeedFigure = claim.SeedFigure,
                    OurFigure = "not measured",
                    DirectionHolds = null,
                    Note = $"no successful run of {claim.Variant} and {claim.Against} in this result",
                };
            }
            var comparison = CompareOne(runs, claim.Against, claim.Variant, claim.Scenario, claim.Metric,
                noiseFloor(claim.Scenario, claim.Metric) ?? DefaultNoiseFloorPercent);
            double Median(string v) => Descriptive.Median(runs.Where(r => r.Variant == v && r.Status == RunStatus.Ok)
                .Select(r => MetricOf(r, claim.Scenario, claim.Metric)).Where(double.IsFinite).ToList());
            var unit = claim.Metric == "rps" ? "RPS" : "ms";
            static string Figure(double v) => double.IsFinite(v) ? v.ToString("0.#", CultureInfo.InvariantCulture) : "none";
            var change = double.IsFinite(comparison.ChangePercent)
                ? comparison.ChangePercent.ToString("+0;-0", CultureInfo.InvariantCulture) + " %"
                : "n/a";
            var ours = $"{Figure(Median(claim.Against))} -> {Figure(Median(claim.Variant))} {unit} ({change})";
            var fewRuns = Math.Min(runs.Count(r => r.Variant == claim.Variant && r.Status == RunStatus.Ok),
                runs.Count(r => r.Variant == claim.Against && r.Status == RunStatus.Ok)) < 2;
            var sameWay = double.IsFinite(comparison.ChangePercent) && comparison.ChangePercent > 0 == claim.SeedChangePercent > 0;
            bool? holds = comparison.Verdict switch
            {
                Verdict.NotEnoughData => null,
                Verdict.NoDifferenceDetected => false,
                _ => sameWay,
            };
            var note = comparison.Verdict switch
            {
                Verdict.NotEnoughData when fewRuns => "one repetition: no interval, direction only (run with --repeat 3 or more)",
                Verdict.NotEnoughData => "a variant completed no requests in the measured window (a figure of 0 has no ratio): lengthen the profile's warm-up or duration",
                Verdict.NoDifferenceDetected => string.Create(CultureInfo.InvariantCulture,
                    $"no difference detected: 95 % interval [{comparison.LowPercent:+0.0;-0.0}, {comparison.HighPercent:+0.0;-0.0}] %, noise floor {comparison.NoiseFloorPercent:0.#} %"),
                _ when sameWay => string.Create(CultureInfo.InvariantCulture,
                    $"same direction; 95 % interval [{comparison.LowPercent:+0.0;-0.0}, {comparison.HighPercent:+0.0;-0.0}] %"),
                _ => string.Create(CultureInfo.InvariantCulture,
                    $"opposite direction; 95 % interval [{comparison.LowPercent:+0.0;-0.0}, {comparison.HighPercent:+0.0;-0.0}] %"),
            };
            return new ClaimCheck
            {
                Seed = experiment.Seed,
                Claim = claim.Text,
                SeedFigure = claim.SeedFigure,
                OurFigure = ours,
                DirectionHolds = holds,
                Note = note,
            };
        }).ToList();
    }
}
