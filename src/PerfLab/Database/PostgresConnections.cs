using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>
/// The one way perflab opens an Npgsql connection: the connection string checked and given perflab's defaults, and a
/// failure to connect turned into one message that says what to do.
/// </summary>
public static class PostgresConnections
{
    public const string DefaultDatabase = "adventureworks";
    private const string AdminDatabase = "postgres";

    /// <summary>Fills in the defaults perflab relies on: the database name, no pooling (admin work must not keep
    /// idle connections that block DROP DATABASE or CREATE DATABASE ... TEMPLATE), bounded waits.</summary>
    public static NpgsqlConnectionStringBuilder Normalize(string connectionString)
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
        builder.Database ??= DefaultDatabase;
        builder.Pooling = false;
        if (!connectionString.Contains("Timeout", StringComparison.OrdinalIgnoreCase))
        {
            builder.Timeout = 5;
        }
        return builder;
    }

    /// <summary>Opens the database the (normalized) connection string names.</summary>
    public static Task<NpgsqlConnection> OpenAsync(string connectionString, CancellationToken ct) =>
        OpenAsync(Normalize(connectionString), ct);

    public static async Task<NpgsqlConnection> OpenAsync(NpgsqlConnectionStringBuilder builder, CancellationToken ct)
    {
        var connection = new NpgsqlConnection(builder.ConnectionString);
        try
        {
            await connection.OpenAsync(ct);
            return connection;
        }
        catch (Exception ex) when (ex is NpgsqlException or TimeoutException && !ct.IsCancellationRequested)
        {
            await connection.DisposeAsync();
            throw new PerfLabException(
                $"cannot connect to PostgreSQL at {builder.Host}:{builder.Port} (database {builder.Database}): " +
                $"{ex.Message.TrimEnd('.')}. For perflab's own server run `perflab db start`.", ExitCode.Unreachable, ex);
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }
    }

    /// <summary>Opens the server's <c>postgres</c> database, for work on a database that may not exist.</summary>
    public static Task<NpgsqlConnection> OpenAdminAsync(NpgsqlConnectionStringBuilder builder, CancellationToken ct) =>
        OpenAsync(new NpgsqlConnectionStringBuilder(builder.ConnectionString) { Database = AdminDatabase }, ct);

    /// <summary>Whether the server accepts a fresh connection right now, within a short timeout.</summary>
    public static async Task<bool> AcceptsConnectionsAsync(string connectionString, CancellationToken ct)
    {
        var builder = new NpgsqlConnectionStringBuilder(connectionString) { Timeout = 3, Pooling = false };
        try
        {
            await using var connection = await OpenAsync(builder, ct);
            return true;
        }
        catch (PerfLabException ex) when (ex.ExitCode == ExitCode.Unreachable)
        {
            return false;
        }
        catch (System.Net.Sockets.SocketException)
        {
            return false;
        }
    }

    /// <summary>True when a connection failed only because the database it names does not exist.</summary>
    public static bool IsMissingDatabase(PerfLabException ex) =>
        ex.InnerException is PostgresException { SqlState: PostgresErrorCodes.InvalidCatalogName };

    public static async Task ExecuteAsync(NpgsqlConnection connection, NpgsqlTransaction? transaction, string sql,
        CancellationToken ct)
    {
        await using var command = new NpgsqlCommand(sql, connection, transaction);
        await command.ExecuteNonQueryAsync(ct);
    }

    public static string QuoteIdentifier(string name) => "\"" + name.Replace("\"", "\"\"") + "\"";
}
