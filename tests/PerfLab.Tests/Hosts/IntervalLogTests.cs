using PerfLab.Hosts;
using PerfLab.Load;

namespace PerfLab.Tests.Hosts;

public sealed class IntervalLogTests
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 26, 3, 0, 0, TimeSpan.Zero);

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Merge_ValuesSplitAcrossGeneratorLogs_EqualsTheWholesPercentiles(int generators)
    {
        var random = new Random(42 + generators);
        var whole = new LatencyHistogram();
        // Per generator, one histogram per second of a 10-second run, as a generator streams them.
        var parts = new LatencyHistogram[generators, 10];
        for (var g = 0; g < generators; g++)
        {
            for (var s = 0; s < 10; s++)
            {
                parts[g, s] = new LatencyHistogram();
            }
        }
        for (var i = 0; i < 200_000; i++)
        {
            // A 150 ms delay with a long tail from 50 µs up to several seconds: every bucket width is exercised.
            var value = i % 1000 == 0 ? random.NextInt64(50, 5_000_000) : 150_000 + (long)(Math.Exp(random.NextDouble() * 9) - 1);
            whole.Record(value);
            parts[random.Next(generators), random.Next(10)].Record(value);
        }

        var logs = new List<string>();
        for (var g = 0; g < generators; g++)
        {
            var intervals = Enumerable.Range(0, 10).Select(s => new LogInterval(T0.AddSeconds(s), T0.AddSeconds(s + 1), $"gen-{g + 1}", parts[g, s]));
            var log = new StringWriter();
            IntervalLog.Write(log, T0, intervals);
            logs.Add(log.ToString());
        }
        var readBack = logs.SelectMany(IntervalLog.Read).ToList();
        var merged = IntervalLog.Merge(readBack);

        Assert.Equal(generators * 10, readBack.Count);
        Assert.Equal(whole.Count, merged.Count);
        foreach (var p in new[] { 1, 10, 50, 75, 90, 99, 99.9, 99.99, 100 })
        {
            Assert.Equal(whole.Percentile(p), merged.Percentile(p));
        }
        Assert.Equal(whole.Min, merged.Min);
        Assert.Equal(whole.Max, merged.Max);
        // The mean travels as bucket midpoints: within the histogram's precision (0.05 %) of the exact one.
        Assert.InRange(merged.Mean, whole.Mean * 0.9995, whole.Mean * 1.0005);
    }

    [Fact]
    public void Read_LogWrittenByHdrHistogram_KeepsIntervalTimesAndTags()
    {
        var latency = new LatencyHistogram();
        latency.Record(150_123);
        var log = new StringWriter();
        IntervalLog.Write(log, T0, [new LogInterval(T0.AddSeconds(3), T0.AddSeconds(4), "gen-2", latency)]);
        var text = log.ToString();

        var interval = Assert.Single(IntervalLog.Read(text));

        Assert.StartsWith("#[Histogram log format version", text, StringComparison.Ordinal);
        Assert.Equal(1, text.Split('\n').Count(l => l.StartsWith("#[StartTime: ", StringComparison.Ordinal)));
        Assert.Contains("Tag=gen-2,", text, StringComparison.Ordinal);
        Assert.Equal(T0.AddSeconds(3), interval.Start);
        Assert.Equal(T0.AddSeconds(4), interval.End);
        Assert.Equal("gen-2", interval.Tag);
        Assert.Equal(latency.Percentile(50), interval.Latency.Percentile(50));
    }

    [Fact]
    public void Merge_Window_AddsOnlyIntervalsInside()
    {
        var one = new LatencyHistogram();
        one.Record(1_000);
        var intervals = Enumerable.Range(0, 5).Select(s => new LogInterval(T0.AddSeconds(s), T0.AddSeconds(s + 1), null, one)).ToList();

        var merged = IntervalLog.Merge(intervals, T0.AddSeconds(1), T0.AddSeconds(4));

        Assert.Equal(3, merged.Count);
    }
}
