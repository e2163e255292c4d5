using System.Diagnostics;
using System.Reflection;
using System.Security.Cryptography;
using Npgsql;
using NpgsqlTypes;
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

    private const string ProductColumns = """
        "ProductID","Name","ProductNumber","MakeFlag","FinishedGoodsFlag","Color","SafetyStockLevel","ReorderPoint",
        "StandardCost","ListPrice","Size","SizeUnitMeasureCode","WeightUnitMeasureCode","Weight","DaysToManufacture",
        "ProductLine","Class","Style","ProductSubcategoryID","ProductModelID","SellStartDate","SellEndDate",
        "DiscontinuedDate","rowguid","ModifiedDate"
        """;
    private const string HeaderColumns = """
        "SalesOrderID","RevisionNumber","OrderDate","DueDate","ShipDate","Status","OnlineOrderFlag",
        "PurchaseOrderNumber","AccountNumber","CustomerID","SalesPersonID","TerritoryID","BillToAddressID",
        "ShipToAddressID","ShipMethodID","CreditCardID","CreditCardApprovalCode","CurrencyRateID","SubTotal","TaxAmt",
        "Freight","Comment","rowguid","ModifiedDate"
        """;
    private const string DetailColumns = """
        "SalesOrderID","SalesOrderDetailID","CarrierTrackingNumber","OrderQty","ProductID","SpecialOfferID",
        "UnitPrice","UnitPriceDiscount","rowguid","ModifiedDate"
        """;

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
            await DropDatabaseAsync(connectionString, ct);
        }
        return await SeedCoreAsync(connectionString, progress, force: true, ct);
    }

    /// <summary>Reads the schema marker and row counts; a missing database or tables is reported, not thrown.</summary>
    public static async Task<SeedState> ReadStateAsync(string connectionString, CancellationToken ct)
    {
        var builder = Normalize(connectionString);
        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        try
        {
            await OpenAsync(connection, builder, ct);
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
        var builder = Normalize(connectionString);
        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        await OpenAsync(connection, builder, ct);
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
    internal static async Task<string> ComputeChecksumAsync(AdventureWorksData data, CancellationToken ct)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var sink = new RowSink(hash);
        foreach (var p in data.Products)
        {
            await WriteAsync(sink, p, ct);
        }
        foreach (var h in data.Headers)
        {
            await WriteAsync(sink, h, ct);
        }
        foreach (var d in data.Details)
        {
            await WriteAsync(sink, d, ct);
        }
        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }

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

    internal static string ReadSchemaSql()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("PerfLab.Database.schema.sql")
            ?? throw new InvalidOperationException("schema.sql is not embedded in perflab.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
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
        builder.Database ??= DefaultDatabase;
        builder.Pooling = false;
        if (!connectionString.Contains("Timeout", StringComparison.OrdinalIgnoreCase))
        {
            builder.Timeout = 5;
        }
        return builder;
    }

    private static async Task<SeedResult> SeedCoreAsync(string connectionString, IProgress<SeedProgress>? progress,
        bool force, CancellationToken ct)
    {
        var clock = Stopwatch.StartNew();
        var builder = Normalize(connectionString);
        builder.CommandTimeout = 300;
        await EnsureDatabaseAsync(builder, ct);

        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        await OpenAsync(connection, builder, ct);
        await using var transaction = await connection.BeginTransactionAsync(ct);
        await ExecuteAsync(connection, transaction, $"SELECT pg_advisory_xact_lock({SeedLockKey})", ct);

        var state = await ReadStateAsync(connection, transaction, ct);
        if (state.IsCurrent && !force)
        {
            return new SeedResult(SeedOutcome.AlreadyCurrent, builder.Database!, SchemaVersion, state.Checksum ?? "",
                clock.Elapsed, state.SchemaVersion);
        }
        var hadContent = state.SchemaVersion is not null || state.Products + state.OrderHeaders + state.OrderDetails > 0;

        await ExecuteAsync(connection, transaction,
            """DROP SCHEMA IF EXISTS "Sales", "Production", perflab CASCADE""", ct);
        await ExecuteAsync(connection, transaction, ReadSchemaSql(), ct);
        progress?.Report(new SeedProgress("schema", 0, clock.Elapsed));

        var data = AdventureWorksData.Generate();
        progress?.Report(new SeedProgress("generated", data.Products.Count + data.Headers.Count + data.Details.Count,
            clock.Elapsed));

        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var sink = new RowSink(hash);
        await CopyAsync(connection, sink, "\"Production\".\"Product\"", ProductColumns, data.Products, WriteAsync,
            progress, clock, ct);
        await CopyAsync(connection, sink, "\"Sales\".\"SalesOrderHeader\"", HeaderColumns, data.Headers, WriteAsync,
            progress, clock, ct);
        await CopyAsync(connection, sink, "\"Sales\".\"SalesOrderDetail\"", DetailColumns, data.Details, WriteAsync,
            progress, clock, ct);
        var checksum = Convert.ToHexStringLower(hash.GetHashAndReset());

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
        await ExecuteAsync(connection, null,
            """VACUUM (ANALYZE) "Production"."Product", "Sales"."SalesOrderHeader", "Sales"."SalesOrderDetail" """, ct);
        progress?.Report(new SeedProgress("analyzed", 0, clock.Elapsed));

        return new SeedResult(hadContent || force ? SeedOutcome.Reseeded : SeedOutcome.Seeded, builder.Database!,
            SchemaVersion, checksum, clock.Elapsed, state.SchemaVersion);
    }

    private static async Task CopyAsync<T>(NpgsqlConnection connection, RowSink sink, string table, string columns,
        IReadOnlyList<T> rows, Func<RowSink, T, CancellationToken, ValueTask> write, IProgress<SeedProgress>? progress,
        Stopwatch clock, CancellationToken ct)
    {
        var copy = $"COPY {table} ({columns.ReplaceLineEndings("")}) FROM STDIN (FORMAT BINARY)";
        await using (var importer = await connection.BeginBinaryImportAsync(copy, ct))
        {
            sink.Importer = importer;
            foreach (var row in rows)
            {
                await write(sink, row, ct);
            }
            await importer.CompleteAsync(ct);
        }
        sink.Importer = null;
        progress?.Report(new SeedProgress(table.Replace("\"", ""), rows.Count, clock.Elapsed));
    }

    private static async ValueTask WriteAsync(RowSink s, ProductRow p, CancellationToken ct)
    {
        await s.StartRowAsync(ct);
        await s.WriteAsync(p.ProductId, ct);
        await s.WriteAsync(p.Name, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.ProductNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.MakeFlag, ct);
        await s.WriteAsync(p.FinishedGoodsFlag, ct);
        await s.WriteAsync(p.Color, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.SafetyStockLevel, ct);
        await s.WriteAsync(p.ReorderPoint, ct);
        await s.WriteAsync(p.StandardCost, ct);
        await s.WriteAsync(p.ListPrice, ct);
        await s.WriteAsync(p.Size, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.SizeUnitMeasureCode, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.WeightUnitMeasureCode, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.Weight, ct);
        await s.WriteAsync(p.DaysToManufacture, ct);
        await s.WriteAsync(p.ProductLine, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.Class, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.Style, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.ProductSubcategoryId, ct);
        await s.WriteAsync(p.ProductModelId, ct);
        await s.WriteAsync(p.SellStartDate, ct);
        await s.WriteAsync(p.SellEndDate, ct);
        await s.WriteAsync(p.DiscontinuedDate, ct);
        await s.WriteAsync(p.RowGuid, ct);
        await s.WriteAsync(p.ModifiedDate, ct);
    }

    private static async ValueTask WriteAsync(RowSink s, SalesOrderHeaderRow h, CancellationToken ct)
    {
        await s.StartRowAsync(ct);
        await s.WriteAsync(h.SalesOrderId, ct);
        await s.WriteAsync(h.RevisionNumber, ct);
        await s.WriteAsync(h.OrderDate, ct);
        await s.WriteAsync(h.DueDate, ct);
        await s.WriteAsync(h.ShipDate, ct);
        await s.WriteAsync(h.Status, ct);
        await s.WriteAsync(h.OnlineOrderFlag, ct);
        await s.WriteAsync(h.PurchaseOrderNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.AccountNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.CustomerId, ct);
        await s.WriteAsync(h.SalesPersonId, ct);
        await s.WriteAsync(h.TerritoryId, ct);
        await s.WriteAsync(h.BillToAddressId, ct);
        await s.WriteAsync(h.ShipToAddressId, ct);
        await s.WriteAsync(h.ShipMethodId, ct);
        await s.WriteAsync(h.CreditCardId, ct);
        await s.WriteAsync(h.CreditCardApprovalCode, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.CurrencyRateId, ct);
        await s.WriteAsync(h.SubTotal, ct);
        await s.WriteAsync(h.TaxAmt, ct);
        await s.WriteAsync(h.Freight, ct);
        await s.WriteAsync(h.Comment, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.RowGuid, ct);
        await s.WriteAsync(h.ModifiedDate, ct);
    }

    private static async ValueTask WriteAsync(RowSink s, SalesOrderDetailRow d, CancellationToken ct)
    {
        await s.StartRowAsync(ct);
        await s.WriteAsync(d.SalesOrderId, ct);
        await s.WriteAsync(d.SalesOrderDetailId, ct);
        await s.WriteAsync(d.CarrierTrackingNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(d.OrderQty, ct);
        await s.WriteAsync(d.ProductId, ct);
        await s.WriteAsync(d.SpecialOfferId, ct);
        await s.WriteAsync(d.UnitPrice, ct);
        await s.WriteAsync(d.UnitPriceDiscount, ct);
        await s.WriteAsync(d.RowGuid, ct);
        await s.WriteAsync(d.ModifiedDate, ct);
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

    private static async Task EnsureDatabaseAsync(NpgsqlConnectionStringBuilder builder, CancellationToken ct)
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

    private static async Task DropDatabaseAsync(string connectionString, CancellationToken ct)
    {
        var builder = Normalize(connectionString);
        await using var admin = new NpgsqlConnection(AdminConnectionString(builder));
        await OpenAsync(admin, builder, ct);
        await ExecuteAsync(admin, null, $"DROP DATABASE IF EXISTS {QuoteIdentifier(builder.Database!)} WITH (FORCE)", ct);
    }

    private static string AdminConnectionString(NpgsqlConnectionStringBuilder builder) =>
        new NpgsqlConnectionStringBuilder(builder.ConnectionString) { Database = "postgres" }.ConnectionString;

    private static async Task OpenAsync(NpgsqlConnection connection, NpgsqlConnectionStringBuilder builder,
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
