using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>Which PostgreSQL perflab works against: an external server, or its own managed cluster.</summary>
public static class DatabaseTarget
{
    public const string ConnectionStringVariable = PerfLabSettings.ConnectionString;

    /// <summary>The explicit connection string, else PERFLAB_CONNECTION_STRING, else null (the managed cluster).</summary>
    public static string? ExternalConnectionString(string? connectionString) =>
        connectionString is { Length: > 0 } ? connectionString
        : Environment.GetEnvironmentVariable(ConnectionStringVariable) is { Length: > 0 } fromEnv ? fromEnv
        : null;

    /// <summary>
    /// The server to work against, its data not checked: the external connection string as given, else the running
    /// managed cluster's. When the managed cluster is not running, throws a <see cref="PerfLabException"/> that names
    /// its data folder followed by <paramref name="whatToDo"/>.
    /// </summary>
    public static string Server(string? connectionString, string? dataDir, string whatToDo)
    {
        if (ExternalConnectionString(connectionString) is { } external)
        {
            return external;
        }
        var status = new ManagedCluster(dataDir).GetStatus();
        return status.Running
            ? status.ConnectionString!
            : throw new PerfLabException($"perflab's PostgreSQL is not running (data folder {status.DataDir}){whatToDo}",
                ExitCode.Unreachable);
    }

    /// <summary>
    /// The connection string of the seeded <c>adventureworks</c> database: the external one as given (database
    /// defaulted to adventureworks when it names none), or the managed cluster's when it runs. Throws a
    /// <see cref="PerfLabException"/> telling what to run when the database is not running or not seeded.
    /// </summary>
    public static async Task<string> ResolveAsync(string? connectionString, string? dataDir, CancellationToken ct)
    {
        var external = ExternalConnectionString(connectionString) is not null;
        var target = Server(connectionString, dataDir, "; run `perflab db start && perflab db seed`, or pass --connection-string.");
        if (external)
        {
            target = new Npgsql.NpgsqlConnectionStringBuilder(target) { Database = DatabaseAdmin.DatabaseName(target) }.ConnectionString;
        }
        var fix = external ? "perflab db seed --connection-string \"...\"" : "perflab db seed";

        var state = await SeedStateStore.ReadAsync(target, ct);
        if (!state.IsCurrent)
        {
            throw new PerfLabException($"the database is {state.Describe()}; run `{fix}`.", ExitCode.Environment);
        }
        return target;
    }
}
