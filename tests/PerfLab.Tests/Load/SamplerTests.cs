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
}
