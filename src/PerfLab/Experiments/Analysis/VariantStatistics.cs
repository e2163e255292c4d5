using System.Globalization;
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
            Estimate Over(Metric metric, string scenario) =>
                Statistics.Estimate(ok.Select(r => metric.Read(r, scenario)).Where(double.IsFinite).ToList());
            var counterNames = ok.SelectMany(r => r.Counters.Keys).Distinct().Order(StringComparer.Ordinal);
            return new VariantSummary
            {
                Variant = variant.Name,
                SuccessfulRuns = ok.Count,
                FailedRuns = runs.Count(r => r.Variant == variant.Name && r.Status == RunStatus.Failed),
                Scenarios = experiment.Scenarios.ToDictionary(
                    s => s.Name,
                    s => (IReadOnlyDictionary<string, Estimate>)Metrics.Compared.ToDictionary(m => m.Key, m => Over(m, s.Name))),
                AllRps = ok.Count == 0 ? null : Over(Metrics.Rps, Metric.AllScenarios),
                BatchMeanMs = ok.Any(r => r.BatchTimesMs.Count > 0) ? Over(Metrics.BatchMeanMs, Metric.AllScenarios) : null,
                Counters = counterNames.ToDictionary(
                    name => name,
                    name => Statistics.Estimate(ok.Where(r => r.Counters.ContainsKey(name)).Select(r => r.Counters[name]).ToList())),
                Efficiency = Metrics.Efficiency.ToDictionary(m => m.Key, m => Over(m, Metric.AllScenarios)),
            };
        }).ToList();
    }

    /// <summary>One run's figure for a metric: a scenario's, or all scenarios together ("all").</summary>
    public static double MetricOf(RunRecord run, string scenario, Metric metric) => metric.Read(run, scenario);

    /// <param name="bounds">
    /// For a scenario and metric: the floor a better or worse must clear, and the margin an equivalent must lie within.
    /// </param>
    public static IReadOnlyList<Comparison> Compare(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs,
        Func<string, Metric, VerdictBounds> bounds)
    {
        var results = new List<Comparison>();
        // A run's one figure (a batch time, a capacity) is compared alone; throughput per scenario, with latency beside it.
        var primary = experiment.PrimaryMetric;
        var targets = primary.Role == MetricRole.Batch
            ? [(Metric.AllScenarios, primary)]
            : experiment.Scenarios.Select(s => s.Name).Prepend(Metric.AllScenarios).Distinct()
                .SelectMany(s => Metrics.Compared.Select(m => (s, m)))
                .Where(t => experiment.Scenarios.Count > 1 || t.Item1 == Metric.AllScenarios)
                .Concat(CostMetrics(runs).Select(m => (Metric.AllScenarios, m)))
                .ToArray();
        foreach (var variant in experiment.Variants.Where(v => v.Name != experiment.Baseline))
        {
            foreach (var (scenario, metric) in targets)
            {
                var b = bounds(scenario, metric);
                results.Add(CompareOne(runs, experiment.Baseline, variant.Name, scenario, metric, b.FloorPercent, b.FloorSource,
                    b.MarginPercent));
            }
        }
        return results;
    }

    /// <summary>
    /// The cost metrics compared: CPU per request when any run measured it, and at full speed too when every run that
    /// measured it also sampled the cores' speed.
    /// </summary>
    private static IEnumerable<Metric> CostMetrics(IReadOnlyList<RunRecord> runs)
    {
        var costed = runs.Where(r => r.Cost is { Requests: > 0 }).ToList();
        if (costed.Count == 0)
        {
            return [];
        }
        return costed.All(r => r.Cost!.FullSpeedMsPerRequest is not null)
            ? [Metrics.CpuPerRequest, Metrics.CpuPerRequestAtFullSpeed]
            : [Metrics.CpuPerRequest];
    }

    /// <summary>
    /// One variant against another on one metric: paired within blocks when at least two blocks hold a successful run
    /// of both (the interleaved runner's case), else Welch on the two groups.
    /// </summary>
    public static Comparison CompareOne(IReadOnlyList<RunRecord> runs, string against, string variant, string scenario,
        Metric metric, double noiseFloorPercent, string floorSource = "default", double? equivalenceMarginPercent = null)
    {
        var higher = metric.HigherIsBetter;
        var pairs = Pairs(runs, against, variant, scenario, metric);
        var paired = pairs.Count >= 2;
        // All scenarios' figure of a metric the windows carry: its slots bound how narrow the blocks' interval may be.
        var slots = paired && scenario == Metric.AllScenarios ? SlotSpread.Of(runs, against, variant, metric) : null;
        var (change, low, high, verdict) = paired
            ? Statistics.ComparePaired(pairs, higher, noiseFloorPercent, equivalenceMarginPercent, slots?.HalfWidth ?? 0)
            : Statistics.Compare(Values(runs, against, scenario, metric), Values(runs, variant, scenario, metric), higher,
                noiseFloorPercent, equivalenceMarginPercent);
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
            EquivalenceMarginPercent = equivalenceMarginPercent,
            Method = paired ? "paired" : "welch",
            Pairs = paired ? pairs.Count : 0,
            SlotHalfWidthPercent = slots?.HalfWidthPercent,
            IntervalFromSlots = slots is not null
                && Statistics.ComparePaired(pairs, higher, noiseFloorPercent) is var blocksOnly
                && Statistics.HalfWidth(blocksOnly.Low, blocksOnly.High) < Statistics.HalfWidth(low, high),
            MinimumDetectableEffectPercent = double.IsFinite(halfWidth) ? Math.Max(halfWidth, noiseFloorPercent) : null,
            Verdict = verdict,
            ToDecide = verdict == Verdict.Inconclusive
                ? ToDecide(change, low, high, paired ? pairs.Count : GroupSize(runs, against, variant, scenario, metric), noiseFloorPercent,
                    paired, equivalenceMarginPercent)
                : null,
        };
    }

    /// <summary>What would decide an inconclusive comparison: more blocks (or runs), and the --precision that asks for them.</summary>
    public static string ToDecide(double change, double low, double high, int samples, double marginPercent, bool paired,
        double? equivalenceMarginPercent = null)
    {
        var what = paired ? "blocks" : "runs per variant";
        if (samples < 2 || !double.IsFinite(low))
        {
            return "at least 2 successful runs of each variant, for an interval (--repeat 3 or more)";
        }
        return Statistics.ToDecide(change, low, high, samples, marginPercent, equivalenceMarginPercent) is { } need
            ? string.Create(CultureInfo.InvariantCulture,
                $"about {need.Samples} {what} in all ({need.Samples - samples} more), i.e. "
                    + $"--precision {Math.Floor(need.HalfWidthPercent * 10) / 10:0.0}")
            : Math.Abs(change) > marginPercent || Math.Abs(change) < (equivalenceMarginPercent ?? marginPercent)
                ? string.Create(CultureInfo.InvariantCulture,
                    $"more than {Statistics.MaxSamplesToDecide} {what}: the change is too small against the spread to decide")
                : string.Create(CultureInfo.InvariantCulture,
                    $"the change sits between the margin (±{equivalenceMarginPercent ?? marginPercent:0.#} %) and the floor "
                        + $"(±{marginPercent:0.#} %): more {what} narrow the interval but may not decide; state a margin of its own");
    }

    private static int GroupSize(IReadOnlyList<RunRecord> runs, string against, string variant, string scenario, Metric metric) =>
        Math.Min(Values(runs, against, scenario, metric).Count, Values(runs, variant, scenario, metric).Count);

    private static List<double> Values(IReadOnlyList<RunRecord> runs, string variant, string scenario, Metric metric) =>
        runs.Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
            .Select(r => MetricOf(r, scenario, metric)).Where(double.IsFinite).ToList();

    /// <summary>The two variants' figures in each block (RunRecord.Repetition) where both ran successfully.</summary>
    public static List<(double Baseline, double Candidate)> Pairs(IReadOnlyList<RunRecord> runs, string against, string variant,
        string scenario, Metric metric) =>
        runs.Where(r => r.Status == RunStatus.Ok && (r.Variant == against || r.Variant == variant))
            .GroupBy(r => r.Repetition)
            .Select(block => PairOf(block.FirstOrDefault(r => r.Variant == against), block.FirstOrDefault(r => r.Variant == variant),
                scenario, metric))
            .Where(p => double.IsFinite(p.Baseline) && double.IsFinite(p.Candidate))
            .ToList();

    /// <summary>A block's pair: short windows' cost over their pairs kept by <see cref="CostPairs"/>, else each run's figure.</summary>
    private static (double Baseline, double Candidate) PairOf(RunRecord? a, RunRecord? b, string scenario, Metric metric) =>
        a is null || b is null ? (double.NaN, double.NaN)
            : CostPairs.Kept(a, b, metric) ?? (MetricOf(a, scenario, metric), MetricOf(b, scenario, metric));

    /// <summary>
    /// How often the verdict rule calls a difference between two groups of <paramref name="groupSize"/> runs drawn at
    /// random from runs that are all the same configuration (an A/A run): the false-positive rate on this machine's
    /// real noise. Splits are drawn with a fixed seed, so the figure is reproducible from results.json.
    /// </summary>
    public static double FalsePositiveRate(IReadOnlyList<RunRecord> sameConfigurationRuns, string scenario, Metric metric,
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
            var verdict = Statistics.Compare(values[..groupSize], values[groupSize..(2 * groupSize)], metric.HigherIsBetter,
                noiseFloorPercent).Verdict;
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
    public static double PairedFalsePositiveRate(IReadOnlyList<(double Baseline, double Candidate)> pairs, Metric metric,
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
            if (Statistics.ComparePaired(flipped, metric.HigherIsBetter,
                noiseFloorPercent).Verdict is Verdict.Better or Verdict.Worse)
            {
                calls++;
            }
        }
        return (double)calls / trials;
    }

    /// <param name="given">The comparison a claim is judged on when it was made elsewhere (pooled invocations); null or a null
    /// answer: compared from the runs.</param>
    public static IReadOnlyList<ClaimCheck> CheckClaims(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs,
        Func<string, Metric, VerdictBounds> bounds, Func<ClaimDefinition, Comparison?>? given = null)
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
            var b = bounds(claim.Scenario, claim.Metric);
            var comparison = given?.Invoke(claim) ?? CompareOne(runs, claim.Against, claim.Variant, claim.Scenario, claim.Metric,
                b.FloorPercent, b.FloorSource, b.MarginPercent);
            double Median(string v) => Statistics.Median(runs.Where(r => r.Variant == v && r.Status == RunStatus.Ok)
                .Select(r => MetricOf(r, claim.Scenario, claim.Metric)).Where(double.IsFinite).ToList());
            var unit = claim.Metric.Unit;
            static string Figure(double v) => double.IsFinite(v) ? v.ToString("0.#", CultureInfo.InvariantCulture) : "none";
            // The third section: a change that rounds to zero reads "0 %", not "-+0 %" (the second section's sign before the first's).
            var change = double.IsFinite(comparison.ChangePercent)
                ? comparison.ChangePercent.ToString("+0;-0;0", CultureInfo.InvariantCulture) + " %"
                : "n/a";
            var ours = $"{Figure(Median(claim.Against))} -> {Figure(Median(claim.Variant))} {unit} ({change})";
            var sameWay = double.IsFinite(comparison.ChangePercent) && comparison.ChangePercent > 0 == claim.SeedChangePercent > 0;
            var outcome = Outcome(comparison.Verdict, sameWay);
            var note = ClaimNote(comparison, outcome, runs, claim);
            return new ClaimCheck
            {
                Seed = experiment.Seed,
                Claim = claim.Text,
                SeedFigure = claim.SeedFigure,
                OurFigure = ours,
                DirectionHolds = outcome switch
                {
                    ClaimOutcome.Holds => true,
                    ClaimOutcome.Inconclusive => null,
                    _ => false,
                },
                Outcome = outcome,
                Note = note,
            };
        }).ToList();
    }

    private static ClaimOutcome Outcome(Verdict verdict, bool sameWay) => verdict switch
    {
        Verdict.Better or Verdict.Worse => sameWay ? ClaimOutcome.Holds : ClaimOutcome.Contrary,
        Verdict.Equivalent => ClaimOutcome.Equivalent,
        _ => ClaimOutcome.Inconclusive,
    };

    private static string ClaimNote(Comparison comparison, ClaimOutcome outcome, IReadOnlyList<RunRecord> runs, ClaimDefinition claim)
    {
        var fewRuns = Math.Min(runs.Count(r => r.Variant == claim.Variant && r.Status == RunStatus.Ok),
            runs.Count(r => r.Variant == claim.Against && r.Status == RunStatus.Ok)) < 2;
        var interval = string.Create(CultureInfo.InvariantCulture,
            $"95 % interval [{comparison.LowPercent:+0.0;-0.0}, {comparison.HighPercent:+0.0;-0.0}] %");
        var floor = string.Create(CultureInfo.InvariantCulture,
            $"margin {comparison.EquivalenceMarginPercent ?? comparison.NoiseFloorPercent:0.#} %");
        return outcome switch
        {
            ClaimOutcome.Inconclusive when fewRuns => "one repetition: no interval, direction only (run with --repeat 3 or more)",
            ClaimOutcome.Inconclusive when !double.IsFinite(comparison.LowPercent) =>
                "a variant completed no requests in the measured window (a figure of 0 has no ratio): lengthen "
                    + "the profile's warm-up or duration",
            ClaimOutcome.Inconclusive => $"{interval} is wider than ± the {floor}, or its change within the noise floor "
                + $"({comparison.NoiseFloorPercent.ToString("0.#", CultureInfo.InvariantCulture)} %); to decide: {comparison.ToDecide}",
            ClaimOutcome.Equivalent => $"{interval} lies within ± the {floor}: no change beyond the noise",
            ClaimOutcome.Holds => $"same direction; {interval}",
            _ => $"opposite direction; {interval}",
        };
    }
}
