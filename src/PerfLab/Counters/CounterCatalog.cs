using PerfLab.Common;

namespace PerfLab.Counters;

/// <summary>How a meter instrument's published figure becomes the dotnet-counters value.</summary>
internal enum MeterTransform
{
    None,
    /// <summary>Seconds of CPU in the interval, as % of the interval times the processor count (cpu-usage).</summary>
    CpuPercent,
    /// <summary>Seconds spent in the interval, as % of the interval (time-in-gc from GC pause time).</summary>
    PercentOfInterval,
}

/// <summary>Which figure of a histogram's interval a counter takes (published with .NET 8+'s HistogramValuePublished).</summary>
internal enum HistogramPart
{
    None,
    Count,
    Sum,
}

/// <summary>Where a counter lives in a meter: summed over the series whose tag <c>TagKey</c> is one of <c>TagValues</c>.</summary>
internal sealed record MeterReading(
    string Meter,
    string Instrument,
    bool UseRate,
    double Scale = 1,
    MeterTransform Transform = MeterTransform.None,
    string? TagKey = null,
    string[]? TagValues = null,
    bool ZeroUntilFirstMeasurement = false,
    HistogramPart Histogram = HistogramPart.None);

/// <param name="OlderMeter">The same figure under the name an older version of the library published it (Npgsql 8/9).</param>
internal sealed record CounterDefinition(
    string Name,
    string DisplayName,
    string Unit,
    CounterKind Kind,
    string EventSource,
    MeterReading? Meter,
    MeterReading? OlderMeter = null)
{
    public IEnumerable<MeterReading> Readings => new[] { Meter, OlderMeter }.OfType<MeterReading>();
}

/// <summary>
/// The one mapping table: each counter under its dotnet-counters name, the EventCounter that carries it and, for the
/// runtime counters, the .NET 9+ System.Runtime meter instrument it is computed from.
/// </summary>
internal static class CounterCatalog
{
    public const string RuntimeEventSource = "System.Runtime";
    public const string RuntimeMeter = "System.Runtime";
    public const string HostingEventSource = "Microsoft.AspNetCore.Hosting";
    public const string KestrelEventSource = "Microsoft-AspNetCore-Server-Kestrel";
    public const string StarvationCounter = "threadpool-starvation-injections";
    public const string NpgsqlMeter = "Npgsql";

