using PerfLab.Micro;

namespace PerfLab.Tests.Micro;

// The parsing and rendering half of `perflab micro`, on BenchmarkDotNet JSON written by hand (Samples/): no
// benchmark runs here.
public sealed class MicroSummaryTests
{
    private static MicroResults Sample() => BenchmarkDotNetJson.ReadDirectory(MicroTestFiles.Samples);

    [Fact]
    public void ReadDirectory_SampleReports_ReadsEveryBenchmarkWithMeanAllocationAndParameters()
    {
        var results = Sample();

        Assert.Equal(10, results.Benchmarks.Count);
        var twoChars = results.Benchmarks.Single(b => b.Method == "IndexOfAny_Span_Two_Chars");
        Assert.Equal("IndexOfAnyBenchmarks", twoChars.Type);
        Assert.Equal(1.2, twoChars.MeanNs);
        Assert.Equal(0.02, twoChars.StdDevNs);
        Assert.Equal(0, twoChars.AllocatedBytes);
        var noCache = results.Benchmarks.Single(b => b.Method == "NoCache");
        Assert.Equal("StatusCode=200", noCache.Parameters);
        Assert.Equal(24, noCache.AllocatedBytes);
        Assert.Equal("PerfLab.Micro.StatusCodeResultBenchmarks.NoCache", noCache.MethodFullName);
        var failed = results.Benchmarks.Single(b => b.Method == "DynamicCacheWithFixedSizeArray");
        Assert.Null(failed.MeanNs);
        Assert.Null(failed.AllocatedBytes);
    }

    [Fact]
    public void ReadDirectory_SampleReports_ReadsHostAndJob()
    {
        var host = Sample().Host;

        Assert.NotNull(host);
        Assert.Equal("0.14.0", host.BenchmarkDotNetVersion);
        Assert.Equal(".NET 10.0.0 (sample)", host.Runtime);
        Assert.Equal(2, host.LogicalCores);
        Assert.Equal("Quick(IterationCount=7, IterationTime=150ms, LaunchCount=1, WarmupCount=3)", host.Job);
    }

    [Fact]
    public void Read_NaNMeanAndMissingMemory_GiveNoFigureInsteadOfThrowing()
    {
        const string json = """
            {"Benchmarks":[{"Type":"T","Method":"M","Parameters":"","FullName":"N.T.M",
              "Statistics":{"Mean":"NaN","StandardDeviation":"NaN"}}]}
            """;

        var b = Assert.Single(BenchmarkDotNetJson.Read(json).Benchmarks);

        Assert.Null(b.MeanNs);
        Assert.Null(b.AllocatedBytes);
    }

    [Fact]
    public void Compare_SampleReports_TakesEachRatioAgainstTheTablesFirstRow()
    {
        var comparison = MicroComparer.Compare(Sample(), SeedTables.All);

        var indexOfAny = comparison.Tables.Single(t => t.Table.Type == "IndexOfAnyBenchmarks");
        Assert.Equal([1.0, 0.95, 0.6], indexOfAny.Rows.Select(r => Math.Round(r.OurRatio!.Value, 4)));
        Assert.Equal([1.0, 0.98, 0.73], indexOfAny.Rows.Select(r => r.SeedRatio));
        // 1.9 ± 0.02 against 2.0 ± 0.02 ns: 0.95 ± 1.45 %, which straddles the edge of "level" (0.95).
        Assert.Equal(0.0145, indexOfAny.Rows[1].OurRatioError, 4);
        Assert.Equal([ClaimVerdict.WithinNoise, ClaimVerdict.Holds], indexOfAny.Rows.Skip(1).Select(r => r.Verdict));
        Assert.True(indexOfAny.Ordering.Holds);

        // 3.0 ns against 4.0 ns is faster here; the seed has the dictionary 2.10x slower than no cache.
        var known = comparison.Tables.Single(t => t.Table.Parameters == "StatusCode=200");
        var dictionary = known.Rows.Single(r => r.Seed.Method == "StaticCacheWithDictionary");
        Assert.Equal(0.75, dictionary.OurRatio);
        Assert.Equal(ClaimVerdict.Differs, dictionary.Verdict);
        Assert.Equal(ClaimVerdict.NotMeasured, known.Rows.Single(r => r.Seed.Method == "DynamicCacheWithFixedSizeArray").Verdict);
        Assert.False(known.Ordering.Holds);
        Assert.Equal(["NoCache < StaticCacheWithDictionary", "StaticCacheWithSwitchExpression < StaticCacheWithDictionary"],
            known.Ordering.Reversed);
        Assert.Equal(1, known.Ordering.PairsKept);
    }

    [Fact]
    public void Compare_SampleReports_LeavesOutTablesNotRunAndKeepsBenchmarksNotInTheSeed()
    {
        var comparison = MicroComparer.Compare(Sample(), SeedTables.All);

        Assert.DoesNotContain(comparison.Tables, t => t.Table.Type == "Utf8LookupBenchmarks");
        Assert.DoesNotContain(comparison.Tables, t => t.Table.Parameters == "StatusCode=150");
        var extra = Assert.Single(comparison.NotInSeed);
        Assert.Equal("NotFromTheSeed", extra.Method);
    }

    [Fact]
    public void Compare_BaselineNotRun_SaysSoInsteadOfNotMeasured()
    {
        var cached = new BenchmarkMeasurement("PerfLab.Micro.CachedObjectBenchmarks.GetCachedObject",
            "CachedObjectBenchmarks", "GetCachedObject", "", 0.4, 0.01, 0.005, 0);

        var table = Assert.Single(MicroComparer.Compare(new MicroResults(null, [cached]), SeedTables.All).Tables);

        Assert.Equal([ClaimVerdict.Baseline, ClaimVerdict.NoBaseline], table.Rows.Select(r => r.Verdict));
    }

    [Theory]
    [InlineData(0.73, RatioDirection.Faster)]
    [InlineData(0.98, RatioDirection.Level)]
    [InlineData(1.05, RatioDirection.Level)]
    [InlineData(1.06, RatioDirection.Slower)]
    public void DirectionOf_Ratio_UsesAFivePercentLevelBand(double ratio, RatioDirection expected) =>
        Assert.Equal(expected, MicroComparer.DirectionOf(ratio));

    [Fact]
    public void Render_SampleReports_MatchesGoldenFile()
    {
        var comparison = MicroComparer.Compare(Sample(), SeedTables.All);

        var summary = MicroSummaryWriter.Render(comparison, "perflab micro --quick");

        Golden.AssertMatches("summary.md", summary);
    }
}
