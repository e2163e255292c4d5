using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>Gets a seeded database ready for a run, starting and seeding perflab's own cluster when needed.</summary>
public static class DatabasePreparation
{
    /// <returns>The connection string of the seeded database and a description for the report's provenance.</returns>
    public static async Task<(string ConnectionString, string Description)> EnsureReadyAsync(
        string? connectionString, string? dataDir, IProgress<string> progress, CancellationToken ct)
    {
        var external = DatabaseTarget.ExternalConnectionString(connectionString);
        if (external is not null)
        {
            var target = await DatabaseTarget.ResolveAsync(external, dataDir, ct);
            var csb = new Npgsql.NpgsqlConnectionStringBuilder(target);
            return (target, $"external PostgreSQL at {csb.Host}:{csb.Port}, database {csb.Database}");
        }

        var cluster = new ManagedCluster(dataDir);
        var status = cluster.GetStatus();
        if (!status.Running)
        {
            progress.Report($"starting perflab's PostgreSQL ({cluster.DataDir})...");
            status = (await cluster.StartAsync(port: null, ct)).Status;
        }
        var connection = status.ConnectionString!;
        await SeedIfNeededAsync(connection, progress, ct);
        return (connection, $"perflab's PostgreSQL {status.MajorVersion} on 127.0.0.1:{status.Port} ({cluster.DataDir})");
    }

    /// <summary>Seeds the AdventureWorks data unless the database already holds this version of it.</summary>
    public static async Task SeedIfNeededAsync(string connection, IProgress<string> progress, CancellationToken ct)
    {
        var state = await SeedStateStore.ReadAsync(connection, ct);
        if (!state.IsCurrent)
        {
            progress.Report($"seeding the AdventureWorks data ({state.Describe()})...");
            await Seeder.SeedAsync(connection,
                new InlineProgress<SeedProgress>(p => progress.Report($"    {p.Step}: {p.Rows} rows, {p.Elapsed.TotalSeconds:0.0} s")), ct);
        }
    }

    /// <summary>
    /// Reads every table once, so that the first variant measured does not pay for cold caches that the later ones
    /// find warm (a bias against whichever variant runs first).
    /// </summary>
    public static async Task WarmAsync(string connectionString, CancellationToken ct)
    {
        await using var connection = await PostgresConnections.OpenAsync(connectionString, ct);
        foreach (var table in Tables.All)
        {
            await using var command = new Npgsql.NpgsqlCommand(
                $"SELECT count(*), sum(length(t::text)) FROM {table.QualifiedName} t", connection) { CommandTimeout = 120 };
            await command.ExecuteScalarAsync(ct);
        }
    }

    /// <summary>Pins this process (the load generator) and the managed PostgreSQL to the CPU lists given (null: not pinned).</summary>
    public static async Task ApplyLayoutAsync(string? generatorCpus, string? databaseCpus, string? connectionString, string? dataDir,
        CancellationToken ct)
    {
        if (generatorCpus is not null)
        {
            await CpuSets.PinAsync(Environment.ProcessId, generatorCpus, ct);
        }
        if (databaseCpus is not null && DatabaseTarget.ExternalConnectionString(connectionString) is null
            && new ManagedCluster(dataDir).GetStatus() is { Running: true, Pid: { } pid })
        {
            await CpuSets.PinAsync(pid, databaseCpus, ct);
        }
    }
}
