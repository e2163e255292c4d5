using PerfLab.Results;

namespace PerfLab.Experiments.Definitions;

// An experiment file (experiments/<name>.yaml), parsed and checked. The schema is documented in experiments/README.md.

public sealed record ExperimentDefinition
{
    public required string Name { get; init; }
    public required string Title { get; init; }
    public required string Seed { get; init; }
    public required string Reproduces { get; init; }
    public required string Baseline { get; init; }
    public required IReadOnlyList<VariantDefinition> Variants { get; init; }
    public required IReadOnlyList<ScenarioDefinition> Scenarios { get; init; }
    public required IReadOnlyDictionary<ProfileName, ProfileDefinition> Profiles { get; init; }
    public required IReadOnlyList<ClaimDefinition> Claims { get; init; }
    public required string FilePath { get; init; }
    public required string FileHash { get; init; }
    /// <summary>
    /// CI gates checked after the run (<c>thresholds:</c>); a
    /// failing one makes `perflab run` exit with ThresholdsFailed.
    /// </summary>
    public IReadOnlyList<Results.Threshold> Thresholds { get; init; } = [];
    /// <summary>
    /// The largest loss in percent a <c>no-worse</c> gate accepts (<c>margin:</c>, the non-inferiority margin); null: each
    /// comparison's noise floor. <c>--margin</c> overrides it, <c>no-worse(3%)</c> both.
    /// </summary>
    public double? Margin { get; init; }
    /// <summary>The conditions every variant runs under (database RTT, cores, ...); a variant's own win.</summary>
    public Conditions Conditions { get; init; } = Conditions.None;
    /// <summary>The one condition this experiment varies, and its values; null for a plain experiment.</summary>
    public SweepDefinition? Sweep { get; init; }
    /// <summary>False: `perflab run` without names leaves it out (sweeps are long); it runs when named.</summary>
    public bool RunsByDefault { get; init; } = true;

    /// <summary>
    /// Whether a measured run lasts the profile's duration: false when a scenario counts batches (a burst, an upload),
    /// which ends when they are done, the duration only its cap.
    /// </summary>
    public bool RunsForItsDuration => Scenarios.All(s => !s.Model.CountsBatches);
    /// <summary>Set on a sweep's point: which sweep, and the condition's value here.</summary>
    public SweepPoint? Point { get; init; }
    /// <summary>
    /// Whether its variants' first runs are traced when traces are asked for: false on a sweep's points but the one at
    /// <see cref="SweepDefinition.TracedValue"/>.
    /// </summary>
    public bool Traced { get; init; } = true;
    /// <summary>The user's app this experiment measures; null for the built-in SUT.</summary>
    public AppDefinition? App { get; init; }
    /// <summary>Which figure decides its verdicts (<c>decide:</c>): throughput, cost per request or latency.</summary>
    public Metric Decide { get; init; } = Metrics.Rps;
    /// <summary>The <c>capacity:</c> block: each variant's figure is its capacity within an SLO; null for any other experiment.</summary>
    public CapacityDefinition? Capacity { get; init; }
    /// <summary>How its blocks spend their processes (<c>method:</c>): fresh processes per variant, or one serving them all.</summary>
    public BlockMethod Method { get; init; } = BlockMethod.FreshProcesses;

    /// <summary>
    /// The figure this experiment's variants are compared on first (the stopping rule's, the sweep's, the summary's):
    /// the capacity of a capacity experiment, the batch time of a burst or upload one, else the throughput.
    /// </summary>
    public Metric PrimaryMetric => Capacity is not null ? Metrics.CapacityRps : Metrics.Primary(Scenarios.Any(s => s.Model.CountsBatches));

    /// <summary>The variants as they will run; in A/A mode the baseline against itself.</summary>
    public IReadOnlyList<VariantDefinition> VariantsToRun(bool aa)
    {
        if (!aa)
        {
            return Variants;
        }
        var baseline = Variants.First(v => v.Name == Baseline);
        return [baseline, baseline with { Name = baseline.Name + "-again" }];
    }
}

/// <summary>One variant: SUT settings (its "Sut" section), runtime environment, framework and URL variables.</summary>
public sealed record VariantDefinition
{
    public required string Name { get; init; }
    public IReadOnlyDictionary<string, string> Settings { get; init; } = new Dictionary<string, string>();
    public IReadOnlyDictionary<string, string> Env { get; init; } = new Dictionary<string, string>();
    public string Framework { get; init; } = "net10.0";
    /// <summary>Values for ${name} placeholders in scenario URLs (variants that differ by endpoint, as seed 001).</summary>
    public IReadOnlyDictionary<string, string> Vars { get; init; } = new Dictionary<string, string>();
    /// <summary>This variant's own conditions, over the experiment's.</summary>
    public Conditions Conditions { get; init; } = Conditions.None;
    /// <summary>An app's configuration keys (Section:Key), passed as --Key=Value or environment (app.config-via).</summary>
    public IReadOnlyDictionary<string, string> Config { get; init; } = new Dictionary<string, string>();
    /// <summary>An app's project folder for this variant instead of the app's (absolute, resolved when read).</summary>
    public string? Project { get; init; }
    /// <summary>A git commit, branch or tag of the app's project to build for this variant.</summary>
    public string? Ref { get; init; }
}

