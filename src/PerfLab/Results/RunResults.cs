using System.Text.Json.Serialization;

namespace PerfLab.Results;

// The one result graph that `perflab run` produces and every report writer renders (results.json).
// Immutable; written with System.Text.Json (camelCase). Bump SchemaVersion on any breaking change.

/// <summary>Everything one `perflab run` measured: the root of results.json.</summary>
public sealed record RunResults
{
    public const int CurrentSchemaVersion = 2;

    public int SchemaVersion { get; init; } = CurrentSchemaVersion;
    public required DateTimeOffset StartedAt { get; init; }
    public required DateTimeOffset FinishedAt { get; init; }
    public required string Profile { get; init; }
    public required Provenance Provenance { get; init; }
    public required IReadOnlyList<ExperimentResult> Experiments { get; init; }
    /// <summary>True when the run was interrupted (Ctrl+C) or stopped early; the figures cover what was measured.</summary>
    public bool Incomplete { get; init; }
    public string? IncompleteReason { get; init; }
    /// <summary>Sentences about the run as a whole (e.g. each experiment's throughput against the platform ceiling).</summary>
    public IReadOnlyList<string> Notes { get; init; } = [];
    /// <summary>
    /// The CI gates (thresholds from the experiment files and `--threshold`), each checked after the run; empty when none were set.
    /// </summary>
    public IReadOnlyList<ThresholdCheck> Thresholds { get; init; } = [];
    /// <summary>
    /// Experiments that varied one condition: each variant's change along the values (the points are in <see cref="Experiments"/>).
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SweepResult>? Sweeps { get; init; }
    /// <summary>
    /// The machine's noise as the run's start found it (a fixed CPU task, the first runs' seconds): the report's first line.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public MachineNoise? MachineNoise { get; init; }
    /// <summary>`--invocations N`: the separate perflab processes this result pools (each folder holds its own); else null.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<InvocationRecord>? Invocations { get; init; }
}

/// <summary>Where and how the figures were measured.</summary>
public sealed record Provenance
{
    public required string Commit { get; init; }
    public required string SdkVersion { get; init; }
    public required string RuntimeVersion { get; init; }
    public required string CpuModel { get; init; }
    public required int LogicalCores { get; init; }
    public required string OperatingSystem { get; init; }
    /// <summary>Which CPUs the SUT, the load generator and PostgreSQL were pinned to, or why they were not.</summary>
    public required CoreLayout CoreLayout { get; init; }
    public required string Database { get; init; }
    public required string Profile { get; init; }
    public required int Repetitions { get; init; }
    public bool AaMode { get; init; }

    /// <summary>Where each role ran when a hosts file placed some elsewhere; null when everything ran on this machine.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<RoleHost>? Hosts { get; init; }
    /// <summary>The state PostgreSQL was brought to before each block, and its settings; null when no experiment used it.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public DatabaseState? DatabaseState { get; init; }
}

/// <summary>One role's host: its name in the hosts file ("local": this machine), address, cores, and clock minus this machine's.</summary>
public sealed record RoleHost(string Role, string Host, string Address, int Cores, double ClockOffsetMs, double ClockUncertaintyMs);

public sealed record CoreLayout(string? Sut, string? Generator, string? Database, string Note);

