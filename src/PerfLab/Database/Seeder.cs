using System.Diagnostics;
using System.Reflection;
using System.Security.Cryptography;
using Npgsql;

namespace PerfLab.Database;

/// <summary>What a seed did.</summary>
public enum SeedOutcome
{
    /// <summary>The database was empty (or missing) and has been seeded.</summary>
    Seeded,
    /// <summary>The database already held the current schema and data; nothing was done.</summary>
    AlreadyCurrent,
    /// <summary>The database held another schema version (or a partial seed); it was dropped and seeded again.</summary>
    Reseeded,
}

/// <summary>Progress of a seed: a table finished loading, or a step finished.</summary>
public sealed record SeedProgress(string Step, int Rows, TimeSpan Elapsed);

/// <summary>The result of <see cref="Seeder.SeedAsync"/>.</summary>
public sealed record SeedResult(SeedOutcome Outcome, string Database, int SchemaVersion, string Checksum,
    TimeSpan Elapsed, int? PreviousSchemaVersion);

/// <summary>
/// Creates the AdventureWorks-shaped schema (schema.sql) and loads deterministic data into it with binary COPY, in one
/// transaction, so an interrupted seed leaves nothing behind.
/// </summary>
public static class Seeder
{
    /// <summary>Bump when schema.sql or the generated data change; a database with another version is stale.</summary>
    public const int SchemaVersion = 1;

    /// <summary>
    /// The SHA-256 of every value the default seed loads, as <see cref="RowSink"/> hashes it. A database whose stored
    /// checksum differs holds other data (a perflab whose generator changed without a schema bump) and is stale, so
    /// two results are never measured on different data under the same version. A test pins this value.
    /// </summary>
    public const string DataChecksum = "0ee59c5c4eba262f69ee79085997f5181fbe19e80ed3d917fabc98a7b1bea175";

    // Serializes concurrent seeds of one database (two `perflab db seed` at once, parallel test classes).
    private const long SeedLockKey = 0x5045_5246_4C41_4231;

    /// <summary>
    /// Seeds the database named in <paramref name="connectionString"/> (<c>adventureworks</c> when it names none),
    /// creating it when missing. Does nothing on a current database; drops and re-seeds a stale one.
    /// </summary>
    public static async Task<SeedResult> SeedAsync(string connectionString, IProgress<SeedProgress>? progress,
        CancellationToken ct) => await SeedCoreAsync(connectionString, progress, force: false, ct);

    /// <summary>Drops what perflab seeded (the whole database when <paramref name="dropDatabase"/>) and seeds again.</summary>
    public static async Task<SeedResult> ResetAsync(string connectionString, bool dropDatabase,
        IProgress<SeedProgress>? progress, CancellationToken ct)
    {
        if (dropDatabase)
        {
            await DatabaseAdmin.DropAsync(connectionString, ct);
        }
        return await SeedCoreAsync(connectionString, progress, force: true, ct);
    }

    internal static string ReadSchemaSql()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("PerfLab.Database.schema.sql")
            ?? throw new InvalidOperationException("schema.sql is not embedded in perflab.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }

    private static async Task<SeedResult> SeedCoreAsync(string connectionString, IProgress<SeedProgress>? progress,
        bool force, CancellationToken ct)
    {
        var clock = Stopwatch.StartNew();
        var builder = PostgresConnections.Normalize(connectionString);
        builder.CommandTimeout = 300;
        await DatabaseAdmin.EnsureExistsAsync(builder, ct);

        await using var connection = await PostgresConnections.OpenAsync(builder, ct);
        await using var transaction = await connection.BeginTransactionAsync(ct);
        await PostgresConnections.ExecuteAsync(connection, transaction, $"SELECT pg_advisory_xact_lock({SeedLockKey})", ct);

        var state = await SeedStateStore.ReadAsync(connection, transaction, ct);
        if (state.IsCurrent && !force)
        {
            return new SeedResult(SeedOutcome.AlreadyCurrent, builder.Database!, SchemaVersion, state.Checksum ?? "",
                clock.Elapsed, state.SchemaVersion);
        }

        var schemas = Tables.All.Select(t => PostgresConnections.QuoteIdentifier(t.Schema)).Distinct().Append("perflab");
        await PostgresConnections.ExecuteAsync(connection, transaction,
            $"DROP SCHEMA IF EXISTS {string.Join(", ", schemas)} CASCADE", ct);
        await PostgresConnections.ExecuteAsync(connection, transaction, ReadSchemaSql(), ct);
        progress?.Report(new SeedProgress("schema", 0, clock.Elapsed));

        var checksum = await LoadAsync(connection, progress, clock, ct);
        await SeedStateStore.WriteMarkerAsync(connection, transaction, checksum, ct);
        await transaction.CommitAsync(ct);

        // Fresh statistics and a visibility map, so the first measured queries plan and scan like the later ones.
        await PostgresConnections.ExecuteAsync(connection, null,
            $"VACUUM (ANALYZE) {string.Join(", ", Tables.All.Select(t => t.QualifiedName))}", ct);
        progress?.Report(new SeedProgress("analyzed", 0, clock.Elapsed));

        return new SeedResult(state.HasContent || force ? SeedOutcome.Reseeded : SeedOutcome.Seeded, builder.Database!,
            SchemaVersion, checksum, clock.Elapsed, state.SchemaVersion);
    }

    /// <returns>The checksum of every value loaded.</returns>
    private static async Task<string> LoadAsync(NpgsqlConnection connection, IProgress<SeedProgress>? progress,
        Stopwatch clock, CancellationToken ct)
    {
        var data = AdventureWorksData.Generate();
        progress?.Report(new SeedProgress("generated", data.Products.Count + data.Headers.Count + data.Details.Count,
            clock.Elapsed));

        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var sink = new RowSink(hash);
        await CopyAsync(connection, sink, Tables.Product, data.Products, progress, clock, ct);
        await CopyAsync(connection, sink, Tables.SalesOrderHeader, data.Headers, progress, clock, ct);
        await CopyAsync(connection, sink, Tables.SalesOrderDetail, data.Details, progress, clock, ct);
        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }

    private static async Task CopyAsync<T>(NpgsqlConnection connection, RowSink sink, TableDescriptor<T> table,
        IReadOnlyList<T> rows, IProgress<SeedProgress>? progress, Stopwatch clock, CancellationToken ct)
    {
        await using (var importer = await connection.BeginBinaryImportAsync(table.CopyCommand, ct))
        {
            sink.Importer = importer;
            foreach (var row in rows)
            {
                await table.WriteRowAsync(sink, row, ct);
            }
            await importer.CompleteAsync(ct);
        }
        sink.Importer = null;
        progress?.Report(new SeedProgress(table.DisplayName, rows.Count, clock.Elapsed));
    }
}
