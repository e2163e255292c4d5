using PerfLab.Load;

namespace PerfLab.Tests.Load;

/// <summary>What a measured window counts: completions inside it, whenever sent; what is still in flight at its end; steady warm-ups.</summary>
public sealed class WindowTests
{
    private static LoadPlan Plan(LoadModel model, Uri url, TimeSpan duration, TimeSpan warmup) =>
        new([new ScenarioPlan("test", model, new RequestFeed(url.ToString()))], duration, warmup, TimeSpan.FromSeconds(10));

    [Fact]
    public async Task RunAsync_LatencyLongerThanTheWindow_CountsWhatCompletedInsideAndReportsWhatWasInFlight()
    {
        await using var server = await TestServer.StartAsync();
        // 20 users, 3 s per request: the first 20 requests are sent in the 2 s warm-up and complete 1 s into the 2 s
        // window; the next 20 leave then and are 1 s old when the window closes.
        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(20), server.Url("/delay?ms=3000"), TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(2)));

        var s = Assert.Single(result.Scenarios);
        Assert.Equal(20, s.Requests);
        Assert.InRange(s.RequestsPerSecond, 8.5, 10.5);
        Assert.Equal(20, s.InFlightAtEnd);
        // About 1 s: they left when the first 20 came back (a little after 3 s on a busy machine), the window closed at 4 s.
        Assert.InRange(s.InFlightOldestMs, 500, 1500);
        Assert.True(s.BoundedByWindow);
        Assert.InRange(s.Latency.P50Ms, 2990, 3300);
    }

    [Fact]
    public async Task RunAsync_ShortFixedDelay_RateIsUsersOverDelayAndNotBoundedByTheWindow()
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(10), server.Url("/delay?ms=100"), TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(1)));

        var s = Assert.Single(result.Scenarios);
        // 10 users at 100 ms (a timer tick or so more each): just under 100 requests a second.
        Assert.InRange(s.RequestsPerSecond, 80, 101);
        Assert.InRange(s.InFlightAtEnd, 0, 10);
        Assert.False(s.BoundedByWindow);
        Assert.Null(result.Settled);
    }

    [Fact]
    public async Task RunAsync_WarmupUntilSteady_EndsOnceTheSlowStartIsOver()
    {
        await using var server = await TestServer.StartAsync();
        var plan = Plan(new ClosedModel(10), server.Url("/slowstart?slowMs=200&ms=20&seconds=3"), TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(30))
            with { WarmupUntilSteady = true };

        var result = await LoadEngine.RunAsync(plan);

        Assert.True(result.Settled);
        // Slow for 3 s, then three steady whole seconds are needed: about 6-8 s on a quiet machine (longer when the
        // tests share the cores), and before the 30 s cap.
        Assert.InRange(result.WarmupSeconds, 5.5, 29);
        var s = Assert.Single(result.Scenarios);
        Assert.InRange(s.Latency.P50Ms, 19, 40);   // the window holds only the steady phase
    }

    [Fact]
    public async Task RunAsync_WarmupUntilSteadyButTheTargetNeverSettles_MeasuresAtTheCapAndSaysSo()
    {
        await using var server = await TestServer.StartAsync();
        var plan = Plan(new ClosedModel(4), server.Url("/delay?ms=20"), TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(3))
            with { WarmupUntilSteady = true, TargetSettled = () => false };

        var result = await LoadEngine.RunAsync(plan);

        Assert.False(result.Settled);
        Assert.InRange(result.WarmupSeconds, 2.9, 3.6);
        Assert.True(Assert.Single(result.Scenarios).Requests > 0);
    }

    [Theory]
    [InlineData(new double[] { 100, 101, 99 }, true)]
    [InlineData(new double[] { 50, 100, 101, 99 }, true)]    // only the last three count
    [InlineData(new double[] { 90, 95, 100 }, false)]        // a climb: 10 % from first to last
    [InlineData(new double[] { 100, 120, 100 }, false)]      // too noisy
    [InlineData(new double[] { 100, 100 }, false)]           // too few seconds
    [InlineData(new double[] { 0, 0, 0 }, false)]
    public void IsSteady_LastThreeSeconds_WithinFivePercentAndFlat(double[] perSecond, bool steady)
    {
        Assert.Equal(steady, SteadyState.IsSteady(perSecond));
    }
}
