namespace PerfLab.Database;

/// <summary>Whether a PostgreSQL server accepts connections right now (a fresh connection, no pool, a short timeout).</summary>
public static class DatabaseProbe
{
    public static Task<bool> AcceptsConnectionsAsync(string connectionString, CancellationToken ct) =>
        PostgresConnections.AcceptsConnectionsAsync(connectionString, ct);
}
