namespace PerfLab.Load;

/// <summary>Everything one load run measured. Immutable; serializes with System.Text.Json as is.</summary>
/// <param name="StartedUtc">When load began (warm-up included).</param>
/// <param name="MeasuredFromUtc">End of the warm-up: statistics cover <see cref="MeasuredFromUtc"/> .. <see cref="EndedUtc"/>.</param>
/// <param name="EndedUtc">When the last measured request completed or the run was stopped.</param>
/// <param name="Incomplete">True when the run stopped before its plan was done (interrupted, target died).</param>
/// <param name="IncompleteReason">Why, in words; null when complete.</param>
public sealed record LoadResult(
    DateTimeOffset StartedUtc,
    DateTimeOffset MeasuredFromUtc,
    DateTimeOffset EndedUtc,
    bool Incomplete,
    string? IncompleteReason,
    GeneratorUsage Generator,
    IReadOnlyList<ScenarioResult> Scenarios)
{
    public double MeasuredSeconds => (EndedUtc - MeasuredFromUtc).TotalSeconds;

    /// <summary>
    /// How long the warm-up lasted: the plan's fixed warm-up, or until the throughput settled
    /// (<see cref="LoadPlan.WarmupUntilSteady"/>).
    /// </summary>
    public double WarmupSeconds { get; init; }

    /// <summary>
    /// With <see cref="LoadPlan.WarmupUntilSteady"/>: whether the
    /// throughput settled before the warm-up cap; null for a fixed warm-up.
    /// </summary>
    public bool? Settled { get; init; }
}

/// <summary>
/// The load generator's own CPU use over the measured period. It is <see cref="Saturated"/> (and the run's throughput
/// figures describe the generator rather than the server) when it used at least 90 % of the cores it may run on
/// (<c>CoresUsed ≥ 0.9 × AvailableCores</c>; the cores come from the process affinity, so a generator pinned with
/// taskset to one core is saturated at 0.9 of a core), or when one socket event thread was busy 90 % of the time.
/// </summary>
/// <param name="CpuSeconds">Process.TotalProcessorTime spent during the measured period (user + system, all threads).</param>
/// <param name="WallSeconds">Length of the measured period.</param>
/// <param name="CoresUsed">CpuSeconds / WallSeconds: 1.0 is one core fully busy.</param>
/// <param name="AvailableCores">Cores this process may use (Environment.ProcessorCount, which honours affinity).</param>
/// <param name="CpuMicrosecondsPerRequest">Generator CPU time per measured request, all scenarios together.</param>
/// <param name="AllocatedBytesPerRequest">Managed bytes this process
/// allocated per measured request (HttpClient's own share included).</param>
/// <param name="EventThreadBusy">
/// The busiest socket event thread's share of the measured period (0..1). With inline completions that thread runs
/// the whole request loop, so at 0.9 or more the generator is <see cref="Saturated"/> whatever its other cores do.
/// </param>
/// <param name="Transport">How requests travelled, per scenario: "HTTP/1.1 sockets, inline completions", "HttpClient, HTTP/2" ...</param>
public sealed record GeneratorUsage(
    double CpuSeconds,
    double WallSeconds,
    double CoresUsed,
    int AvailableCores,
    bool Saturated,
    double CpuMicrosecondsPerRequest,
    double AllocatedBytesPerRequest,
    double EventThreadBusy,
    string Transport)
{
    public const double SaturationThreshold = 0.9;
}

/// <param name="Requests">Requests that completed in the measured period, with any HTTP status or an error.</param>
/// <param name="RequestsPerSecond">Requests / measured seconds.</param>
/// <param name="Latency">Latency of requests answered with any HTTP status. Open
/// model: from the intended send time (coordinated omission corrected).</param>
/// <param name="UncorrectedLatency">Open model only: latency from the actual send, as a closed-loop tool would report it.</param>
/// <param name="BytesReceived">Response body bytes.</param>
/// <param name="Model">The model that sent the requests; results.json and `perflab load --json` write its kind ("closed").</param>
/// <param name="Open">Open model only: schedule adherence.</param>
/// <param name="Burst">Burst model only: per-batch times.</param>
/// <param name="Ramp">Ramp model only: one entry per user step.</param>
/// <param name="Timeline">One point per UTC unix second, warm-up included (flagged).</param>
public sealed record ScenarioResult(
    string Name,
    [property: System.Text.Json.Serialization.JsonConverter(typeof(LoadModelKindConverter))] LoadModel Model,
    string Url,
    int Concurrency,
    long Requests,
    double RequestsPerSecond,
    LatencyStats Latency,
    LatencyStats? UncorrectedLatency,
    long BytesReceived,
    ErrorCounts Errors,
    OpenSchedule? Open,
    BurstStats? Burst,
    IReadOnlyList<RampStep>? Ramp,
    IReadOnlyList<LoadSecond> Timeline)
{
    /// <summary>Requests still in flight when the measured window closed: not in <see cref="Requests"/>, reported here.</summary>
    public long InFlightAtEnd { get; init; }

    /// <summary>Age in ms of the oldest request in flight when the window closed (0 when none).</summary>
    public double InFlightOldestMs { get; init; }

    /// <summary>True when the median latency exceeded a fifth of the measured window: the throughput is bounded by the window.</summary>
    public bool BoundedByWindow { get; init; }

    /// <summary>
    /// The measured latencies themselves, so that results of several
    /// windows can be merged exactly (<see cref="SlotMerge"/>).
    /// </summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public LatencyHistogram? Histogram { get; init; }

    /// <summary>Open model: the uncorrected latencies, kept for merging as <see cref="Histogram"/>.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public LatencyHistogram? UncorrectedHistogram { get; init; }
    /// <summary>The request when it is more than a plain GET: "POST, 1 header, 41-byte body, expects 201 and $.id=5".</summary>
    public string? Request { get; init; }
}

