namespace PerfLab.Counters;

/// <summary>
/// The dotnet-counters names that code reads by name (whichever source they came from; see
/// <see cref="CounterCatalog"/>).
/// </summary>
public static class CounterNames
{
    public const string CpuUsage = "cpu-usage";
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
