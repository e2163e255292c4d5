namespace PerfLab.Common;

/// <summary>
/// The dotnet-counters names that code reads by name, whichever source they came from: the one place each is written.
/// Counters/CounterCatalog maps each to its EventCounter and meter instrument; the metric catalog (Results/Metrics)
/// takes a counter metric's key from here, so a counter's name and its metric's key are one string. Common holds them
/// because both need them and neither may use the other.
/// </summary>
public static class CounterNames
{
    public const string CpuUsage = "cpu-usage";
    public const string WorkingSet = "working-set";
    public const string TimeInGc = "time-in-gc";
    public const string AllocRate = "alloc-rate";
    public const string ThreadCount = "threadpool-thread-count";
    public const string QueueLength = "threadpool-queue-length";
    public const string LockContention = "monitor-lock-contention-count";
    public const string MethodsJitted = "methods-jitted-count";

    // The database client's view, from the Npgsql meter (see NpgsqlCounters for the instruments behind each).
    public const string NpgsqlCommands = "npgsql-commands";
    public const string NpgsqlCommandTime = "npgsql-command-time";
    public const string NpgsqlCommandsExecuting = "npgsql-commands-executing";
    public const string NpgsqlConnectionsBusy = "npgsql-connections-busy";
    public const string NpgsqlConnectionsIdle = "npgsql-connections-idle";
    public const string NpgsqlPendingRequests = "npgsql-pending-connection-requests";

    /// <summary>The thread-pool adjustment reason of an injection for starvation.</summary>
    public const string StarvationReason = "Starvation";
}