/// <summary>Latency in milliseconds from a <see cref="LatencyHistogram"/> (3 significant digits; the mean is exact).</summary>
public sealed record LatencyStats(
    long Count,
    double MeanMs,
    double StdDevMs,
    double MinMs,
    double P50Ms,
    double P75Ms,
    double P90Ms,
    double P95Ms,
    double P99Ms,
    double P999Ms,
    double MaxMs)
{
    public static LatencyStats From(LatencyHistogram h) => new(
        h.Count,
        h.Mean / 1000.0,
        h.StdDev / 1000.0,
        h.Min / 1000.0,
        h.Percentile(50) / 1000.0,
        h.Percentile(75) / 1000.0,
        h.Percentile(90) / 1000.0,
        h.Percentile(95) / 1000.0,
        h.Percentile(99) / 1000.0,
        h.Percentile(99.9) / 1000.0,
        h.Max / 1000.0);
}

/// <summary>
/// Errors by kind: "http-404", "http-500" (any status ≥ 400, or with an expected status, any other at 400 and above),
/// "unexpected-http-200" (a status below 400 that the check did not expect), "check-json" (the status passed, a JSON
/// value did not), "timeout", "connection-refused", "connection-error".
/// </summary>
public sealed record ErrorCounts(long Total, IReadOnlyDictionary<string, long> ByKind)
{
    public const string CheckJsonKind = "check-json";

    /// <summary>The kind a status below 400 is counted under when the response check expected another ("unexpected-http-200").</summary>
    public static string UnexpectedKind(int status) => "unexpected-" + HttpKind(status);

    /// <summary>The kind an HTTP error status is counted under ("http-503").</summary>
    public static string HttpKind(int status) => string.Create(System.Globalization.CultureInfo.InvariantCulture, $"http-{status}");
}

/// <param name="Scheduled">Sends due in the measured period (rate × seconds).</param>
/// <param name="Sent">Sends actually made in the measured period.</param>
/// <param name="LateSends">Sends made more than <see cref="LateThresholdMs"/> after their intended time.</param>
/// <param name="MaxLagMs">The largest delay of a send behind its intended time.</param>
public sealed record OpenSchedule(double Rate, long Scheduled, long Sent, long LateSends, double MaxLagMs)
{
    public const double LateThresholdMs = 5;
}

/// <summary>
/// Per-batch wall times, summarized as BenchmarkDotNet does: Error
/// is half the 99.9 % confidence interval of the mean (Student t).
/// </summary>
public sealed record BurstStats(int BatchSize, IReadOnlyList<double> BatchMs, double MeanMs, double? ErrorMs, double StdDevMs);

/// <summary>One user step of a ramp.</summary>
public sealed record RampStep(int Users, long StartUnixSecond, double Seconds, long Requests, double RequestsPerSecond, double MeanMs,
    double P99Ms, long Errors);

/// <summary>One second of a scenario: the interval [UnixSecond, UnixSecond + 1) in UTC, the clock the counters use.</summary>
public sealed record LoadSecond(long UnixSecond, bool Warmup, long Requests, double RequestsPerSecond, double P50Ms, double P99Ms,
    long Errors, int ActiveUsers);

/// <summary>Reported about once a second while a run is going.</summary>
public sealed record LoadProgress(TimeSpan Elapsed, TimeSpan? Total, bool WarmingUp, IReadOnlyList<ScenarioProgress> Scenarios)
{
    /// <summary>The wall-clock second this report closes: <see cref="ScenarioProgress.IntervalLatency"/> covers it.</summary>
    public DateTimeOffset IntervalStartUtc { get; init; }

    public DateTimeOffset IntervalEndUtc { get; init; }
}

public sealed record ScenarioProgress(string Name, long Requests, double CurrentRps, double CurrentP99Ms, long Errors, int ActiveUsers)
{
    /// <summary>The latencies recorded in this interval alone (a remote generator streams them as an interval log).</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public LatencyHistogram? IntervalLatency { get; init; }
}