/// <summary>One experiment: its definition, every run, and what the statistics made of them.</summary>
public sealed record ExperimentResult
{
    public required string Name { get; init; }
    public required string Title { get; init; }
    public required string Seed { get; init; }
    public required string Reproduces { get; init; }
    public required string FileHash { get; init; }
    public required string Baseline { get; init; }
    /// <summary>The load model asked, in words ("closed: 10 users per scenario", "open: 200 req/s", ...).</summary>
    public required string LoadDescription { get; init; }
    public required IReadOnlyList<string> Variants { get; init; }
    public required IReadOnlyList<string> Scenarios { get; init; }
    public required TimeSpan Warmup { get; init; }
    public required TimeSpan Duration { get; init; }
    public required IReadOnlyList<RunRecord> Runs { get; init; }
    public required IReadOnlyList<VariantSummary> Summaries { get; init; }
    public required IReadOnlyList<Comparison> Comparisons { get; init; }
    public required IReadOnlyList<Finding> Findings { get; init; }
    public required IReadOnlyList<ClaimCheck> Claims { get; init; }
    /// <summary>Sentences the runner adds about how this experiment was measured (e.g. the network path's RTT).</summary>
    public IReadOnlyList<string> Notes { get; init; } = [];
    /// <summary>Interleaved blocks run (one block = every variant once, in rotated order); a block's runs are pairs in time.</summary>
    public int Blocks { get; init; }
    /// <summary>The precision asked for: the largest 95 % interval half-width, in percent, of the primary comparisons.</summary>
    public double? PrecisionTargetPercent { get; init; }
    /// <summary>Why the runner stopped adding blocks ("precision reached", "budget spent", "fixed repetitions", ...).</summary>
    public string? StopReason { get; init; }
    /// <summary>The noise of this experiment's runs taken apart: within a run, run to run, and drift along the invocation.</summary>
    public NoiseBreakdown? Noise { get; init; }
    /// <summary>
    /// The noise of its own slot pairs, throughput and cost, and the smallest change each can decide; null without measured cost.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public MachineNoise? MachineNoise { get; init; }
    /// <summary>
    /// The metric whose comparisons decide the verdicts (the experiment file's <c>decide:</c>): rps, cpu-per-request or p99-ms.
    /// </summary>
    public Metric DecidedBy { get; init; } = Metrics.Rps;
    /// <summary>
    /// The metric whose comparisons did decide (written to results.json for scripts; not read back): <see cref="DecidedBy"/>
    /// at the cores' full speed for cost, or what stood in for a metric not measured (<see cref="Deciding.Key(ExperimentResult)"/>).
    /// </summary>
    public Metric DecidingMetric => Deciding.Key(this);
    /// <summary>Per variant, where its request time goes (from a trace of one of its runs); empty when not traced.</summary>
    public IReadOnlyList<VariantEvidence> Evidence { get; init; } = [];
    /// <summary>
    /// The conditions every variant ran under (a variant may set its own on top; see each run's database path and /info).
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public Conditions? Conditions { get; init; }
    /// <summary>For a sweep point: the sweep's experiment name and this point's value of its condition.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SweepPoint? SweepPoint { get; init; }
    /// <summary>What was measured: "the built-in SUT", or the experiment's own app ("project /path/to/App").</summary>
    public string? App { get; init; }
    /// <summary>Per variant, what its runs confirmed in effect and what could not be confirmed.</summary>
    public IReadOnlyList<VariantEffectSummary> VariantEffects { get; init; } = [];
    /// <summary>
    /// Its blocks' wall time and the part inside measured windows (the duty cycle); null in results from before it was kept.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public DutyCycle? Time { get; init; }
    /// <summary>How its blocks spent their processes (<c>method:</c> fresh-process or in-process); null in older results.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Method { get; init; }
}

/// <summary>What the runs of one variant confirmed in effect, and what they could not confirm.</summary>
public sealed record VariantEffectSummary(string Variant, IReadOnlyList<string> Confirmed, IReadOnlyList<string> Unconfirmed);

/// <summary>Which sweep an experiment result is a point of, and where on it.</summary>
public sealed record SweepPoint(string Sweep, ConditionKind Condition, double Value);

[JsonConverter(typeof(JsonStringEnumConverter<RunStatus>))]
public enum RunStatus { Ok, Failed }

/// <summary>
/// Why a run failed, as a kind the runner and reports can act on (the reason's text says the rest). UploadFailed is no
/// longer written (uploads run on the load engine and fail as any load does); it stays so older results.json still read.
/// </summary>
[JsonConverter(typeof(JsonStringEnumConverter<FailureKind>))]
public enum FailureKind
{
    SutDidNotStart, SutDidNotAnswerInfo, VariantNotInEffect, LoadFailed, SutCrashed, LoadStoppedEarly, UploadFailed,
    DatabaseDown, Interrupted, DatabasePathFailed, NothingCompleted,
}

