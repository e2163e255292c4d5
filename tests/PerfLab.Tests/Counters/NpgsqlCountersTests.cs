using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.SutProcesses;
using PerfLab.Testing;

namespace PerfLab.Tests.Counters;

[Collection(QuietCollection.Name)]
public sealed class NpgsqlCountersTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private static readonly TimeSpan _testBudget = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task CollectAsync_NpgsqlAloneAroundKnownCommands_CountsEachCommandAndItsTime()
    {
        var launch = SutLaunch.Default(await postgres.CreateDatabaseAsync()) with { LogFile = Path.Combine(TestCaches.NewFolder(), "sut.log") };
        await using var sut = await SutProcess.StartAsync(launch);
        using var client = new HttpClient { BaseAddress = sut.BaseAddress };
        // The first request opens the pool, which creates Npgsql's meter; it is not counted below.
        (await client.GetAsync("/diagnostics/async?ms=0")).EnsureSuccessStatusCode();
        using var stop = new CancellationTokenSource(_testBudget);
        var options = new CounterOptions { Providers = ["npgsql"] };
        var collecting = CounterCollector.CollectAsync(sut.Pid, options, new Progress<CounterSample>(), stop.Token);
        await Task.Delay(1500, stop.Token);

        const int Requests = 30;
        for (var i = 0; i < Requests; i++)
        {
            (await client.GetAsync("/diagnostics/async?ms=20", stop.Token)).EnsureSuccessStatusCode();
        }
        // The histogram's interval is published at its end: wait for two more.
        await Task.Delay(2500, stop.Token);
        await stop.CancelAsync();
        var recording = await collecting;

        Assert.All(recording.Counters, c => Assert.StartsWith("npgsql-", c.Name, StringComparison.Ordinal));
        // Failures and pool waits never happened: without a series they have no source, and read zero.
        string[] neverChanged = ["npgsql-commands-failed", CounterNames.NpgsqlPendingRequests];
        Assert.All(recording.Counters.Where(c => !neverChanged.Contains(c.Name)), c => Assert.Equal(CounterCatalog.NpgsqlMeter, c.Provider));
        Assert.Equal(0, recording.Samples[^1].Get("npgsql-commands-failed"));
        Assert.Equal(CounterSource.Meter, recording.Counters.Single(c => c.Name == CounterNames.NpgsqlCommands).Source);
        Assert.DoesNotContain(recording.Samples, s => s.Values.ContainsKey("cpu-usage"));
        Assert.Equal(Requests, Sum(recording, CounterNames.NpgsqlCommands));
        // pg_sleep's 20 ms plus the round trip and the wait for a core: 25.8 ms seen among parallel tests on 2 cores, 28.8 on
        // a CI host at load average 20. Under twice the sleep: a command counted twice, or its time in the wrong unit, reads
        // 40 ms or more.
        Assert.InRange(Sum(recording, CounterNames.NpgsqlCommandTime), Requests * 20, Requests * 40 - 1);
        Assert.Equal(100, recording.Samples[^1].Get("npgsql-connections-max"));
        Assert.Equal(0, recording.Samples[^1].Get(CounterNames.NpgsqlPendingRequests));
        Assert.Equal(0, recording.Samples[^1].Get(CounterNames.NpgsqlConnectionsBusy));
        Assert.True(recording.Samples[^1].Get(CounterNames.NpgsqlConnectionsIdle) >= 1);
    }

    private static double Sum(CounterRecording recording, string counter) =>
        recording.Samples.Select(s => s.Get(counter)).OfType<double>().Sum();
}
