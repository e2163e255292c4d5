using PerfLab.Counters;
using PerfLab.Load;
using PerfLab.Experiments.Running.Blocks;

namespace PerfLab.Tests.Experiments.Running;

public sealed class AlternatingBlockTests
{
    [Fact]
    public void Turns_GoForwardsThenBackwards_SoNoVariantAlwaysGoesFirst()
    {
        Assert.Equal([0, 1, 2], AlternatingBlock.Turns(3, 0));
        Assert.Equal([2, 1, 0], AlternatingBlock.Turns(3, 1));
        Assert.Equal([0, 1, 2], AlternatingBlock.Turns(3, 2));
        // Over two rounds every variant has the same mean position: a steady drift hits them alike.
        var positions = Enumerable.Range(0, 3).Select(v => Enumerable.Range(0, 2).Average(r => AlternatingBlock.Turns(3, r).ToList().IndexOf(v)));
        Assert.All(positions, p => Assert.Equal(1.0, p));
    }

    [Fact]
    public void OfSlots_KeepsTheCounterSamplesOfTheVariantsOwnSlotsOnly()
    {
        var t0 = DateTimeOffset.FromUnixTimeSeconds(1_000_000);
        LoadResult Slot(int from, int to) => new(t0.AddSeconds(from - 1), t0.AddSeconds(from), t0.AddSeconds(to), false, null,
            new GeneratorUsage(0, 0, 0, 2, false, 0, 0, 0, ""), []);
        var recording = new CounterRecording
        {
            ProcessId = 1,
            IntervalSeconds = 1,
            StartedUnixMs = t0.ToUnixTimeMilliseconds(),
            EndedUnixMs = t0.AddSeconds(20).ToUnixTimeMilliseconds(),
            Ending = CollectionEnding.Cancelled,
            Counters = [],
            Samples = Enumerable.Range(0, 20).Select(s => new CounterSample(t0.ToUnixTimeSeconds() + s, new Dictionary<string, double> { ["cpu-usage"] = s })).ToList(),
            Adjustments = [new ThreadPoolAdjustment(t0.AddSeconds(3.5).ToUnixTimeMilliseconds(), "Starvation", 9, 0), new ThreadPoolAdjustment(t0.AddSeconds(8.5).ToUnixTimeMilliseconds(), "Starvation", 10, 0)],
        };

        // This variant measured [2, 5] and [12, 15]; another ran in between.
        var own = AlternatingBlock.OfSlots(recording, [Slot(2, 5), Slot(12, 15)])!;

        Assert.Equal([3, 4, 5, 13, 14, 15], own.Samples.Select(s => (int)(s.UnixSeconds - t0.ToUnixTimeSeconds())));
        Assert.Equal(9, Assert.Single(own.Adjustments).NewWorkerThreadCount);
        Assert.Null(AlternatingBlock.OfSlots(null, [Slot(2, 5)]));
    }
}
