using PerfLab.Results;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Experiments.Running;

public sealed class CoreSpeedTests
{
    [Fact]
    public void SlowdownBetween_TwoCores_EachCoresMeanUnitOverTheReferenceWeightedByItsBusyTicks()
    {
        var speed = new CoreSpeed([0, 1], referenceNs: 100_000);
        var from = new CoreSpeed.Reading([1_000_000, 5_000_000], [10, 50], [1_000, 2_000]);
        // Core 0: 20 units of 200 µs (2x slower), 100 busy ticks; core 1: 40 units of 100 µs (full speed), 300 ticks.
        var to = new CoreSpeed.Reading([5_000_000, 9_000_000], [30, 90], [1_100, 2_300]);

        Assert.Equal((2.0 * 100 + 1.0 * 300) / 400, speed.SlowdownBetween(from, to)!.Value, 9);
    }

    [Fact]
    public void SlowdownBetween_NoBusyTicksKnown_TheCoresWeighEqually()
    {
        var speed = new CoreSpeed([0, 1], referenceNs: 100_000);
        var from = new CoreSpeed.Reading([0, 0], [0, 0], [0, 0]);
        var to = new CoreSpeed.Reading([3_000_000, 1_000_000], [10, 10], [0, 0]);

        Assert.Equal((3.0 + 1.0) / 2, speed.SlowdownBetween(from, to)!.Value, 9);
    }

    [Fact]
    public void SlowdownBetween_NoUnitsInTheWindowOrNoReferenceYet_Null()
    {
        var reading = new CoreSpeed.Reading([1_000, 1_000], [10, 10], [5, 5]);

        Assert.Null(new CoreSpeed([0, 1], referenceNs: 100).SlowdownBetween(reading, reading));
        Assert.Null(new CoreSpeed([0, 1], referenceNs: 0).SlowdownBetween(reading, reading with { Units = [20, 20] }));
    }

    [Fact]
    public void FullSpeedMsPerRequest_EachWindowsCpuOverItsSlowdown()
    {
        // 1 s of CPU for 1,000 requests at 2x slower, and 1 s for 2,000 at full speed: 0.5 + 1 s at full speed for 3,000.
        var cost = new CpuCost([
            new CpuWindow(2, 1_000, 0.8, 0.2, Slowdown: 2),
            new CpuWindow(2, 2_000, 0.7, 0.3, Slowdown: 1),
        ]);

        Assert.Equal(1.5 * 1000 / 3000, cost.FullSpeedMsPerRequest!.Value, 9);
        Assert.Equal(2.0 * 1000 / 3000, cost.MsPerRequest!.Value, 9);
        Assert.Null(new CpuCost([new CpuWindow(2, 1_000, 1, null)]).FullSpeedMsPerRequest);
    }

    [Fact]
    public async Task Shared_OnThisMachine_SamplesEveryCoreAndReadsAWindowNearFullSpeedOrSlower()
    {
        var speed = CoreSpeed.Shared;
        Assert.NotNull(speed);
        // The reference is fixed after the sampler's first two seconds.
        var deadline = DateTime.UtcNow + CoreSpeed.ReferencePeriod + TimeSpan.FromSeconds(10);
        while (speed.ReferenceNs == 0 && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100);
        }
        var from = speed.Read();
        var window = System.Diagnostics.Stopwatch.StartNew();
        var to = speed.Read();
        // A second at least, and until every core has a few samples more: a busy machine delays them, and a sampler
        // stalled for seconds catches up after (bounded: 15 s).
        while ((window.Elapsed < TimeSpan.FromSeconds(1) || to.Units.Zip(from.Units).Any(u => u.First - u.Second < 3))
               && window.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(100);
            to = speed.Read();
        }

        Assert.True(speed.ReferenceNs > 0, "no reference after the reference period");
        // Every core sampled about every 25 ms: a few at least, and never more than 60 a second of the window.
        Assert.All(to.Units.Zip(from.Units), u => Assert.InRange(u.First - u.Second, 3, 60 * Math.Max(1, window.Elapsed.TotalSeconds)));
        // The reference is the fastest unit of the first two seconds: a window's mean is at or above it unless the
        // machine got faster since; a shared host slows a core by up to about 2x (docs/benchmarks/capacity.md).
        Assert.InRange(speed.SlowdownBetween(from, to)!.Value, 0.7, 4);
    }
}
