using PerfLab.SutProcesses;
using PerfLab.Experiments.Running.Warmup;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>The watch on a real SUT's JIT events, with the runtime's tiering switch as the known input.</summary>
public sealed class TieringWatchTests
{
    [Fact]
    public async Task Summarize_TieredRuntimeUnderRequests_SeesTierZeroCompilesThenPromotions()
    {
        // 100 calls of the same endpoint pass tier 1's call count of 30 three times over. The promotions follow in the
        // background, slowly on a busy machine (hundreds of methods queued for 15 s and more), so the test waits for
        // the first 20 rather than for the rule, which may take longer than a test should.
        var record = await WatchAroundRequestsAsync(new Dictionary<string, string>(), (_, r) => r.WarmupPromotions > 20);
        Assert.True(record.WarmupFirstCompiles > 100, $"{record.WarmupFirstCompiles} first compiles");
        Assert.True(record.WarmupPromotions > 20, $"{record.WarmupPromotions} promotions");
    }

    [Fact]
    public async Task Summarize_TieringOff_CompilesEachMethodOnceAndPromotesNothingThenSettles()
    {
        var record = await WatchAroundRequestsAsync(new Dictionary<string, string> { ["DOTNET_TieredCompilation"] = "0" },
            (watch, _) => watch.Settled);   // the rule holds: nothing compiled for two seconds, so nothing more to come
        Assert.True(record.WarmupFirstCompiles > 100, $"{record.WarmupFirstCompiles} first compiles");
        Assert.Equal(0, record.WarmupPromotions + record.WarmupOsr);
    }

    /// <param name="done">When the watch has seen enough, polled after the requests.</param>
    private static async Task<PerfLab.Results.TieringRecord> WatchAroundRequestsAsync(IReadOnlyDictionary<string, string> env,
        Func<TieringWatch, PerfLab.Results.TieringRecord, bool> done)
    {
        await using var sut = await SutProcess.StartAsync(SutLaunch.Default(connectionString: null) with
        {
            Environment = env,
            LogFile = Path.Combine(TestCaches.NewFolder(), "sut.log"),
        });
        using var budget = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        await using var watch = await TieringWatch.StartAsync(sut.Pid, budget.Token);
        using var client = new HttpClient { BaseAddress = sut.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };
        for (var i = 0; i < 100; i++)
        {
            using var response = await client.GetAsync("/weatherforecast-async", budget.Token);
            response.EnsureSuccessStatusCode();
        }
        while (true)
        {
            var record = watch.Summarize(DateTimeOffset.UtcNow, []) ?? throw new Xunit.Sdk.XunitException("no JIT events were read from the SUT");
            if (done(watch, record))
            {
                return record;
            }
            await Task.Delay(TimeSpan.FromMilliseconds(200), budget.Token);
        }
    }
}
