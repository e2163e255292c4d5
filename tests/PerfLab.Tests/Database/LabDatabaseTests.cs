using Npgsql;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Reports;
using PerfLab.Testing;
using PerfLab.Tests.Reports;
using PerfLab.Experiments.Running.Databases;

namespace PerfLab.Tests.Database;

/// <summary>
/// A cluster of the class's own with 256MB of shared buffers (all of the seeded tables and indexes fit), which a test may
/// restart to empty them; each test works on a clone of its seeded database.
/// </summary>
public sealed class LabClusterFixture : IAsyncLifetime
{
    private IsolatedPostgres? _cluster;

    public IsolatedPostgres Cluster => _cluster ?? throw new InvalidOperationException("not started");

    public async Task InitializeAsync() => _cluster = await PostgresFixture.StartIsolatedAsync("256MB");

    public async Task<string> CloneAsync()
    {
        var name = "t_" + Guid.NewGuid().ToString("N")[..16];
        await PostgresFixture.ExecuteAsync(Cluster.Port, $"CREATE DATABASE \"{name}\" TEMPLATE adventureworks");
        return ManagedCluster.ConnectionStringFor(Cluster.Port, name);
    }

    public async Task DisposeAsync()
    {
        if (_cluster is not null)
        {
            await _cluster.DisposeAsync();
        }
    }
}

// The lab's database settled for an invocation and reset before each block, on a real PostgreSQL, and what the run's
// provenance makes of it.
public sealed class LabDatabaseTests(LabClusterFixture lab) : IClassFixture<LabClusterFixture>
{
    [Fact]
    public async Task SettleAsync_LabsCluster_TurnsAutovacuumOffAndReadsTheSettingsBack()
    {
        var database = await lab.CloneAsync();
        await using var connection = await PostgresConnections.OpenAsync(database, default);
        Assert.Empty(await LabDatabase.AutovacuumOffAsync(connection, default));

        var (settings, notTheLabs) = await LabDatabase.SettleAsync(database, default);

        Assert.Null(notTheLabs);
        Assert.NotNull(settings);
        var expected = new[] { "\"Production\".\"Product\"", "\"Sales\".\"SalesOrderDetail\"", "\"Sales\".\"SalesOrderHeader\"" };
        Assert.Equal(expected, await LabDatabase.AutovacuumOffAsync(connection, default));
        Assert.Equal(expected, settings.AutovacuumOffTables);
        Assert.Equal("256MB", settings.SharedBuffers);
        Assert.True(settings.AutovacuumServer);
        Assert.True(settings.Prewarm && settings.BufferCache, "the Debian postgresql package ships pg_prewarm and pg_buffercache");
        Assert.False(settings.AnalyzedNow);
        // A clone is a new database, of which the server remembers no ANALYZE until one runs.
        Assert.Null(settings.StatisticsTakenAt);
        var analyzed = DateTimeOffset.UtcNow;
        await Execute(connection, """ANALYZE "Sales"."SalesOrderHeader" """);
        var again = (await LabDatabase.SettleAsync(database, default)).Settings!;
        Assert.InRange(again.StatisticsTakenAt!.Value, analyzed.AddSeconds(-1), DateTimeOffset.UtcNow.AddSeconds(1));
    }

    [Fact]
    public async Task SettleAsync_TableWithoutStatistics_AnalyzesItOnceAndKeepsThemAfter()
    {
        var database = await lab.CloneAsync();
        await using var connection = await PostgresConnections.OpenAsync(database, default);
        await Execute(connection, """DELETE FROM pg_statistic WHERE starelid = '"Production"."Product"'::regclass""");
        Assert.Equal(0L, await StatisticRowsAsync(connection));

        var first = (await LabDatabase.SettleAsync(database, default)).Settings!;
        var second = (await LabDatabase.SettleAsync(database, default)).Settings!;

        Assert.True(first.AnalyzedNow);
        Assert.False(second.AnalyzedNow);
        // One row per column of Production.Product: 25.
        Assert.Equal(25L, await StatisticRowsAsync(connection));
    }

    [Fact]
    public async Task ResetAsync_AfterARestart_CheckpointsAndWarmsEveryLabPageIntoSharedBuffers()
    {
        var database = await lab.CloneAsync();
        var settings = (await LabDatabase.SettleAsync(database, default)).Settings!;
        await lab.Cluster.StopAsync();
        await lab.Cluster.StartAsync();
        long checkpoints;
        long pages;
        await using (var connection = await PostgresConnections.OpenAsync(database, default))
        {
            var relations = await LabDatabaseReset.RelationsAsync(connection, default);
            Assert.Equal(0L, await LabDatabaseReset.CachedPagesAsync(connection, relations, default));
            checkpoints = await CheckpointsAsync(connection);
            // What the seed's VACUUM counted, a source apart from the reset's pg_relation_size.
            pages = (long)(await Scalar(connection,
                "SELECT sum(c.relpages)::bigint FROM unnest($1::text[]) r JOIN pg_class c ON c.oid = to_regclass(r)",
                relations.ToArray()))!;
        }

        var reset = await LabDatabaseReset.ResetAsync(database, settings, default);

        Assert.True(reset.Checkpointed);
        Assert.Equal(LabDatabaseReset.ByPrewarm, reset.WarmedBy);
        Assert.Equal(pages, reset.Pages);
        Assert.Equal(pages, reset.CachedPages);
        Assert.Equal(100.0, reset.CachedPercent);
        await using var after = await PostgresConnections.OpenAsync(database, default);
        Assert.True(await GrowsAsync(after, checkpoints), "pg_stat_bgwriter's checkpoint count did not grow after the reset");
    }