/// <summary>One SUT process, one variant, one repetition.</summary>
public sealed record RunRecord
{
    public required string Variant { get; init; }
    public required int Repetition { get; init; }
    /// <summary>Position in the interleaved order of the whole experiment (A B C A B C ...), from 1.</summary>
    public required int Order { get; init; }
    public required RunStatus Status { get; init; }
    public string? FailureReason { get; init; }
    public FailureKind? FailureKind { get; init; }
    public string? LogTail { get; init; }
    public required DateTimeOffset StartedAt { get; init; }
    /// <summary>
    /// What the SUT's /info reported (runtime, GC, thread pool, variant switches); for an app of one's own, what was read from outside
    /// (runtime, GC mode).
    /// </summary>
    public IReadOnlyDictionary<string, string> SutInfo { get; init; } = new Dictionary<string, string>();
    /// <summary>What of the variant was seen in effect (the process environment, the GC mode, /info).</summary>
    public IReadOnlyList<string> Confirmed { get; init; } = [];
    /// <summary>What the variant asked for that could not be observed from outside (an app's own configuration).</summary>
    public IReadOnlyList<string> Unconfirmed { get; init; } = [];
    public required IReadOnlyList<ScenarioStats> Scenarios { get; init; }
    /// <summary>Averages over the measured window of every counter read (dotnet-counters names).</summary>
    public required IReadOnlyDictionary<string, double> Counters { get; init; }
    public required int StarvationInjections { get; init; }
    public required IReadOnlyList<TimelinePoint> Timeline { get; init; }
    public required double GeneratorCpuPercent { get; init; }
    public required bool GeneratorSaturated { get; init; }
    /// <summary>A load sent through a latency proxy (uploads): the round trip configured on it and the one measured through it.</summary>
    public double? ConfiguredRttMs { get; init; }
    public double? MeasuredRttMs { get; init; }
    /// <summary>Burst and upload models: each batch's (or upload's) wall time in ms.</summary>
    public IReadOnlyList<double> BatchTimesMs { get; init; } = [];
    /// <summary>How long the warm-up took until the per-second throughput settled (steady state), in seconds.</summary>
    public double? WarmupSeconds { get; init; }
    /// <summary>False when the throughput never settled before the warm-up cap: the run was measured anyway, and says so.</summary>
    public bool? Settled { get; init; }
    /// <summary>The database client's metrics over the measured window; null when the SUT did not publish them.</summary>
    public DatabaseClientStats? Database { get; init; }
    /// <summary>The latency proxy between the SUT and PostgreSQL, configured and measured; null when the SUT connected directly.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public DatabasePathStats? DatabasePath { get; init; }
    /// <summary>
    /// What the SUT's runtime compiled, by tier, during the warm-up and the window; null where its JIT events were not read.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public TieringRecord? Tiering { get; init; }
    /// <summary>
    /// The CPU the kernel charged the app (and the PostgreSQL backends serving it) over exactly the measured window or slots, against the
    /// requests completed in them; null when not measured.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public CpuCost? Cost { get; init; }
    /// <summary>A capacity experiment's search in this run: the capacity found and every step with its figures; else null.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public CapacityResult? Capacity { get; init; }
    /// <summary>Each generator's own figures when several sent the load (the run's are their merged histograms); else null.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<GeneratorRecord>? Generators { get; init; }
}

/// <summary>Load figures of one scenario in one run (warm-up excluded).</summary>
public sealed record ScenarioStats
{
    public required string Scenario { get; init; }
    public required long Requests { get; init; }
    public required double Rps { get; init; }
    public required double MeanMs { get; init; }
    public required double StdDevMs { get; init; }
    public required double MinMs { get; init; }
    public required double P50Ms { get; init; }
    public required double P75Ms { get; init; }
    public required double P90Ms { get; init; }
    public required double P95Ms { get; init; }
    public required double P99Ms { get; init; }
    public required double P999Ms { get; init; }
    public required double MaxMs { get; init; }
    public required long BytesReceived { get; init; }
    public required long Errors { get; init; }
    public IReadOnlyDictionary<string, long> ErrorsByKind { get; init; } = new Dictionary<string, long>();
    /// <summary>Open model only: the same percentiles from the actual send time (not corrected for coordinated omission).</summary>
    public double? UncorrectedP99Ms { get; init; }
    /// <summary>
    /// Requests still in flight when the measured window closed (not counted in Requests or Rps, never dropped silently).
    /// </summary>
    public long InFlightAtEnd { get; init; }
    /// <summary>Age in ms of the oldest request in flight when the window closed (0 when none).</summary>
    public double InFlightOldestMs { get; init; }
    /// <summary>True when the median latency exceeded a fifth of the window: the throughput is bounded by the window.</summary>
    public bool BoundedByWindow { get; init; }
}

