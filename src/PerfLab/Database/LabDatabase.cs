using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>What holds for the lab's database for a whole invocation, settled before its first block.</summary>
/// <param name="SharedBuffers">The server's shared_buffers, as SHOW gives it ("256MB").</param>
/// <param name="AutovacuumServer">The server's autovacuum setting (on, unless someone changed it).</param>
/// <param name="AutovacuumOffTables">The lab's tables whose reloptions, read back, hold autovacuum_enabled=false.</param>
/// <param name="StatisticsTakenAt">The latest ANALYZE of the lab's tables the server remembers (null: not known).</param>
/// <param name="AnalyzedNow">True when a table had no statistics at all and was analyzed now.</param>
/// <param name="Prewarm">pg_prewarm could be created: it warms the buffer cache; else a full read of each table.</param>
/// <param name="BufferCache">pg_buffercache could be created: what the buffer cache holds is measured.</param>
public sealed record LabDatabaseSettings(string SharedBuffers, bool AutovacuumServer, IReadOnlyList<string> AutovacuumOffTables,
    DateTimeOffset? StatisticsTakenAt, bool AnalyzedNow, bool Prewarm, bool BufferCache);

/// <summary>
/// The lab's own database settled for an invocation. Nothing writes the lab's tables during a run (the SUT only reads
/// them), so autovacuum has nothing to do there but could still wake on them mid-block, and an ANALYZE re-samples the
/// detail table (121,317 rows against a sample of 30,000): the statistics the planner reads would then differ from one
/// invocation to the next. So autovacuum is switched off on those tables and their statistics stay those the seed
/// took. Only on perflab's own cluster (its data folder holds perflab.json): a user's server is never changed.
/// </summary>
public static class LabDatabase
{
    /// <summary>The file <see cref="ManagedCluster"/> keeps in its data folder: its presence marks the lab's cluster.</summary>
    private const string MarkerFile = "perflab.json";

    /// <summary>The lab's tables, as regclass text.</summary>
    internal static IReadOnlyList<string> TableNames { get; } = [.. Tables.All.Select(t => t.QualifiedName)];

    /// <summary>Null when the server is perflab's own cluster; else why it must be left as it is.</summary>
    public static async Task<string?> WhyNotTheLabsAsync(NpgsqlConnection connection, CancellationToken ct)
    {
        try
        {
            // A field, not the row: a row IS NOT NULL only when every field is, and Linux gives no creation time.
            var marked = (bool)(await ScalarAsync(connection, $"SELECT (pg_stat_file('{MarkerFile}', true)).size IS NOT NULL", ct))!;
            return marked ? null : "a server that is not perflab's own cluster (no perflab.json in its data folder): left as it is";
        }
        catch (PostgresException ex) when (ex.SqlState == PostgresErrorCodes.InsufficientPrivilege)
        {
            return "a server where perflab's user is not a superuser: left as it is";
        }
    }

    /// <summary>
    /// The settings for an invocation: autovacuum off on the lab's tables, statistics taken where none exist, the
    /// extensions the reset uses created where the server has them. Null settings and the reason when the server is
    /// not the lab's.
    /// </summary>
    public static async Task<(LabDatabaseSettings? Settings, string? NotTheLabs)> SettleAsync(string connectionString, CancellationToken ct)
    {
        try
        {
            await using var connection = await PostgresConnections.OpenAsync(connectionString, ct);
            if (await WhyNotTheLabsAsync(connection, ct) is { } why)
            {
                return (null, why);
            }
            foreach (var table in TableNames)
            {
                await PostgresConnections.ExecuteAsync(connection, null, $"ALTER TABLE {table} SET (autovacuum_enabled = false)", ct);
            }
            var analyze = (bool)(await ScalarAsync(connection,
                "SELECT coalesce(bool_or(NOT EXISTS (SELECT 1 FROM pg_statistic s WHERE s.starelid = to_regclass(t))), false) " +
                "FROM unnest($1::text[]) t", ct, TableNames.ToArray()))!;
            if (analyze)
            {
                await PostgresConnections.ExecuteAsync(connection, null, $"ANALYZE {string.Join(", ", TableNames)}", ct);
            }
            var settings = new LabDatabaseSettings(
                (string)(await ScalarAsync(connection, "SHOW shared_buffers", ct))!,
                (string?)await ScalarAsync(connection, "SHOW autovacuum", ct) == "on",
                await AutovacuumOffAsync(connection, ct),
                await StatisticsTakenAtAsync(connection, ct),
                analyze,
                await TryCreateExtensionAsync(connection, "pg_prewarm", ct),
                await TryCreateExtensionAsync(connection, "pg_buffercache", ct));
            return (settings, null);
        }
        catch (NpgsqlException ex) when (!ct.IsCancellationRequested)
        {
            throw new PerfLabException($"could not settle the lab's database: {ex.Message}", ExitCode.Environment, ex);
        }
    }

    /// <summary>The lab's tables whose reloptions hold autovacuum_enabled=false, read back from pg_class.</summary>
    public static async Task<IReadOnlyList<string>> AutovacuumOffAsync(NpgsqlConnection connection, CancellationToken ct)
    {
        await using var command = new NpgsqlCommand(
            "SELECT t FROM unnest($1::text[]) t JOIN pg_class c ON c.oid = to_regclass(t) " +
            "WHERE 'autovacuum_enabled=false' = ANY(c.reloptions) ORDER BY t", connection);
        command.Parameters.Add(new NpgsqlParameter { Value = TableNames.ToArray() });
        var tables = new List<string>();
        await using var reader = await command.ExecuteReaderAsync(ct);
        while (await reader.ReadAsync(ct))
        {
            tables.Add(reader.GetString(0));
        }
        return tables;
    }

    private static async Task<DateTimeOffset?> StatisticsTakenAtAsync(NpgsqlConnection connection, CancellationToken ct)
    {
        var taken = await ScalarAsync(connection,
            "SELECT max(greatest(s.last_analyze, s.last_autoanalyze)) FROM pg_stat_user_tables s " +
            "WHERE s.relid IN (SELECT to_regclass(t) FROM unnest($1::text[]) t)", ct, TableNames.ToArray());
        return taken is DateTime time ? new DateTimeOffset(DateTime.SpecifyKind(time, DateTimeKind.Utc)) : null;
    }

    /// <summary>
    /// Creates the extension in public unless it exists; false when the server lacks it. The Debian and Ubuntu
    /// postgresql packages ship pg_prewarm and pg_buffercache; other builds may not.
    /// </summary>
    private static async Task<bool> TryCreateExtensionAsync(NpgsqlConnection connection, string name, CancellationToken ct)
    {
        try
        {
            await PostgresConnections.ExecuteAsync(connection, null, $"CREATE EXTENSION IF NOT EXISTS {name} SCHEMA public", ct);
            return true;
        }
        catch (PostgresException ex) when (ex.SqlState is PostgresErrorCodes.UndefinedFile or PostgresErrorCodes.InsufficientPrivilege
            or PostgresErrorCodes.FeatureNotSupported)
        {
            return false;
        }
        catch (PostgresException ex) when (ex.SqlState == PostgresErrorCodes.UniqueViolation)
        {
            // Created at the same moment by another connection.
            return true;
        }
    }

    /// <summary>The first column of the first row, null for SQL NULL; <paramref name="parameter"/> is $1 when given.</summary>
    internal static async Task<object?> ScalarAsync(NpgsqlConnection connection, string sql, CancellationToken ct, object? parameter = null)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        if (parameter is not null)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = parameter });
        }
        return await command.ExecuteScalarAsync(ct) is var value and not DBNull ? value : null;
    }
}
