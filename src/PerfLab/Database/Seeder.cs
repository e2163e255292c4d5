using System.Diagnostics;
using System.Reflection;
using Npgsql;
using PerfLab.Common;

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

/// <summary>What a database holds, as far as perflab is concerned.</summary>
public sealed record SeedState(
    bool DatabaseExists,
    int? SchemaVersion,
    long? Seed,
    string? Checksum,
    DateTimeOffset? SeededAt,
    long Products,
    long OrderHeaders,
    long OrderDetails)
{
    /// <summary>Seeded with the schema version, seed and data this perflab would write.</summary>
    public bool IsCurrent => SchemaVersion == Seeder.SchemaVersion && Seed == (long)AdventureWorksData.DefaultSeed
                             && Checksum == Seeder.DataChecksum;

    /// <summary>"current", "not seeded" or "stale: schema vN, perflab expects vM".</summary>
    public string Describe() => (DatabaseExists, SchemaVersion) switch
    {
        (false, _) => "not seeded (database missing)",
        (true, null) when Products + OrderHeaders + OrderDetails > 0 => "stale: tables without a schema marker",
        (true, null) => "not seeded",
        _ when IsCurrent => $"current (schema v{SchemaVersion})",
        _ when SchemaVersion == Seeder.SchemaVersion && Checksum != Seeder.DataChecksum =>
            "stale: its rows differ from the data this perflab generates (checksum)",
        _ => $"stale: schema v{SchemaVersion}, perflab expects v{Seeder.SchemaVersion}",
    };
}

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
    public const string DefaultDatabase = "adventureworks";


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
            await DatabaseAdmin.DropDatabaseAsync(connectionString, ct);
        }
        return await SeedCoreAsync(connectionString, progress, force: true, ct);
    }

    /// <summary>Reads the schema marker and row counts; a missing database or tables is reported, not thrown.</summary>
    public static async Task<SeedState> ReadStateAsync(string connectionString, CancellationToken ct)
    {
        var builder = DatabaseAdmin.Normalize(connectionString);
        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        try
        {
            await DatabaseAdmin.OpenAsync(connection, builder, ct);
        }
        catch (PerfLabException ex) when (ex.InnerException is PostgresException
                                          { SqlState: PostgresErrorCodes.InvalidCatalogName })
        {
            return new SeedState(false, null, null, null, null, 0, 0, 0);
        }
        return await ReadStateAsync(connection, null, ct);
    }

    /// <summary>
    /// An MD5 over every stored row of the three tables in key order, computed columns included, as PostgreSQL
    /// holds them: two databases seeded alike give the same value.
    /// </summary>
    public static async Task<string> ReadDataChecksumAsync(string connectionString, CancellationToken ct)
    {
        var builder = DatabaseAdmin.Normalize(connectionString);
        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        await DatabaseAdmin.OpenAsync(connection, builder, ct);
        await using var command = new NpgsqlCommand("""
            SELECT md5(
                (SELECT md5(string_agg(t::text, E'\n' ORDER BY t."ProductID")) FROM "Production"."Product" t) ||
                (SELECT md5(string_agg(t::text, E'\n' ORDER BY t."SalesOrderID")) FROM "Sales"."SalesOrderHeader" t) ||
                (SELECT md5(string_agg(t::text, E'\n' ORDER BY t."SalesOrderID", t."SalesOrderDetailID"))
                   FROM "Sales"."SalesOrderDetail" t))
            """, connection);
        command.CommandTimeout = 120;
        return (string)(await command.ExecuteScalarAsync(ct))!;
    }

    /// <summary>The checksum a seed of <paramref name="data"/> stores, computed without a database.</summary>
    internal static Task<string> ComputeChecksumAsync(AdventureWorksData data, CancellationToken ct) => SeedCopy.ChecksumAsync(data, ct);


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
        var builder = DatabaseAdmin.Normalize(connectionString);
        builder.CommandTimeout = 300;
        await DatabaseAdmin.EnsureDatabaseAsync(builder, ct);

        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        await DatabaseAdmin.OpenAsync(connection, builder, ct);
        await using var transaction = await connection.BeginTransactionAsync(ct);
        await DatabaseAdmin.ExecuteAsync(connection, transaction, $"SELECT pg_advisory_xact_lock({SeedLockKey})", ct);

        var state = await ReadStateAsync(connection, transaction, ct);
        if (state.IsCurrent && !force)
        {
            return new SeedResult(SeedOutcome.AlreadyCurrent, builder.Database!, SchemaVersion, state.Checksum ?? "",
                clock.Elapsed, state.SchemaVersion);
        }
        var hadContent = state.SchemaVersion is not null || state.Products + state.OrderHeaders + state.OrderDetails > 0;

        await DatabaseAdmin.ExecuteAsync(connection, transaction,
            """DROP SCHEMA IF EXISTS "Sales", "Production", perflab CASCADE""", ct);
        await DatabaseAdmin.ExecuteAsync(connection, transaction, ReadSchemaSql(), ct);
        progress?.Report(new SeedProgress("schema", 0, clock.Elapsed));

        var data = AdventureWorksData.Generate();
        progress?.Report(new SeedProgress("generated", data.Products.Count + data.Headers.Count + data.Details.Count,
            clock.Elapsed));

        var checksum = await SeedCopy.CopyAllAsync(connection, data, progress, clock, ct);

        await using (var marker = new NpgsqlCommand(
            """INSERT INTO perflab.schema_info ("SchemaVersion", "Seed", "Checksum") VALUES ($1, $2, $3)""",
            connection, transaction))
        {
            marker.Parameters.Add(new NpgsqlParameter { Value = SchemaVersion });
            marker.Parameters.Add(new NpgsqlParameter { Value = (int)AdventureWorksData.DefaultSeed });
            marker.Parameters.Add(new NpgsqlParameter { Value = checksum });
            await marker.ExecuteNonQueryAsync(ct);
        }
        await transaction.CommitAsync(ct);

        // Fresh statistics and a visibility map, so the first measured queries plan and scan like the later ones.
        await DatabaseAdmin.ExecuteAsync(connection, null,
            """VACUUM (ANALYZE) "Production"."Product", "Sales"."SalesOrderHeader", "Sales"."SalesOrderDetail" """, ct);
        progress?.Report(new SeedProgress("analyzed", 0, clock.Elapsed));

        return new SeedResult(hadContent || force ? SeedOutcome.Reseeded : SeedOutcome.Seeded, builder.Database!,
            SchemaVersion, checksum, clock.Elapsed, state.SchemaVersion);
    }





    private static async Task<SeedState> ReadStateAsync(NpgsqlConnection connection, NpgsqlTransaction? transaction,
        CancellationToken ct)
    {
        await using var command = new NpgsqlCommand("""
            SELECT to_regclass('perflab.schema_info') IS NOT NULL,
                   to_regclass('"Production"."Product"') IS NOT NULL,
                   to_regclass('"Sales"."SalesOrderHeader"') IS NOT NULL,
                   to_regclass('"Sales"."SalesOrderDetail"') IS NOT NULL
            """, connection, transaction);
        bool hasMarker, hasProducts, hasHeaders, hasDetails;
        await using (var reader = await command.ExecuteReaderAsync(ct))
        {
            await reader.ReadAsync(ct);
            (hasMarker, hasProducts, hasHeaders, hasDetails) =
                (reader.GetBoolean(0), reader.GetBoolean(1), reader.GetBoolean(2), reader.GetBoolean(3));
        }

        int? version = null;
        long? seed = null;
        string? checksum = null;
        DateTimeOffset? seededAt = null;
        if (hasMarker)
        {
            command.CommandText = """
                SELECT "SchemaVersion", "Seed", "Checksum", "SeededAt" FROM perflab.schema_info
                ORDER BY "SeededAt" DESC LIMIT 1
                """;
            await using var reader = await command.ExecuteReaderAsync(ct);
            if (await reader.ReadAsync(ct))
            {
                version = reader.GetInt32(0);
                seed = reader.GetInt32(1);
                checksum = reader.GetString(2);
                seededAt = reader.GetFieldValue<DateTimeOffset>(3);
            }
        }

        async Task<long> CountAsync(bool exists, string table)
        {
            if (!exists)
            {
                return 0;
            }
            command.CommandText = $"SELECT count(*) FROM {table}";
            return (long)(await command.ExecuteScalarAsync(ct))!;
        }

        return new SeedState(true, version, seed, checksum, seededAt,
            await CountAsync(hasProducts, "\"Production\".\"Product\""),
            await CountAsync(hasHeaders, "\"Sales\".\"SalesOrderHeader\""),
            await CountAsync(hasDetails, "\"Sales\".\"SalesOrderDetail\""));
    }







}
