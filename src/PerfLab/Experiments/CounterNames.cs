namespace PerfLab.Experiments;

/// <summary>The dotnet-counters names the analysis reads (whichever source they came from).</summary>
public static class CounterNames
{
    public const string CpuUsage = "cpu-usage";
    public const string WorkingSet = "working-set";
    public const string GcHeapSize = "gc-heap-size";
    public const string TimeInGc = "time-in-gc";
    public const string AllocRate = "alloc-rate";
    public const string ThreadCount = "threadpool-thread-count";
    public const string QueueLength = "threadpool-queue-length";
    public const string CompletedItems = "threadpool-completed-items-count";
    public const string LockContention = "monitor-lock-contention-count";
    public const string ExceptionCount = "exception-count";
    public const string Gen0 = "gen-0-gc-count";
    public const string Gen1 = "gen-1-gc-count";
    public const string Gen2 = "gen-2-gc-count";
    /// <summary>Thread-pool injections for starvation in that second (from the adjustment events).</summary>
    public const string StarvationInjections = "threadpool-starvation-injections";
}
