using Npgsql;

namespace PerfLab.Database;

/// <summary>Whether a PostgreSQL server accepts connections right now (a fresh connection, no pool, a short timeout).</summary>
public static class DatabaseProbe
{
    public static async Task<bool> AcceptsConnectionsAsync(string connectionString, CancellationToken ct)
    {
        try
        {
            var csb = new NpgsqlConnectionStringBuilder(connectionString) { Timeout = 3, Pooling = false };
            await using var connection = new NpgsqlConnection(csb.ConnectionString);
            await connection.OpenAsync(ct);
            return true;
        }
        catch (Exception ex) when (ex is NpgsqlException or TimeoutException or System.Net.Sockets.SocketException)
        {
            return false;
        }
    }
}
