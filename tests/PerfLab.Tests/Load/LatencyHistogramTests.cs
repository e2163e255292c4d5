using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class LatencyHistogramTests
{
    private static readonly double[] s_percentiles = [1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100];

    public static TheoryData<string> DataSets => ["uniform", "lognormal", "bimodal", "constant", "small"];

    [Theory]
    [MemberData(nameof(DataSets))]
    public void Percentile_KnownDataSet_MatchesExactNearestRankWithin3SignificantDigits(string name)
    {
        var data = Generate(name);
        var h = new LatencyHistogram();
        foreach (var v in data)
        {
            h.Record(v);
        }
        var sorted = data.Order().ToArray();

        Assert.Equal(data.Length, h.Count);
        Assert.Equal(data.Sum(), h.Sum);
        Assert.Equal(data.Average(), h.Mean, 9);
        foreach (var p in s_percentiles)
        {
            var exact = sorted[Math.Max(1, (int)Math.Ceiling(p / 100 * sorted.Length)) - 1];
            var measured = h.Percentile(p);
            Assert.True(Math.Abs(measured - exact) <= (exact / 2048.0) + 0.5, $"{name} p{p}: exact {exact}, histogram {measured}");
        }
        Assert.InRange(h.Min, sorted[0] - (sorted[0] / 1024), sorted[0]);
        Assert.InRange(h.Max, sorted[^1], sorted[^1] + (sorted[^1] / 1024) + 1);
        var exactStdDev = Math.Sqrt(data.Select(v => (v - data.Average()) * (v - data.Average())).Sum() / data.Length);
        // Bucket midpoints can sit up to half a bucket (1/2048 of the value) from the values they stand for.
        Assert.True(Math.Abs(h.StdDev - exactStdDev) <= (exactStdDev * 0.002) + (sorted[^1] / 2048.0) + 1, $"{name} stddev: exact {exactStdDev}, histogram {h.StdDev}");
    }

    [Fact]
    public void Add_TwoHalves_EqualsOneHistogramOfAll()
    {
        var data = Generate("lognormal");
        var all = new LatencyHistogram();
        var a = new LatencyHistogram();
        var b = new LatencyHistogram();
        for (var i = 0; i < data.Length; i++)
        {
            all.Record(data[i]);
            (i % 2 == 0 ? a : b).Record(data[i]);
        }
        a.Add(b);
        Assert.Equal(all.Count, a.Count);
        Assert.Equal(all.Sum, a.Sum);
        foreach (var p in s_percentiles)
        {
            Assert.Equal(all.Percentile(p), a.Percentile(p));
        }
    }

    [Fact]
    public void Subtract_EarlierSnapshot_LeavesOnlyLaterValues()
    {
        var h = new LatencyHistogram();
        for (var i = 0; i < 1000; i++)
        {
            h.Record(5_000_000);
        }
        var earlier = h.Copy();
        for (var i = 0; i < 100; i++)
        {
            h.Record(1_000);
        }
        h.Subtract(earlier);
        Assert.Equal(100, h.Count);
        Assert.Equal(1_000, h.Percentile(99.9));
        Assert.Equal(1_000, h.Max);
    }

    [Fact]
    public void Record_BeyondOneHour_IsClampedAndCounted()
    {
        var h = new LatencyHistogram();
        h.Record(LatencyHistogram.MaxValue * 3);
        h.Record(-5);
        Assert.Equal(1, h.ClampedCount);
        Assert.Equal(0, h.Min);
        Assert.InRange(h.Max, LatencyHistogram.MaxValue, LatencyHistogram.MaxValue * 1.001);
    }

    [Fact]
    public void IndexOf_EveryBucketBoundary_RoundTripsThroughLowestAndHighestEquivalent()
    {
        for (long v = 1; v <= LatencyHistogram.MaxValue; v = (v * 3 / 2) + 1)
        {
            var index = LatencyHistogram.IndexOf(v);
            Assert.InRange(v, LatencyHistogram.LowestEquivalent(index), LatencyHistogram.HighestEquivalent(index));
            Assert.True(LatencyHistogram.HighestEquivalent(index) - LatencyHistogram.LowestEquivalent(index) <= v / 1024, $"bucket of {v} too wide");
        }
    }

    private static long[] Generate(string name)
    {
        var random = new Random(42);
        return name switch
        {
            "uniform" => [.. Enumerable.Range(1, 100_000).Select(i => (long)i * 37)],
            // Latency-like: log-normal around 20 ms with a long tail.
            "lognormal" => [.. Enumerable.Range(0, 50_000).Select(_ => (long)Math.Exp(Math.Log(20_000) + (0.8 * Gaussian(random))))],
            // Fast answers plus a cluster of 1 s stalls.
            "bimodal" => [.. Enumerable.Range(0, 20_000).Select(i => i % 50 == 0 ? 1_000_000L + random.Next(50_000) : 300L + random.Next(2_000))],
            "constant" => [.. Enumerable.Repeat(150_000L, 1000)],
            "small" => [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5],
            _ => throw new ArgumentOutOfRangeException(nameof(name)),
        };
    }

    private static double Gaussian(Random random) =>
        Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
}
