using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class SamplerTests
{
    private static List<LoadSecond> Timeline(params double[] rps) =>
        [.. rps.Select((r, i) => new LoadSecond(1_000 + i, false, (long)r, r, 1, 2, 0, 1))];

    [Fact]
    public void LastSeconds_OneScenarioASecondAhead_SumsTheSameSecondsOfEach()
    {
        // Sampling appends scenario 0's second before scenario 1's: framework's two pages crashed the warm-up here
        // (ArgumentOutOfRangeException) when the read came in between.
        var orders = Timeline(5, 10, 10, 10, 99);
        var products = Timeline(50, 20, 20, 20);

        var seconds = Sampler.LastSeconds([orders, products], count: 3);

        Assert.Equal([30.0, 30.0, 30.0], seconds);
    }

    [Fact]
    public void LastSeconds_YoungRun_LeavesTheFirstPartialSecondOut()
    {
        Assert.Equal([10.0, 12.0], Sampler.LastSeconds([Timeline(1, 10, 12)], count: 3));
        Assert.Empty(Sampler.LastSeconds([Timeline(1), Timeline()], count: 3));
    }

    [Theory]
    [InlineData(250, 751)]    // 750 ms to the boundary, and the slack
    [InlineData(999.4, 2)]    // 0.6 ms left: rounded up to 1 ms, never down to 0
    [InlineData(0, 1001)]      // on a boundary: the next one
    public void DelayPast_AtAKnownTime_EndsAtTheNextBoundaryPlusTheClocksSlack(double msIntoTheSecond, double expectedMs)
    {
        var second = DateTimeOffset.FromUnixTimeSeconds(1_800_000_000);
        var now = second.AddTicks((long)(msIntoTheSecond * TimeSpan.TicksPerMillisecond));
        var boundary = DateTimeOffset.FromUnixTimeSeconds(now.ToUnixTimeSeconds() + 1);

        var delay = Sampler.DelayPast(boundary, now);

        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), delay);
        // One wait a second, ending past the boundary even when the UTC clock reads up to the slack behind the precise one.
        Assert.True(now + delay - Sampler.ClockSlack >= boundary);
    }
}