    // Semantics follow the EventCounters so that both sources give the same figure: GC.CollectionCount(0) counts every
    // GC that collected gen 0 (gen-1 and gen-2 GCs too), whereas the meter tags each GC with its highest generation.
    // Two are close relatives, not equals: gc-heap-size is GC.GetTotalMemory for EventCounters but the heap size after
    // the last GC for the meter; time-in-gc is "% time in GC since last GC" for EventCounters but the share of the
    // interval spent paused for the meter. Working set and heap size use MB = 1,000,000 bytes, as the runtime does.
    public static readonly IReadOnlyList<CounterDefinition> All =
    [
        new(CounterNames.CpuUsage, "CPU Usage", "%", CounterKind.Gauge, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.process.cpu.time", UseRate: true, Transform: MeterTransform.CpuPercent)),
        new(CounterNames.WorkingSet, "Working Set", "MB", CounterKind.Gauge, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.process.memory.working_set", UseRate: false, Scale: 1e-6)),
        new("gc-heap-size", "GC Heap Size", "MB", CounterKind.Gauge, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.gc.last_collection.heap.size", UseRate: false, Scale: 1e-6)),
        new(CounterNames.TimeInGc, "% Time in GC since last GC", "%", CounterKind.Gauge, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.gc.pause.time", UseRate: true, Transform: MeterTransform.PercentOfInterval)),
        new(CounterNames.AllocRate, "Allocation Rate", "B", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.gc.heap.total_allocated", UseRate: true)),
        new("gen-0-gc-count", "Gen 0 GC Count", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.gc.collections", UseRate: true, TagKey: "gc.heap.generation", TagValues: ["gen0", "gen1", "gen2"])),
        new("gen-1-gc-count", "Gen 1 GC Count", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.gc.collections", UseRate: true, TagKey: "gc.heap.generation", TagValues: ["gen1", "gen2"])),
        new("gen-2-gc-count", "Gen 2 GC Count", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.gc.collections", UseRate: true, TagKey: "gc.heap.generation", TagValues: ["gen2"])),
        new(CounterNames.ThreadCount, "ThreadPool Thread Count", "count", CounterKind.Gauge, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.thread_pool.thread.count", UseRate: false)),
        new(CounterNames.QueueLength, "ThreadPool Queue Length", "count", CounterKind.Gauge, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.thread_pool.queue.length", UseRate: false)),
        new("threadpool-completed-items-count", "ThreadPool Completed Work Item Count", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.thread_pool.work_item.count", UseRate: true)),
        new(CounterNames.LockContention, "Monitor Lock Contention Count", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.monitor.lock_contentions", UseRate: true)),
        // dotnet.exceptions is a synchronous counter: the meter publishes no series for it before the first exception.
        // Tiered compilation keeps recompiling hot methods for many seconds under load; these show when it has settled.
        new(CounterNames.MethodsJitted, "Number of Methods Jitted", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.jit.compiled_methods", UseRate: true)),
        new("time-in-jit", "Time spent in JIT", "ms", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.jit.compilation.time", UseRate: true, Scale: 1000)),
        new("exception-count", "Exception Count", "count", CounterKind.Rate, RuntimeEventSource,
            new(RuntimeMeter, "dotnet.exceptions", UseRate: true, ZeroUntilFirstMeasurement: true)),
        // ASP.NET Core and Kestrel keep their EventCounters on every runtime we support; their meters only offer
        // histograms for the request rate, which cost the target more to keep.
        new("requests-per-second", "Request Rate", "count", CounterKind.Rate, HostingEventSource, null),
        new("current-requests", "Current Requests", "count", CounterKind.Gauge, HostingEventSource, null),
        new("current-connections", "Current Connections", "count", CounterKind.Gauge, KestrelEventSource, null),
        new("connections-per-second", "Connection Rate", "count", CounterKind.Rate, KestrelEventSource, null),
        .. NpgsqlCounters.All,
    ];

    /// <summary>The providers a collection can ask for, under the names dotnet-counters' --counters takes.</summary>
    public static readonly IReadOnlyList<string> Providers = [RuntimeEventSource, HostingEventSource, KestrelEventSource, NpgsqlMeter];

    /// <summary>The counters the given providers publish, in catalog order; System.Runtime's include the starvation injections.</summary>
    public static IReadOnlyList<CounterDefinition> Of(IReadOnlyCollection<string> providers)
    {
        var definitions = All.Where(d => providers.Contains(d.EventSource));
        return [.. providers.Contains(RuntimeEventSource) ? definitions.Append(Starvation) : definitions];
    }

    /// <summary>
    /// Reads a --counters list as dotnet-counters writes it (comma- or space-separated provider names, any case) into
    /// the canonical names; null and a message naming the unknown entry when one is not a provider perflab reads.
    /// </summary>
    public static IReadOnlyList<string>? ParseProviders(IEnumerable<string> tokens, out string? error)
    {
        var names = new List<string>();
        foreach (var entry in tokens.SelectMany(t => t.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)))
        {
            var known = Providers.FirstOrDefault(p => p.Equals(entry, StringComparison.OrdinalIgnoreCase));
            if (known is null)
            {
                error = entry.Contains('[', StringComparison.Ordinal)
                    ? $"'{entry}': perflab reads whole providers, not single counters in brackets; use one "
                        + $"of {string.Join(", ", Providers)}."
                    : $"'{entry}' is not a counter provider perflab reads; use one or more of {string.Join(", ", Providers)}.";
                return null;
            }
            if (!names.Contains(known))
            {
                names.Add(known);
            }
        }
        error = names.Count == 0 ? $"name at least one provider: {string.Join(", ", Providers)}." : null;
        return error is null ? names : null;
    }

    /// <summary>Counted from ThreadPoolWorkerThreadAdjustment events whose reason is Starvation; not a runtime counter.</summary>
    public static readonly CounterDefinition Starvation =
        new(StarvationCounter, "ThreadPool Starvation Injections", "count", CounterKind.Rate, "Microsoft-Windows-DotNETRuntime", null);

    /// <summary>The process-wide CPU count the meter reports, needed to turn CPU seconds into cpu-usage.</summary>
    public const string CpuCountInstrument = "dotnet.process.cpu.count";

    // Reasons of the runtime's ThreadAdjustmentReason (clretwall.man); named here so newer values print as words.
    private static readonly string[] _adjustmentReasons =
        ["Warmup", "Initializing", "RandomMove", "ClimbingMove", "ChangePoint", "Stabilizing", CounterNames.StarvationReason,
            "ThreadTimedOut", "CooperativeBlocking"];

    public static string AdjustmentReason(int reason) =>
        reason >= 0 && reason < _adjustmentReasons.Length
            ? _adjustmentReasons[reason]
            : "Reason" + reason.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
