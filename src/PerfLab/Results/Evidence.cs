using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// Where a variant's request time goes, from an EventPipe trace of one of its runs and the database client's metrics
/// (from a trace of the variant). Every figure is per completed request over the traced stretch of the measured window.
/// </summary>
public sealed record VariantEvidence
{
    public required string Variant { get; init; }
    /// <summary>The repetition whose run was traced.</summary>
    public required int Repetition { get; init; }
    public required double TracedSeconds { get; init; }
    /// <summary>Requests completed while the trace ran (the divisor of every per-request figure).</summary>
    public required long Requests { get; init; }
    /// <summary>CPU samples on threads running code (the sample profiler's 1 ms samples that were not waiting).</summary>
    public required long CpuSamples { get; init; }
    /// <summary>CPU milliseconds per request by component: Gc, Json, Database, AspNetCore, Logging, App, Other.</summary>
    public required IReadOnlyDictionary<string, double> CpuMsPerRequest { get; init; }
    /// <summary>Time per request the database client spent in commands (Npgsql's metrics), null when not read.</summary>
    public double? DatabaseMsPerRequest { get; init; }
    /// <summary>Time per request threads spent blocked on contended locks (contention events).</summary>
    public double? LockBlockedMsPerRequest { get; init; }
    /// <summary>
    /// Time per request pool threads spent blocked in blocking calls (Thread.Sleep, .Wait(), .Result, sync I/O, ...): over
    /// the requests served wholly inside the trace when it holds their events, else thread time over the requests above.
    /// </summary>
    public double? BlockingWaitMsPerRequest { get; init; }
    /// <summary>Pool threads blocked in a blocking call at once, on average over the trace (the sampler's ticks).</summary>
    public double? BlockedThreadsAtOnce { get; init; }
    /// <summary>Share of the traced wall time the runtime was paused for GC (0..1).</summary>
    public double? GcPauseShare { get; init; }
    /// <summary>Share of the CPU samples inside the GC (0..1).</summary>
    public double? GcCpuShare { get; init; }
    /// <summary>Contended locks by the call site that took them, largest blocked time first.</summary>
    public IReadOnlyList<CallSite> Contention { get; init; } = [];
    /// <summary>Synchronous waits on tasks by the call site that waited, largest blocked time first.</summary>
    public IReadOnlyList<CallSite> BlockingWaits { get; init; } = [];
    /// <summary>The heaviest CPU stacks (root first), for the flame graphs.</summary>
    public IReadOnlyList<StackSample> TopStacks { get; init; } = [];
    /// <summary>The variant's CPU samples as a speedscope file, relative to the results folder.</summary>
    public string? SpeedscopeFile { get; init; }
}

/// <summary>One place in the code, with how often and how long it blocked, and a stack that shows it (root first).</summary>
public sealed record CallSite(string Method, long Count, double TotalMs, IReadOnlyList<string> Stack)
{
    /// <summary>The blocking call made there ("Thread.Sleep()"), for blocking waits; null for locks.</summary>
    public string? Call { get; init; }
    /// <summary>Blocked ms per request of the route it blocked (else of all requests), for blocking waits; null when unknown.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? MsPerRequest { get; init; }
    /// <summary>What to do instead, in one line ("await Task.Delay instead"), for blocking waits; null for locks.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Advice { get; init; }
}

/// <summary>One distinct stack (root first) and its CPU samples.</summary>
public sealed record StackSample(IReadOnlyList<string> Frames, long Samples);

/// <summary>How far a finding's evidence goes: measured at a named place, or only suggested by counters.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<EvidenceStrength>))]
public enum EvidenceStrength { Strong, Weak }

/// <summary>The database client's view of one run (Npgsql's metrics, averaged over the measured window).</summary>
public sealed record DatabaseClientStats
{
    public required double CommandsPerRequest { get; init; }
    public required double CommandMsPerRequest { get; init; }
    public required double ConnectionsBusyMean { get; init; }
    public required double ConnectionsIdleMean { get; init; }
    /// <summary>Mean number of requests waiting for a pooled connection (pool waits).</summary>
    public required double PendingConnectionRequestsMean { get; init; }
}

[JsonConverter(typeof(JsonStringEnumConverter<FindingKind>))]
public enum FindingKind
{
    ThreadPoolStarvation, LockContention, GcPressure, BlockedThreadsLowCpu, GeneratorSaturated, Errors, Timeouts,
    SyncOverAsync, GcHeadroom, CpuBreakdown,
}

/// <summary>A diagnosis computed from counters and events, naming the recommendation that addresses it.</summary>
/// <param name="Place">The call site the finding names (a method), when the evidence has one.</param>
/// <param name="Strength">Strong when measured at a place (a trace), weak when only counters suggest it.</param>
/// <param name="Title">What was seen, when the kind's name would say less ("Pool thread blocked in Thread.Sleep()"); else null.</param>
public sealed record Finding(
    string Variant, FindingKind Kind, string Message, string Recommendation, string Evidence,
    string? Place = null, EvidenceStrength Strength = EvidenceStrength.Weak,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? Title = null);

/// <summary>One claim of a seed article set beside our figure.</summary>
public sealed record ClaimCheck
{
    public required string Seed { get; init; }
    public required string Claim { get; init; }
    public required string SeedFigure { get; init; }
    public required string OurFigure { get; init; }
    /// <summary>True when our change goes the seed's way and clears the noise; false when it does not; null when undecided.</summary>
    public required bool? DirectionHolds { get; init; }
    /// <summary>holds, contrary, equivalent (no change beyond the noise floor) or inconclusive.</summary>
    public ClaimOutcome Outcome { get; init; } = ClaimOutcome.Inconclusive;
    public required string Note { get; init; }
}
