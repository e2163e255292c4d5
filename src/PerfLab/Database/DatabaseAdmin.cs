using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>
/// Administration of the databases perflab uses: connection strings with perflab's defaults, opening connections with
/// a clear error, creating and dropping a database, plain statements.
/// </summary>
internal static class DatabaseAdmin
{
    /// <summary>The server's version string (e.g. "15.14 (Debian 15.14-0+deb12u1)").</summary>
    internal static async Task<string> ReadServerVersionAsync(string connectionString, CancellationToken ct)
    {
        var builder = Normalize(connectionString);
        try
        {
            await using var connection = new NpgsqlConnection(builder.ConnectionString);
            await OpenAsync(connection, builder, ct);
            return connection.ServerVersion;
        }
        catch (PerfLabException ex) when (ex.InnerException is PostgresException
                                          { SqlState: PostgresErrorCodes.InvalidCatalogName })
        {
            await using var connection = new NpgsqlConnection(AdminConnectionString(builder));
            await OpenAsync(connection, builder, ct);
            return connection.ServerVersion;
        }
    }
    /// <summary>Fills in the defaults perflab relies on: the database name, no pooling (admin work must not keep
    /// idle connections that block DROP DATABASE or CREATE DATABASE ... TEMPLATE), bounded waits.</summary>
    internal static NpgsqlConnectionStringBuilder Normalize(string connectionString)
    {
        NpgsqlConnectionStringBuilder builder;
        try
        {
            builder = new NpgsqlConnectionStringBuilder(connectionString);
        }
        catch (ArgumentException ex)
        {
            throw new PerfLabException($"the connection string is not valid: {ex.Message}", ExitCode.Usage, ex);
        }
        builder.Database ??= Seeder.DefaultDatabase;
        builder.Pooling = false;
        if (!connectionString.Contains("Timeout", StringComparison.OrdinalIgnoreCase))
        {
            builder.Timeout = 5;
        }
        return builder;
    }
    internal static async Task EnsureDatabaseAsync(NpgsqlConnectionStringBuilder builder, CancellationToken ct)
    {
        await using var admin = new NpgsqlConnection(AdminConnectionString(builder));
        await OpenAsync(admin, builder, ct);
        await using var exists = new NpgsqlCommand("SELECT 1 FROM pg_database WHERE datname = $1", admin);
        exists.Parameters.Add(new NpgsqlParameter { Value = builder.Database! });
        if (await exists.ExecuteScalarAsync(ct) is not null)
        {
            return;
        }
        try
        {
            await ExecuteAsync(admin, null, $"CREATE DATABASE {QuoteIdentifier(builder.Database!)}", ct);
        }
        catch (PostgresException ex) when (ex.SqlState == PostgresErrorCodes.DuplicateDatabase)
        {
            // Created meanwhile by a concurrent seed: fine.
        }
    }
    internal static async Task DropDatabaseAsync(string connectionString, CancellationToken ct)
    {
        var builder = Normalize(connectionString);
        await using var admin = new NpgsqlConnection(AdminConnectionString(builder));
        await OpenAsync(admin, builder, ct);
        await ExecuteAsync(admin, null, $"DROP DATABASE IF EXISTS {QuoteIdentifier(builder.Database!)} WITH (FORCE)", ct);
    }
    internal static string AdminConnectionString(NpgsqlConnectionStringBuilder builder) =>
        new NpgsqlConnectionStringBuilder(builder.ConnectionString) { Database = "postgres" }.ConnectionString;
    internal static async Task OpenAsync(NpgsqlConnection connection, NpgsqlConnectionStringBuilder builder,
        CancellationToken ct)
    {
        try
        {
            await connection.OpenAsync(ct);
        }
        catch (Exception ex) when (ex is NpgsqlException or TimeoutException && !ct.IsCancellationRequested)
        {
            throw new PerfLabException(
                $"cannot connect to PostgreSQL at {builder.Host}:{builder.Port} (database {connection.Database}): " +
                $"{ex.Message.TrimEnd('.')}. For perflab's own server run `perflab db start`.", ExitCode.Unreachable, ex);
        }
    }
    internal static async Task ExecuteAsync(NpgsqlConnection connection, NpgsqlTransaction? transaction, string sql,
        CancellationToken ct)
    {
        await using var command = new NpgsqlCommand(sql, connection, transaction);
        await command.ExecuteNonQueryAsync(ct);
    }
    internal static string QuoteIdentifier(string name) => "\"" + name.Replace("\"", "\"\"") + "\"";
}
