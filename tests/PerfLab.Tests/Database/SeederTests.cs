using Npgsql;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Testing;

namespace PerfLab.Tests.Database;

// Seeding against the real PostgreSQL of the shared test cluster.
public sealed class SeederTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Fact]
    public async Task SeedAsync_TwoFreshDatabases_StoreTheSameDataAndChecksum()
    {
        var first = await postgres.NewEmptyDatabaseConnectionStringAsync();
        var second = await postgres.NewEmptyDatabaseConnectionStringAsync();

        var a = await Seeder.SeedAsync(first, null, default);
        var b = await Seeder.SeedAsync(second, null, default);

        Assert.Equal(SeedOutcome.Seeded, a.Outcome);
        Assert.Equal(SeedOutcome.Seeded, b.Outcome);
        Assert.Equal(Seeder.DataChecksum, a.Checksum);
        Assert.Equal(Seeder.DataChecksum, b.Checksum);
        var stored = await DataChecksums.ReadStoredAsync(first, default);
        Assert.Equal(stored, await DataChecksums.ReadStoredAsync(second, default));
        Assert.Equal(a.Checksum, (await SeedStateStore.ReadAsync(second, default)).Checksum);
    }

    [Fact]
    public async Task ComputeChecksumAsync_DefaultData_IsThePinnedValue()
    {
        // Fails when the generator's output changes: bump Seeder.SchemaVersion and set Seeder.DataChecksum to the new
        // value, so that databases seeded with the old data are re-seeded instead of measured as if they were alike.
        Assert.Equal("0ee59c5c4eba262f69ee79085997f5181fbe19e80ed3d917fabc98a7b1bea175", await DataChecksums.ComputeAsync(AdventureWorksData.Generate(), default));
        Assert.NotEqual(Seeder.DataChecksum, await DataChecksums.ComputeAsync(AdventureWorksData.Generate(seed: 7), default));
    }

    [Fact]
    public async Task SeedAsync_StoredChecksumOfOtherData_IsStaleAndReseeded()
    {
        var db = await postgres.CreateDatabaseAsync();
        await ExecuteAsync(db, """UPDATE perflab.schema_info SET "Checksum" = 'data of an older generator'""");

        var stale = await SeedStateStore.ReadAsync(db, default);
        Assert.False(stale.IsCurrent);
        Assert.Equal("stale: its rows differ from the data this perflab generates (checksum)", stale.Describe());
        Assert.Equal(SeedOutcome.Reseeded, (await Seeder.SeedAsync(db, null, default)).Outcome);
        Assert.Equal(Seeder.DataChecksum, (await SeedStateStore.ReadAsync(db, default)).Checksum);
    }

    [Fact]
    public async Task ReadDataChecksumAsync_OneValueChanged_Differs()
    {
        var db = await postgres.CreateDatabaseAsync();
        var before = await DataChecksums.ReadStoredAsync(db, default);

        await ExecuteAsync(db, """UPDATE "Sales"."SalesOrderDetail" SET "OrderQty" = "OrderQty" + 1 WHERE "SalesOrderDetailID" = 60000""");

        Assert.NotEqual(before, await DataChecksums.ReadStoredAsync(db, default));
    }

    [Fact]
    public async Task SeedAsync_CurrentDatabase_DoesNothing()
    {
        var db = await postgres.CreateDatabaseAsync();
        var before = await DataChecksums.ReadStoredAsync(db, default);
        var seededAt = (await SeedStateStore.ReadAsync(db, default)).SeededAt;

        var result = await Seeder.SeedAsync(db, null, default);

        Assert.Equal(SeedOutcome.AlreadyCurrent, result.Outcome);
        Assert.Equal(before, await DataChecksums.ReadStoredAsync(db, default));
        Assert.Equal(seededAt, (await SeedStateStore.ReadAsync(db, default)).SeededAt);
    }

    [Fact]
    public async Task SeedAsync_StaleSchemaMarker_IsDetectedDroppedAndReseeded()
    {
        var db = await postgres.CreateDatabaseAsync();
        var expected = await DataChecksums.ReadStoredAsync(db, default);
        await ExecuteAsync(db, """
            UPDATE perflab.schema_info SET "SchemaVersion" = 0;
            DELETE FROM "Sales"."SalesOrderDetail" WHERE "SalesOrderID" > 70000;
            """);

        var stale = await SeedStateStore.ReadAsync(db, default);
        Assert.False(stale.IsCurrent);
        Assert.Equal($"stale: schema v0, perflab expects v{Seeder.SchemaVersion}", stale.Describe());

        var result = await Seeder.SeedAsync(db, null, default);

        Assert.Equal(SeedOutcome.Reseeded, result.Outcome);
        Assert.Equal(0, result.PreviousSchemaVersion);
        var state = await SeedStateStore.ReadAsync(db, default);
        Assert.True(state.IsCurrent);
        Assert.Equal(121_317, state.OrderDetails);
        Assert.Equal(expected, await DataChecksums.ReadStoredAsync(db, default));
    }

    [Fact]
    public async Task SeedAsync_TablesWithoutMarker_AreReportedStaleAndReseeded()
    {
        var db = await postgres.CreateDatabaseAsync();
        await ExecuteAsync(db, "DROP TABLE perflab.schema_info");

        Assert.Equal("stale: tables without a schema marker", (await SeedStateStore.ReadAsync(db, default)).Describe());
        Assert.Equal(SeedOutcome.Reseeded, (await Seeder.SeedAsync(db, null, default)).Outcome);
        Assert.True((await SeedStateStore.ReadAsync(db, default)).IsCurrent);
    }

    [Fact]
    public async Task SeededDatabase_RowCountsAndComputedColumns_MatchTheContract()
    {
        var db = await postgres.CreateDatabaseAsync();

        Assert.Equal(504L, await ScalarAsync<long>(db, """SELECT count(*) FROM "Production"."Product" """));
        Assert.Equal(31_465L, await ScalarAsync<long>(db, """SELECT count(*) FROM "Sales"."SalesOrderHeader" """));
        Assert.Equal(121_317L, await ScalarAsync<long>(db, """SELECT count(*) FROM "Sales"."SalesOrderDetail" """));
        Assert.Equal(43_659, await ScalarAsync<int>(db, """SELECT min("SalesOrderID") FROM "Sales"."SalesOrderHeader" """));
        Assert.Equal(75_123, await ScalarAsync<int>(db, """SELECT max("SalesOrderID") FROM "Sales"."SalesOrderHeader" """));
        Assert.Equal(0L, await ScalarAsync<long>(db, """
            SELECT count(*) FROM "Sales"."SalesOrderHeader" WHERE "SalesOrderNumber" <> 'SO' || "SalesOrderID"
            """));
        Assert.Equal(0L, await ScalarAsync<long>(db, """
            SELECT count(*) FROM "Sales"."SalesOrderHeader" WHERE "TotalDue" <> "SubTotal" + "TaxAmt" + "Freight"
            """));
        Assert.Equal(0L, await ScalarAsync<long>(db, """
            SELECT count(*) FROM "Sales"."SalesOrderHeader" h
            WHERE h."SubTotal" <> (SELECT round(sum(d."LineTotal"), 4) FROM "Sales"."SalesOrderDetail" d
                                   WHERE d."SalesOrderID" = h."SalesOrderID")
            """));
        Assert.Equal("SO43659", await ScalarAsync<string>(db,
            """SELECT "SalesOrderNumber" FROM "Sales"."SalesOrderHeader" WHERE "SalesOrderID" = 43659"""));
    }

    [Fact]
    public async Task SeedAsync_UnreachableServer_IsAnUnreachableError()
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            Seeder.SeedAsync("Host=127.0.0.1;Port=1;Username=perflab;Timeout=3", null, default));

        Assert.Equal(ExitCode.Unreachable, ex.ExitCode);
        Assert.Contains("cannot connect to PostgreSQL at 127.0.0.1:1", ex.Message);
    }

    private static async Task ExecuteAsync(string connectionString, string sql)
    {
        await using var connection = await PostgresConnections.OpenAsync(connectionString, default);
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync();
    }

    private static async Task<T> ScalarAsync<T>(string connectionString, string sql)
    {
        await using var connection = await PostgresConnections.OpenAsync(connectionString, default);
        await using var command = new NpgsqlCommand(sql, connection);
        return (T)(await command.ExecuteScalarAsync())!;
    }
}
