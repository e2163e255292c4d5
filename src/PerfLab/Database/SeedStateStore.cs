using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>
/// The marker a seed leaves in <c>perflab.schema_info</c> (schema version, seed, checksum) and the row counts, read
/// back to tell whether a database is current or stale.
/// </summary>
public static class SeedStateStore
{
    /// <summary>Reads the schema marker and row counts; a missing database or tables is reported, not thrown.</summary>
    public static async Task<SeedState> ReadAsync(string connectionString, CancellationToken ct)
    {
        NpgsqlConnection connection;
        try
        {
            connection = await PostgresConnections.OpenAsync(connectionString, ct);
        }
        catch (PerfLabException ex) when (PostgresConnections.IsMissingDatabase(ex))
        {
            return new SeedState(false, null, null, null, null, 0, 0, 0);
        }
        await using (connection)
        {
            return await ReadAsync(connection, null, ct);
        }
    }

    internal static async Task WriteMarkerAsync(NpgsqlConnection connection, NpgsqlTransaction transaction,
        string checksum, CancellationToken ct)
    {
        await using var marker = new NpgsqlCommand(
            """INSERT INTO perflab.schema_info ("SchemaVersion", "Seed", "Checksum") VALUES ($1, $2, $3)""",
            connection, transaction);
        marker.Parameters.Add(new NpgsqlParameter { Value = Seeder.SchemaVersion });
        marker.Parameters.Add(new NpgsqlParameter { Value = (int)AdventureWorksData.DefaultSeed });
        marker.Parameters.Add(new NpgsqlParameter { Value = checksum });
        await marker.ExecuteNonQueryAsync(ct);
    }

    internal static async Task<SeedState> ReadAsync(NpgsqlConnection connection, NpgsqlTransaction? transaction,
        CancellationToken ct)
    {
        await using var command = new NpgsqlCommand(
            "SELECT to_regclass('perflab.schema_info') IS NOT NULL, " +
            string.Join(", ", Tables.All.Select(t => $"to_regclass('{t.QualifiedName}') IS NOT NULL")),
            connection, transaction);
        var exists = new bool[Tables.All.Count + 1];
        await using (var reader = await command.ExecuteReaderAsync(ct))
        {
            await reader.ReadAsync(ct);
            for (var i = 0; i < exists.Length; i++)
            {
                exists[i] = reader.GetBoolean(i);
            }
        }

        var (version, seed, checksum, seededAt) = exists[0] ? await ReadMarkerAsync(command, ct) : default;
        var counts = new long[Tables.All.Count];
        for (var i = 0; i < counts.Length; i++)
        {
            if (exists[i + 1])
            {
                command.CommandText = $"SELECT count(*) FROM {Tables.All[i].QualifiedName}";
                counts[i] = (long)(await command.ExecuteScalarAsync(ct))!;
            }
        }
        return new SeedState(true, version, seed, checksum, seededAt, counts[0], counts[1], counts[2]);
    }

    private static async Task<(int?, long?, string?, DateTimeOffset?)> ReadMarkerAsync(NpgsqlCommand command,
        CancellationToken ct)
    {
        command.CommandText = """
            SELECT "SchemaVersion", "Seed", "Checksum", "SeededAt" FROM perflab.schema_info
            ORDER BY "SeededAt" DESC LIMIT 1
            """;
        await using var reader = await command.ExecuteReaderAsync(ct);
        return await reader.ReadAsync(ct)
            ? (reader.GetInt32(0), reader.GetInt32(1), reader.GetString(2), reader.GetFieldValue<DateTimeOffset>(3))
            : default;
    }
}
