using System.Net;
using System.Text.Json;

namespace PerfLab.Sut.Tests;

public sealed class ContentionEndpointTests
{
    [Fact]
    public async Task Contention_FourAtOnce_EachQueuesBehindTheOthersSerialShares()
    {
        await using var sut = await SutHost.StartAsync(null);
        await WarmAsync(sut, 4);

        var alone = await sut.GetJsonAsync("/diagnostics/contention?ms=100&sigma=0.25");
        var four = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => sut.GetJsonAsync("/diagnostics/contention?ms=100&sigma=0.25")));

        // Alone: T = 100 ms. Four in flight: 100·(1 + 0.25·3) = 175 ms, whatever order they reached the lock in.
        Assert.Equal(1, alone.GetProperty("inFlight").GetInt32());
        Assert.InRange(alone.GetProperty("tookMs").GetDouble(), 99.9, 1_000);
        Assert.All(four, a => Assert.Equal(4, a.GetProperty("inFlight").GetInt32()));
        Assert.All(four, a => Assert.InRange(a.GetProperty("tookMs").GetDouble(), 174.9, 1_500));
        // The lock is real: the four serial shares of 25 ms queued one after another, so the last waited about 75 ms.
        Assert.InRange(four.Max(a => a.GetProperty("waitedMs").GetDouble()), 60, 1_000);
    }

    [Fact]
    public async Task Contention_Coherency_AddsKappaTimesTForEveryPairInFlight()
    {
        await using var sut = await SutHost.StartAsync(null);
        await WarmAsync(sut, 2);
        var two = await Task.WhenAll(Enumerable.Range(0, 2)
            .Select(_ => sut.GetJsonAsync("/diagnostics/contention?ms=50&sigma=0&kappa=0.5")));

        // 50·(1 + 0 + 0.5·2·1) = 100 ms each.
        Assert.All(two, a => Assert.Equal(2, a.GetProperty("inFlight").GetInt32()));
        Assert.All(two, a => Assert.InRange(a.GetProperty("tookMs").GetDouble(), 99.9, 1_000));
    }

    /// <summary>The route's first calls (JIT) and one connection per request to come, outside what is checked.</summary>
    private static Task WarmAsync(SutHost sut, int connections) =>
        Task.WhenAll(Enumerable.Range(0, connections).Select(_ => sut.GetJsonAsync("/diagnostics/contention?ms=1&sigma=0")));

    [Theory]
    [InlineData("/diagnostics/contention?sigma=1.5", "sigma")]
    [InlineData("/diagnostics/contention?sigma=abc", "sigma")]
    [InlineData("/diagnostics/contention?kappa=-0.1", "kappa")]
    [InlineData("/diagnostics/contention?ms=0", "ms")]
    public async Task Contention_BadParameter_Answers400NamingIt(string path, string parameter)
    {
        await using var sut = await SutHost.StartAsync(null);
        using var response = await sut.Client.GetAsync(path);
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.True(body.RootElement.GetProperty("errors").TryGetProperty(parameter, out _), body.RootElement.ToString());
    }
}
