namespace PerfLab.Experiments;

/// <summary>The dotnet-counters names the analysis reads (whichever source they came from; see Counters/CounterCatalog).</summary>
public static class CounterNames
{
    public const string CpuUsage = "cpu-usage";
    public const string TimeInGc = "time-in-gc";
    public const string AllocRate = "alloc-rate";
    public const string ThreadCount = "threadpool-thread-count";
    public const string QueueLength = "threadpool-queue-length";
    public const string LockContention = "monitor-lock-contention-count";
}
