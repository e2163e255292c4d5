using PerfLab.Cli;

namespace PerfLab.Database;

/// <summary>Which PostgreSQL perflab works against: an external server, or its own managed cluster.</summary>
public static class DatabaseTarget
{
    public const string ConnectionStringVariable = "PERFLAB_CONNECTION_STRING";

    /// <summary>The explicit connection string, else PERFLAB_CONNECTION_STRING, else null (the managed cluster).</summary>
    public static string? ExternalConnectionString(string? connectionString) =>
        connectionString is { Length: > 0 } ? connectionString
        : Environment.GetEnvironmentVariable(ConnectionStringVariable) is { Length: > 0 } fromEnv ? fromEnv
        : null;

    /// <summary>
    /// The connection string of the seeded <c>adventureworks</c> database: the external one as given (database
    /// defaulted to adventureworks when it names none), or the managed cluster's when it runs. Throws a
    /// <see cref="PerfLabException"/> telling what to run when the database is not running or not seeded.
    /// </summary>
    public static async Task<string> ResolveAsync(string? connectionString, string? dataDir, CancellationToken ct)
    {
        var external = ExternalConnectionString(connectionString);
        string target;
        string fix;
        if (external is not null)
        {
            var builder = Seeder.Normalize(external);
            target = new Npgsql.NpgsqlConnectionStringBuilder(external) { Database = builder.Database }.ConnectionString;
            fix = "perflab db seed --connection-string \"...\"";
        }
        else
        {
            var status = new ManagedCluster(dataDir).GetStatus();
            if (!status.Running)
            {
                throw new PerfLabException(
                    $"perflab's PostgreSQL is not running (data folder {status.DataDir}); run " +
                    "`perflab db start && perflab db seed`, or pass --connection-string.", ExitCode.Unreachable);
            }
            target = status.ConnectionString!;
            fix = "perflab db seed";
        }

        var state = await Seeder.ReadStateAsync(target, ct);
        if (!state.IsCurrent)
        {
            throw new PerfLabException($"the database is {state.Describe()}; run `{fix}`.", ExitCode.Environment);
        }
        return target;
    }
}
