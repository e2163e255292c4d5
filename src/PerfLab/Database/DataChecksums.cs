using System.Security.Cryptography;

namespace PerfLab.Database;

/// <summary>Two fingerprints of the seeded data: the one a seed computes from what it loads, and one read back from
/// the rows PostgreSQL holds.</summary>
public static class DataChecksums
{
    /// <summary>
    /// An MD5 over every stored row of the seeded tables in key order, computed columns included, as PostgreSQL
    /// holds them: two databases seeded alike give the same value.
    /// </summary>
    public static async Task<string> ReadStoredAsync(string connectionString, CancellationToken ct)
    {
        await using var connection = await PostgresConnections.OpenAsync(connectionString, ct);
        var parts = Tables.All.Select(t =>
            $"(SELECT md5(string_agg(t::text, E'\\n' ORDER BY "
                + $"{string.Join(", ", t.Key.Select(k => "t." + PostgresConnections.QuoteIdentifier(k)))})) FROM {t.QualifiedName} t)");
        await using var command = new Npgsql.NpgsqlCommand($"SELECT md5({string.Join(" || ", parts)})", connection);
        command.CommandTimeout = 120;
        return (string)(await command.ExecuteScalarAsync(ct))!;
    }

    /// <summary>The checksum a seed of <paramref name="data"/> stores, computed without a database.</summary>
    internal static async Task<string> ComputeAsync(AdventureWorksData data, CancellationToken ct)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var sink = new RowSink(hash);
        foreach (var p in data.Products)
        {
            await Tables.Product.WriteRowAsync(sink, p, ct);
        }
        foreach (var h in data.Headers)
        {
            await Tables.SalesOrderHeader.WriteRowAsync(sink, h, ct);
        }
        foreach (var d in data.Details)
        {
            await Tables.SalesOrderDetail.WriteRowAsync(sink, d, ct);
        }
        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }
}
