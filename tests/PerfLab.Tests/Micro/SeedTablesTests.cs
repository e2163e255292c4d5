using System.Text.RegularExpressions;
using PerfLab.Micro;

namespace PerfLab.Tests.Micro;

// Every claim of seed 002's microbenchmark tables must be in SeedTables with the article's figure, and every seed
// method must exist as a [Benchmark] in bench/PerfLab.Micro, or the summary would silently drop a claim.
public sealed partial class SeedTablesTests
{
    // (table type, parameters, method, the seed's mean in ns, the seed's ratio as printed or computed)
    public static TheoryData<string, string, string, double, double> SeedClaims => new()
    {
        { "IndexOfAnyBenchmarks", "", "IndexOfAny_String", 7.004, 1.00 },
        { "IndexOfAnyBenchmarks", "", "IndexOfAny_Span_Array", 6.847, 0.98 },
        { "IndexOfAnyBenchmarks", "", "IndexOfAny_Span_Two_Chars", 5.161, 0.73 },
        { "CachedObjectBenchmarks", "", "GetObject", 3.5884, 1.00 },
        { "CachedObjectBenchmarks", "", "GetCachedObject", 0.7896, 0.22 },
        { "CachedTaskBenchmarks", "", "GetTask", 22.59, 1.00 },
        { "CachedTaskBenchmarks", "", "GetCachedTask", 11.70, 0.52 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "NoCache", 2.725, 1.00 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "StaticCacheWithDictionary", 5.733, 2.10 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "DynamicCacheWithFixedSizeArray", 2.184, 0.80 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "DynamicCacheWithFixedSizeArrayPerStatusGroup", 3.371, 1.24 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "DynamicCacheWithConcurrentDictionary", 5.450, 2.00 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "StaticCacheWithSwitchExpression", 1.867, 0.69 },
        { "StatusCodeResultBenchmarks", "StatusCode=200", "DynamicCacheWithSwitchExpression", 1.889, 0.69 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "NoCache", 2.477, 1.00 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "StaticCacheWithDictionary", 8.479, 3.42 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "DynamicCacheWithFixedSizeArray", 2.234, 0.90 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "DynamicCacheWithFixedSizeArrayPerStatusGroup", 4.809, 1.94 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "DynamicCacheWithConcurrentDictionary", 6.076, 2.45 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "StaticCacheWithSwitchExpression", 4.195, 1.69 },
        { "StatusCodeResultBenchmarks", "StatusCode=150", "DynamicCacheWithSwitchExpression", 4.146, 1.67 },
        { "FilterContextBenchmarks", "", "GetArgBoxed", 16.865, 1.00 },
        { "FilterContextBenchmarks", "", "GetArg", 3.292, 0.20 },
        { "Utf8LookupBenchmarks", "", "StringLookup", 100.19, 1.00 },
        { "Utf8LookupBenchmarks", "", "Utf8LookupBefore", 109.24, 1.09 },
        { "Utf8LookupBenchmarks", "", "Utf8LookupAfter", 85.20, 0.85 },
    };

    [Theory]
    [MemberData(nameof(SeedClaims))]
    public void All_EverySeedClaim_IsPresentWithTheArticlesFigures(
        string type, string parameters, string method, double meanNs, double ratio)
    {
        var table = Assert.Single(SeedTables.All, t => t.Type == type && t.Parameters == parameters);
        var row = Assert.Single(table.Rows, r => r.Method == method);

        Assert.Equal(meanNs, row.MeanNs);
        Assert.Equal(ratio, Math.Round(table.SeedRatio(row), 2));
    }

    [Fact]
    public void All_HasNoRowBeyondTheSeedClaims() =>
        Assert.Equal(SeedClaims.Count(), SeedTables.All.Sum(t => t.Rows.Count));

    [Fact]
    public void All_EverySeedMethod_IsABenchmarkInTheBenchProject()
    {
        var declared = Directory.GetFiles(MicroTestFiles.BenchSources, "*.cs")
            .SelectMany(file =>
            {
                var type = Path.GetFileNameWithoutExtension(file);
                return BenchmarkMethod().Matches(File.ReadAllText(file)).Select(m => $"{type}.{m.Groups[1].Value}");
            })
            .ToHashSet();

        var missing = SeedTables.All.SelectMany(t => t.Rows.Select(r => $"{t.Type}.{r.Method}")).Distinct()
            .Where(name => !declared.Contains(name)).ToList();

        Assert.Empty(missing);
    }

    [GeneratedRegex(@"\[Benchmark[^\]]*\]\s*public\s+[\w<>\[\]?]+\s+(\w+)\s*\(")]
    private static partial Regex BenchmarkMethod();
}