public sealed record ScenarioDefinition
{
    public required string Name { get; init; }
    /// <summary>Path and query on the SUT; ${var} from the variant, {placeholder} from the feed.</summary>
    public required string Url { get; init; }
    /// <summary>
    /// How the requests are sent, as the file gives it; a profile fills in its part
    /// (<see cref="ProfileDefinition.Shape"/>).
    /// </summary>
    public required Load.LoadModel Model { get; init; }
    public FeedDefinition? Feed { get; init; }
    /// <summary>Method, headers, body and response check (method, headers, body, body-file, expect); a plain GET by default.</summary>
    public Load.RequestSpec Request { get; init; } = Load.RequestSpec.Get;
}

/// <summary>Fills {placeholder} in a scenario URL or body from a JSON array the SUT serves (e.g. /customer/orders/ids).</summary>
public sealed record FeedDefinition(string Placeholder, string FromUrl, bool Random);

/// <param name="Batches">Burst: measured batches; upload: measured uploads (one more of each runs first, unmeasured).</param>
/// <param name="UploadBytes">Upload: overrides the scenario's size for this profile.</param>
public sealed record ProfileDefinition(TimeSpan Warmup, TimeSpan Duration, int Repeat, int Batches, long? UploadBytes = null)
{
    /// <summary>
    /// Adaptive profiles: keep adding interleaved blocks (after <see cref="Repeat"/>, the minimum) until every primary
    /// comparison's 95 % interval half-width is at most this many percent, or <see cref="MaxRepeat"/> or the budget is reached.
    /// </summary>
    public double? PrecisionPercent { get; init; }

    /// <summary>Adaptive profiles: the most blocks to run.</summary>
    public int? MaxRepeat { get; init; }

    /// <summary>Warm up until the throughput settles, with <see cref="Warmup"/> as the cap.</summary>
    public bool WarmupUntilSteady { get; init; }

    /// <summary>
    /// Alternating slots: every variant of a block is started and warmed up, then the measured window
    /// (<see cref="Duration"/> per variant) is served in this many slots per variant, taking turns (A B C C B A A B C ...),
    /// so that the machine's slow swings (measured at ±10 % over tens of seconds here) hit every variant alike and
    /// cancel in the paired comparison. Null: one continuous window per run, each variant's SUT alone.
    /// </summary>
    public int? Slots { get; init; }

    /// <summary>
    /// Short alternation (<c>window: 250ms</c>): the slots are windows this long, served without a re-warm on load that
    /// runs through the whole stretch, the waiting SUTs stopped; <see cref="Slots"/> is then the duration over it. For
    /// CPU-bound comparisons: a request waiting on a timer or the database keeps waiting while its SUT is stopped
    /// (docs/cost.md, "Short windows"). Null: slots of their own load runs, each after a re-warm.
    /// </summary>
    public TimeSpan? Window { get; init; }

    /// <summary>What this profile decides for a scenario's load model: the measured time, the batches, an upload's size.</summary>
    public Load.LoadShape Shape => new(Duration, Batches, UploadBytes);

    /// <summary>Runtime environment given to every variant's SUT under this profile (a variant's own env wins).</summary>
    public IReadOnlyDictionary<string, string> Env { get; init; } = new Dictionary<string, string>();

    /// <summary>The variant as this profile runs it: the profile's environment under the variant's own.</summary>
    public VariantDefinition Apply(VariantDefinition variant) => Env.Count == 0
        ? variant
        : variant with { Env = Env.Concat(variant.Env).GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.Last().Value) };
}

/// <summary>A claim of the seed article that the seed reproduction table checks.</summary>
public sealed record ClaimDefinition
{
    public required string Text { get; init; }
    public required string Variant { get; init; }
    /// <summary>The variant the change is measured against; the baseline unless the seed compared two others.</summary>
    public required string Against { get; init; }
    /// <summary>A comparable metric of the catalog (Results.Metrics.Comparable).</summary>
    public required Metric Metric { get; init; }
    /// <summary>"all" or a scenario name.</summary>
    public required string Scenario { get; init; }
    public required string SeedFigure { get; init; }
    /// <summary>The seed's change of the metric in percent (sign gives the direction).</summary>
    public required double SeedChangePercent { get; init; }
}