    [Fact]
    public async Task SettleAsync_UserNotSuperuser_LeavesTheServerAsItIs()
    {
        var database = await lab.CloneAsync();
        var role = "t_" + Guid.NewGuid().ToString("N")[..12];
        await PostgresFixture.ExecuteAsync(lab.Cluster.Port, $"CREATE ROLE {role} LOGIN");
        try
        {
            var asUser = new NpgsqlConnectionStringBuilder(database) { Username = role }.ConnectionString;

            var (settings, notTheLabs) = await LabDatabase.SettleAsync(asUser, default);
            var blocks = new DatabaseBeforeBlocks(asUser, new InlineProgress<string>(_ => { }));
            await blocks.ResetAsync(default);

            Assert.Null(settings);
            Assert.Contains("not a superuser", notTheLabs);
            Assert.StartsWith("not reset before the blocks: a server where perflab's user is not a superuser", blocks.State!.Describe());
            await using var connection = await PostgresConnections.OpenAsync(database, default);
            Assert.Empty(await LabDatabase.AutovacuumOffAsync(connection, default));
        }
        finally
        {
            await PostgresFixture.ExecuteAsync(lab.Cluster.Port, $"DROP ROLE {role}");
        }
    }

    [Fact]
    public async Task State_TwoBlocksReset_CarriesTheSettingsIntoResultsJsonAndTheProvenanceLine()
    {
        var messages = new List<string>();
        var blocks = new DatabaseBeforeBlocks(await lab.CloneAsync(), new InlineProgress<string>(messages.Add));

        await blocks.ResetAsync(default);
        await blocks.ResetAsync(default);

        var state = blocks.State!;
        Assert.Equal(2, state.Blocks);
        Assert.Equal(2, state.Checkpoints);
        Assert.Equal(0, state.Failures);
        Assert.Equal("256MB", state.SharedBuffers);
        Assert.True(state.Autovacuum);
        Assert.Equal(3, state.AutovacuumOffTables.Count);
        Assert.Equal("pg_prewarm", state.WarmedBy);
        Assert.Equal(100.0, state.CachedPercentLowest);
        Assert.Contains("shared_buffers 256MB", Assert.Single(messages));
        var sample = ReportFixtures.Sample();
        var results = sample with { Provenance = sample.Provenance with { DatabaseState = state } };
        var read = ResultsJson.Deserialize(ResultsJson.Serialize(results), "results.json").Provenance.DatabaseState!;
        Assert.Equal(2, read.Checkpoints);
        Assert.Equal("256MB", read.SharedBuffers);
        Assert.Equal(100.0, read.CachedPercentLowest);
        var line = ReportContent.Provenance(results).Rows.Single(r => r[0].Text == "database")[1].Text;
        Assert.Contains("reset before each of 2 blocks: CHECKPOINT (2 seen done)", line);
        Assert.Contains("100 % of their", line);
        Assert.Contains("autovacuum off on 3 lab tables (server autovacuum on)", line);
    }

    [Fact]
    public async Task ResetAsync_ServerDown_CountsTheFailureAndLetsTheBlockRun()
    {
        var blocks = new DatabaseBeforeBlocks("Host=127.0.0.1;Port=1;Username=perflab;Timeout=3", new InlineProgress<string>(_ => { }));

        await blocks.ResetAsync(default);

        Assert.Equal(0, blocks.State!.Blocks);
        Assert.Equal(1, blocks.State.Failures);
        Assert.Contains("cannot connect to PostgreSQL", blocks.State.LastFailure);
        Assert.StartsWith("not reset before the blocks: 1 resets failed (cannot connect", blocks.State.Describe());
        Assert.Null(new DatabaseBeforeBlocks("", new InlineProgress<string>(_ => { })).State);
    }

    private static async Task<long> CheckpointsAsync(NpgsqlConnection connection)
    {
        await Execute(connection, "SELECT pg_stat_clear_snapshot()");
        return (long)(await Scalar(connection, connection.PostgreSqlVersion.Major >= 17
            ? "SELECT num_timed + num_requested FROM pg_stat_checkpointer"
            : "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter"))!;
    }

    // Whether the checkpoint count goes beyond `before` within 10 s: the checkpointer reports it after waking the waiter.
    private static async Task<bool> GrowsAsync(NpgsqlConnection connection, long before)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (await CheckpointsAsync(connection) <= before)
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }
            await Task.Delay(50);
        }
        return true;
    }

    private static async Task<long> StatisticRowsAsync(NpgsqlConnection connection) => (long)(await Scalar(connection,
        """SELECT count(*) FROM pg_statistic WHERE starelid = '"Production"."Product"'::regclass"""))!;

    private static async Task Execute(NpgsqlConnection connection, string sql)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync();
    }

    private static async Task<object?> Scalar(NpgsqlConnection connection, string sql, object? parameter = null)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        if (parameter is not null)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = parameter });
        }
        return await command.ExecuteScalarAsync();
    }
}
