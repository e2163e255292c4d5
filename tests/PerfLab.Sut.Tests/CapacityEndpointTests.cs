using System.Diagnostics;
using System.Net;
using System.Text.Json;

namespace PerfLab.Sut.Tests;

public sealed class CapacityEndpointTests(PlainSut shared) : IClassFixture<PlainSut>
{
    [Fact]
    public async Task Capacity_SixRequestsOnTwoSlotsOf100ms_ServeInThreeWavesAndTheLastWaitsTwoHolds()
    {
        var sut = shared.Sut;
        await sut.GetJsonAsync("/diagnostics/capacity?slots=2&ms=1");   // the route's first call (JIT) outside the timing

        var clock = Stopwatch.StartNew();
        var answers = await Task.WhenAll(Enumerable.Range(0, 6).Select(_ => sut.GetJsonAsync("/diagnostics/capacity?slots=2&ms=100")));
        clock.Stop();

        // Two at a time, 100 ms each: six need three holds in a row, so no sooner than 300 ms.
        Assert.True(clock.Elapsed >= TimeSpan.FromMilliseconds(295), $"six requests took {clock.Elapsed.TotalMilliseconds:0} ms");
        var waits = answers.Select(a => a.GetProperty("waitedMs").GetDouble()).Order().ToArray();
        Assert.All(answers, a => Assert.Equal(2, a.GetProperty("slots").GetInt32()));
        // The first two find a slot at once; the last two wait for two holds (a timer tick early at most).
        Assert.InRange(waits[1], 0, 50);
        Assert.InRange(waits[5], 190, 1_000);
    }

    [Fact]
    public async Task Capacity_HundredRequestsOnHundredSlots_AwaitsWithoutHoldingThreads()
    {
        var sut = shared.Sut;
        using var client = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 200 }) { BaseAddress = sut.Client.BaseAddress };
        await sut.GetJsonAsync("/diagnostics/capacity?slots=100&ms=1");

        var clock = Stopwatch.StartNew();
        var statuses = await Task.WhenAll(Enumerable.Range(0, 100).Select(async _ =>
        {
            using var response = await client.GetAsync("/diagnostics/capacity?slots=100&ms=500");
            return response.StatusCode;
        }));
        clock.Stop();

        Assert.All(statuses, s => Assert.Equal(HttpStatusCode.OK, s));
        // Holding a thread per request, 100 holds of 500 ms would wait for the pool to grow (about one thread
        // per 0.5 s beyond the cores): 100 threads grown two a second take the best part of a minute. Awaited, all hold
        // together: about 0.5 s plus connection set-up, and a stalled host's seconds.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(15), $"100 concurrent requests took {clock.Elapsed.TotalMilliseconds:0} ms");
    }

    [Theory]
    [InlineData("/diagnostics/capacity?slots=0", "slots")]
    [InlineData("/diagnostics/capacity?slots=abc", "slots")]
    [InlineData("/diagnostics/capacity?ms=0", "ms")]
    [InlineData("/diagnostics/capacity?ms=20000", "ms")]
    public async Task Capacity_BadParameter_Answers400NamingIt(string path, string parameter)
    {
        var sut = shared.Sut;
        using var response = await sut.Client.GetAsync(path);
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.True(body.RootElement.GetProperty("errors").TryGetProperty(parameter, out _), body.RootElement.ToString());
    }
}
