using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>What <c>perflab db status</c> reports: where the database runs, which PostgreSQL, what it holds.</summary>
public sealed record DatabaseStatus(
    bool Managed,
    string? DataDir,
    bool? Initialized,
    bool Running,
    int? Pid,
    int? Port,
    string? PostgresVersion,
    string? ConnectionString,
    string? Database,
    string? SchemaState,
    int? SchemaVersion,
    int ExpectedSchemaVersion,
    string? Checksum,
    IReadOnlyDictionary<string, long>? Rows,
    string? Error)
{
    /// <summary>Reads the status of the external server, else of perflab's own cluster; an unreachable server is
    /// reported in <see cref="Error"/>, not thrown.</summary>
    public static async Task<DatabaseStatus> ReadAsync(string? connectionString, string? dataDir, CancellationToken ct)
    {
        var external = DatabaseTarget.ExternalConnectionString(connectionString);
        ClusterStatus? cluster = null;
        var target = external;
        if (external is null)
        {
            cluster = new ManagedCluster(dataDir).GetStatus();
            target = cluster.Running ? cluster.ConnectionString : null;
        }

        var version = cluster?.MajorVersion;
        SeedState? state = null;
        string? error = null;
        if (target is not null)
        {
            try
            {
                version = await DatabaseAdmin.ReadServerVersionAsync(target, ct);
                state = await SeedStateStore.ReadAsync(target, ct);
            }
            catch (PerfLabException ex)
            {
                error = ex.Message;
            }
        }

        return new DatabaseStatus(
            Managed: external is null,
            DataDir: cluster?.DataDir,
            Initialized: cluster?.Initialized,
            Running: external is null ? cluster!.Running : error is null,
            Pid: cluster?.Pid,
            Port: cluster?.Port,
            PostgresVersion: version,
            ConnectionString: target ?? cluster?.ConnectionString,
            Database: target is null ? null : DatabaseAdmin.DatabaseName(target),
            SchemaState: state?.Describe(),
            SchemaVersion: state?.SchemaVersion,
            ExpectedSchemaVersion: Seeder.SchemaVersion,
            Checksum: state?.Checksum,
            Rows: state?.Rows,
            Error: error);
    }
}