/// <summary>One second of one run: load and counters on the same clock (seconds since the measured window began).</summary>
public sealed record TimelinePoint
{
    public required int Second { get; init; }
    public required double Rps { get; init; }
    public required double P50Ms { get; init; }
    public required double P99Ms { get; init; }
    public required long Errors { get; init; }
    public required int Users { get; init; }
    public required IReadOnlyDictionary<string, double> Counters { get; init; }
}

/// <summary>A median over repetitions with its 95 % interval.</summary>
public sealed record Estimate(double Median, double Low, double High, int Samples);

/// <summary>Per variant, across its repetitions.</summary>
public sealed record VariantSummary
{
    public required string Variant { get; init; }
    public required int SuccessfulRuns { get; init; }
    public required int FailedRuns { get; init; }
    /// <summary>Per scenario: rps, mean-ms, p99-ms.</summary>
    public required IReadOnlyDictionary<string, IReadOnlyDictionary<string, Estimate>> Scenarios { get; init; }
    /// <summary>RPS of all scenarios together (the article's "all (RPS)" column).</summary>
    public required Estimate? AllRps { get; init; }
    /// <summary>Burst model: the mean batch time over repetitions.</summary>
    public Estimate? BatchMeanMs { get; init; }
    /// <summary>Counter averages per run, summarized: threadpool-thread-count, threadpool-queue-length, time-in-gc, ...</summary>
    public required IReadOnlyDictionary<string, Estimate> Counters { get; init; }
    /// <summary>Per-request efficiency: cpu-ms-per-request, alloc-kb-per-request, gc-pause-ms-per-request.</summary>
    public required IReadOnlyDictionary<string, Estimate> Efficiency { get; init; }
}

/// <summary>A variant against the baseline on one metric.</summary>
public sealed record Comparison
{
    public required string Variant { get; init; }
    /// <summary>"all" for the combined figure, or a scenario name.</summary>
    public required string Scenario { get; init; }
    /// <summary>The catalog's metric (rps, mean-ms, p99-ms, batch-mean-ms, ...), written to results.json as its key.</summary>
    public required Metric Metric { get; init; }
    public required bool HigherIsBetter { get; init; }
    public required double ChangePercent { get; init; }
    public required double LowPercent { get; init; }
    public required double HighPercent { get; init; }
    /// <summary>The noise floor in percent this verdict had to clear (measured A/A spread on this machine).</summary>
    public required double NoiseFloorPercent { get; init; }
    /// <summary>Where the noise floor came from: "measured" (by `perflab run --aa` on this machine) or "default".</summary>
    public string NoiseFloorSource { get; init; } = "default";
    /// <summary>
    /// The margin an <i>equivalent</i> needs the whole interval within (the user's `margin:` / `--margin`, default 5 %);
    /// null in results from before it was kept apart from the noise floor, which then served both.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? EquivalenceMarginPercent { get; init; }
    /// <summary>"paired" (log-ratios within interleaved blocks) or "welch" (independent groups).</summary>
    public string Method { get; init; } = "welch";
    /// <summary>Paired method: how many blocks gave a pair.</summary>
    public int Pairs { get; init; }
    /// <summary>
    /// Paired on a metric the slots carry (CPU per request): the 95 % half-width, in percent, that the spread of the slot
    /// pairs inside the blocks gives alone, the narrowest the interval may be; the interval is wider when the blocks
    /// scatter more. Null for other metrics and older results.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? SlotHalfWidthPercent { get; init; }
    /// <summary>The slots' half-width set the interval: the blocks' own spread was narrower (they agreed by chance).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public bool IntervalFromSlots { get; init; }
    /// <summary>
    /// The smallest change, in percent, this comparison could have called (its interval half-width or the floor, whichever is larger).
    /// </summary>
    public double? MinimumDetectableEffectPercent { get; init; }
    /// <summary>better, worse, equivalent (the interval within ± the noise floor) or inconclusive.</summary>
    public required Verdict Verdict { get; init; }
    /// <summary>An inconclusive verdict: what would decide it ("about 9 blocks in all (--precision 2.1)"); otherwise null.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? ToDecide { get; init; }
    /// <summary>Method "invocations": each invocation's own estimate and how the pooled interval was taken; else null.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public PooledInvocations? Invocations { get; init; }
}
