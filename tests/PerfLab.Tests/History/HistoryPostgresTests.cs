using PerfLab.Common;
using PerfLab.History;
using PerfLab.Testing;

namespace PerfLab.Tests.History;

/// <summary>The same history on a real PostgreSQL (the tests' shared cluster, a database of this class's own).</summary>
public sealed class HistoryPostgresTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Fact]
    public async Task ThirtyRuns_StepAtRun20_FoundThere_AndADuplicateAddsNothing()
    {
        var location = HistoryLocation.Parse(await postgres.CreateDatabaseAsync());
        Assert.Equal(HistoryBackend.Postgres, location.Backend);
        var runs = HistoryFixtures.Runs(30, stepAt: 20, step: 0.06, floor: _ => 3);

        await using (var store = await HistoryStore.OpenAsync(location, create: true, CancellationToken.None))
        {
            Assert.Equal(30, await HistoryStoreTests.AddAllAsync(store, runs));
            Assert.Equal(0, await HistoryStoreTests.AddAllAsync(store, runs.Take(3)));
        }
        await using var reopened = await HistoryStore.OpenAsync(location, create: false, CancellationToken.None);
        var points = await reopened.QueryAsync(new HistoryQuery("api"), CancellationToken.None);

        Assert.Equal(HistoryStoreTests.Sorted(HistoryFixtures.Stored(runs)), HistoryStoreTests.Sorted(points));
        var series = HistorySeries.Analyze(points, null, new EDivisive.Options());
        HistorySeriesTests.AssertStepAtRun20Only(series, intervalHoldsTheStep: false);
        // Read back from the server, the analysis is the one of the runs themselves, to the last digit.
        var direct = HistorySeries.Analyze(HistoryFixtures.Stored(runs).Where(p => p.Point.Experiment == "api").ToList(), null,
            new EDivisive.Options());
        Assert.Equal(direct.SelectMany(s => s.ChangePoints), series.SelectMany(s => s.ChangePoints));
    }

    [Fact]
    public async Task Open_NoServerThere_UnreachableWithWhatToCheck()
    {
        var location = HistoryLocation.Parse($"Host=127.0.0.1;Port={LoopbackPorts.PickFree()};Database=none;Username=x;Timeout=2");

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => HistoryStore.OpenAsync(location, true, CancellationToken.None));

        Assert.Equal(ExitCode.Unreachable, ex.ExitCode);
        Assert.Contains("cannot reach the history server PostgreSQL 127.0.0.1:", ex.Message, StringComparison.Ordinal);
        Assert.Contains("Is the server running", ex.Message, StringComparison.Ordinal);
    }
}
