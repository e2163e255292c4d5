using Npgsql;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Testing;

namespace PerfLab.Tests.Database;

// The shared test support itself: clones are independent, an isolated cluster stops and recovers.
public sealed class PostgresFixtureTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Fact]
    public async Task CreateDatabaseAsync_TwoClones_AreSeededAndIndependent()
    {
        var first = await postgres.CreateDatabaseAsync();
        var second = await postgres.CreateDatabaseAsync();
        await using (var connection = await PostgresConnections.OpenAsync(first, default))
        {
            await using var command = new NpgsqlCommand("""DELETE FROM "Sales"."SalesOrderDetail" """, connection);
            await command.ExecuteNonQueryAsync();
        }

        Assert.Equal(0, (await SeedStateStore.ReadAsync(first, default)).OrderDetails);
        Assert.True((await SeedStateStore.ReadAsync(second, default)).IsCurrent);
        Assert.Equal(121_317, (await SeedStateStore.ReadAsync(second, default)).OrderDetails);
    }

    [Fact]
    public async Task IsolatedCluster_StoppedThenStarted_RefusesThenServesAgain()
    {
        await using var isolated = await PostgresFixture.StartIsolatedAsync();
        Assert.True((await SeedStateStore.ReadAsync(isolated.ConnectionString, default)).IsCurrent);

        await isolated.StopAsync();
        await Assert.ThrowsAsync<PerfLabException>(() =>
            SeedStateStore.ReadAsync(isolated.ConnectionString, default));

        await isolated.StartAsync();
        Assert.Equal(31_465, (await SeedStateStore.ReadAsync(isolated.ConnectionString, default)).OrderHeaders);
    }
}
