using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>Server-level work on the database a connection string names: whether it exists, create, drop, version.</summary>
public static class DatabaseAdmin
{
    /// <summary>The name of the database perflab works in (adventureworks when the connection string names none).</summary>
    public static string DatabaseName(string connectionString) => PostgresConnections.Normalize(connectionString).Database!;

    public static async Task<bool> ExistsAsync(NpgsqlConnectionStringBuilder builder, CancellationToken ct)
    {
        await using var admin = await PostgresConnections.OpenAdminAsync(builder, ct);
        return await ExistsAsync(admin, builder.Database!, ct);
    }

    /// <summary>Creates the database when missing; a concurrent creation is not an error.</summary>
    public static async Task EnsureExistsAsync(NpgsqlConnectionStringBuilder builder, CancellationToken ct)
    {
        await using var admin = await PostgresConnections.OpenAdminAsync(builder, ct);
        if (await ExistsAsync(admin, builder.Database!, ct))
        {
            return;
        }
        try
        {
            await PostgresConnections.ExecuteAsync(admin, null,
                $"CREATE DATABASE {PostgresConnections.QuoteIdentifier(builder.Database!)}", ct);
        }
        catch (PostgresException ex) when (ex.SqlState == PostgresErrorCodes.DuplicateDatabase)
        {
            // Created meanwhile by a concurrent seed: fine.
        }
    }

    /// <summary>Drops the database, closing the connections other sessions hold on it.</summary>
    public static async Task DropAsync(string connectionString, CancellationToken ct)
    {
        var builder = PostgresConnections.Normalize(connectionString);
        await using var admin = await PostgresConnections.OpenAdminAsync(builder, ct);
        await PostgresConnections.ExecuteAsync(admin, null,
            $"DROP DATABASE IF EXISTS {PostgresConnections.QuoteIdentifier(builder.Database!)} WITH (FORCE)", ct);
    }

    /// <summary>The server's version string (e.g. "15.14 (Debian 15.14-0+deb12u1)"), even when the database is missing.</summary>
    public static async Task<string> ReadServerVersionAsync(string connectionString, CancellationToken ct)
    {
        var builder = PostgresConnections.Normalize(connectionString);
        try
        {
            await using var connection = await PostgresConnections.OpenAsync(builder, ct);
            return connection.ServerVersion;
        }
        catch (PerfLabException ex) when (PostgresConnections.IsMissingDatabase(ex))
        {
            await using var connection = await PostgresConnections.OpenAdminAsync(builder, ct);
            return connection.ServerVersion;
        }
    }

    private static async Task<bool> ExistsAsync(NpgsqlConnection admin, string database, CancellationToken ct)
    {
        await using var exists = new NpgsqlCommand("SELECT 1 FROM pg_database WHERE datname = $1", admin);
        exists.Parameters.Add(new NpgsqlParameter { Value = database });
        return await exists.ExecuteScalarAsync(ct) is not null;
    }
}
