using System.Text.Json.Serialization;

namespace PerfLab.Counters;

/// <summary>
/// Everything one collection saw of one process: a per-second timeline of counters (named as dotnet-counters names
/// them), the thread-pool adjustments with their reason, and how the collection ended.
/// </summary>
public sealed record CounterRecording
{
    public required int ProcessId { get; init; }
    public string? ProcessName { get; init; }
    /// <summary>The target's runtime version when it could be read (e.g. "10.0.12"), else null.</summary>
    public string? RuntimeVersion { get; init; }
    public required double IntervalSeconds { get; init; }
    /// <summary>UTC unix milliseconds; the load engine uses the same clock.</summary>
    public required long StartedUnixMs { get; init; }
    public required long EndedUnixMs { get; init; }
    /// <summary>
    /// UTC unix milliseconds of the target's first metrics tick (its timer's phase: a meter's sample of second S holds
    /// the interval that ended on the tick in [S, S + 1)); null when no meter published. The target starts its timer
    /// when it enables the session, which on a busy machine is hundreds of milliseconds after <see cref="StartedUnixMs"/>.
    /// </summary>
    public long? MetersTickUnixMs { get; init; }
    public required CollectionEnding Ending { get; init; }
    /// <summary>Why it ended, in words, when it did not simply complete.</summary>
    public string? EndingDetail { get; init; }
    /// <summary>The counters asked for, with their unit and the source each was actually read from.</summary>
    public required IReadOnlyList<CounterDescriptor> Counters { get; init; }
    /// <summary>One sample per UTC second in which something was published, in time order.</summary>
    public required IReadOnlyList<CounterSample> Samples { get; init; }
    public required IReadOnlyList<ThreadPoolAdjustment> Adjustments { get; init; }
    /// <summary>Problems the target reported (another metrics session in progress, a failing instrument).</summary>
    public IReadOnlyList<string> Warnings { get; init; } = [];
}

/// <summary>
/// The values published during one UTC second [UnixSeconds, UnixSeconds + 1). Rates (kind Rate) are the increment over
/// the collection interval that ended when they were published, so they describe roughly the second before. A counter
/// the target did not publish in that second is absent.
/// </summary>
public sealed record CounterSample(long UnixSeconds, IReadOnlyDictionary<string, double> Values)
{
    public double? Get(string counter) => Values.TryGetValue(counter, out var v) ? v : null;
}

/// <summary>A counter of the recording: dotnet-counters name, unit, and where its values came from.</summary>
public sealed record CounterDescriptor(
    string Name,
    string DisplayName,
    string Unit,
    CounterKind Kind,
    CounterSource? Source,
    string? Provider);

/// <summary>One ThreadPoolWorkerThreadAdjustment/Adjustment event of the runtime.</summary>
public sealed record ThreadPoolAdjustment(
    long UnixMs,
    string Reason,
    int NewWorkerThreadCount,
    double AverageThroughput);

[JsonConverter(typeof(JsonStringEnumConverter<CollectionEnding>))]
public enum CollectionEnding
{
    /// <summary>The requested duration elapsed.</summary>
    Completed,
    /// <summary>Stopped by the caller (Ctrl+C or the runner).</summary>
    Cancelled,
    /// <summary>The target process exited during collection.</summary>
    ProcessExited,
    /// <summary>The event stream ended or failed while the process was still alive.</summary>
    Disconnected,
}

[JsonConverter(typeof(JsonStringEnumConverter<CounterKind>))]
public enum CounterKind
{
    /// <summary>A value at the time of publication (working set, queue length).</summary>
    Gauge,
    /// <summary>An increment over the interval (allocations, completed items, GCs).</summary>
    Rate,
}

[JsonConverter(typeof(JsonStringEnumConverter<CounterSource>))]
public enum CounterSource
{
    /// <summary>A System.Diagnostics.Metrics meter (the .NET 9+ System.Runtime meter).</summary>
    Meter,
    /// <summary>An EventSource's EventCounters (System.Runtime before .NET 9, ASP.NET Core, Kestrel).</summary>
    EventCounters,
    /// <summary>Counted from runtime events (thread-pool adjustments).</summary>
    RuntimeEvents,
}

/// <summary>Which source to read the System.Runtime counters from.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<RuntimeCounterSource>))]
public enum RuntimeCounterSource
{
    /// <summary>The System.Runtime meter on .NET 9+, the EventCounters otherwise.</summary>
    Auto,
    Meter,
    EventCounters,
}

/// <summary>How to collect. Duration null means until cancelled.</summary>
public sealed record CounterOptions
{
    public TimeSpan Interval { get; init; } = TimeSpan.FromSeconds(1);
    public TimeSpan? Duration { get; init; }
    public RuntimeCounterSource Source { get; init; } = RuntimeCounterSource.Auto;
    /// <summary>
    /// The counter providers to read: System.Runtime, Microsoft.AspNetCore.Hosting, Microsoft-AspNetCore-Server-Kestrel,
    /// Npgsql (all by default). System.Runtime brings the thread-pool adjustment events (starvation injections) with it.
    /// Enabling Hosting or Kestrel switches on ASP.NET Core's per-request diagnostics in the target, which costs it CPU
    /// on every request (docs/benchmarks/counters.md, "Counter cost"); System.Runtime alone does not.
    /// </summary>
    public IReadOnlyList<string> Providers { get; init; } = CounterCatalog.Providers;
    /// <summary>
    /// Called once the collector listens: the meters' session has enabled the instruments that exist (or, with no
    /// meter asked, the session has started). An up-down counter's value counts from that moment (Npgsql's pending
    /// connection requests started while load runs would read below zero), so a load waits for it. Not sent to a host.
    /// </summary>
    [JsonIgnore]
    public Action? Listening { get; init; }
}
