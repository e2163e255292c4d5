using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class LoadDisplayTests
{
    [Fact]
    public async Task RunAsync_Quiet_TheRunGetsNoProgressAndItsResultComesBack()
    {
        // --json: no progress object at all, so the sampler hands nothing to the thread pool once a second (the pool's
        // task scheduling then tiered up inside the measured window: docs/benchmarks/load-engine-cost.md, the load engine on /info).
        var from = new DateTimeOffset(2026, 11, 27, 12, 0, 0, TimeSpan.Zero);
        var generator = new GeneratorUsage(0.01, 1, 0.01, 2, false, 10, 500, 0.1, "HTTP/1.1 sockets");
        var expected = new LoadResult(from, from, from.AddSeconds(1), false, null, generator, []);
        var handed = new List<IProgress<LoadProgress>?>();

        var result = await LoadDisplay.RunAsync(progress =>
        {
            handed.Add(progress);
            return Task.FromResult(expected);
        }, quiet: true);

        Assert.Same(expected, result);
        Assert.Null(Assert.Single(handed));
    }
}
