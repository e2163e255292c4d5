namespace PerfLab.Micro;

/// <summary>One row of a seed 002 BenchmarkDotNet table, as printed there.</summary>
/// <param name="Method">The benchmark method that reproduces the row (same name as in the seed).</param>
/// <param name="MeanNs">The seed's mean, in nanoseconds.</param>
/// <param name="AllocatedBytes">The seed's allocated bytes per operation (0 for "-"), or null when the table has no
/// such column.</param>
/// <param name="PrintedRatio">The seed's own Ratio column, when it has one; otherwise the ratio is computed from the
/// means.</param>
public sealed record SeedRow(string Method, double MeanNs, long? AllocatedBytes, double? PrintedRatio = null);

/// <summary>One seed 002 table and the benchmark class (and parameters) that reproduce it. The first row is the
/// baseline every ratio is taken against.</summary>
public sealed record SeedTable(string Title, string Type, string Parameters, IReadOnlyList<SeedRow> Rows)
{
    public SeedRow Baseline => Rows[0];

    public double SeedRatio(SeedRow row) => row.PrintedRatio ?? row.MeanNs / Baseline.MeanNs;
}

/// <summary>The tables of seed 002 ("Performance improvements in ASP.NET Core 7") that bench/PerfLab.Micro
/// reproduces, figures copied from the article (.NET 7 on the article's hardware).</summary>
public static class SeedTables
{
    public static IReadOnlyList<SeedTable> All { get; } =
    [
        new("IndexOfAny: string vs span", "IndexOfAnyBenchmarks", "",
        [
            new("IndexOfAny_String", 7.004, null, 1.00),
            new("IndexOfAny_Span_Array", 6.847, null, 0.98),
            new("IndexOfAny_Span_Two_Chars", 5.161, null, 0.73),
        ]),
        new("Auth: new vs cached object", "CachedObjectBenchmarks", "",
        [
            new("GetObject", 3.5884, 24),
            new("GetCachedObject", 0.7896, 0),
        ]),
        new("Auth: new vs cached task", "CachedTaskBenchmarks", "",
        [
            new("GetTask", 22.59, 72, 1.00),
            new("GetCachedTask", 11.70, 0, 0.52),
        ]),
        new("HttpResult: known status code (200)", "StatusCodeResultBenchmarks", "StatusCode=200",
        [
            new("NoCache", 2.725, 24),
            new("StaticCacheWithDictionary", 5.733, 0),
            new("DynamicCacheWithFixedSizeArray", 2.184, 0),
            new("DynamicCacheWithFixedSizeArrayPerStatusGroup", 3.371, 0),
            new("DynamicCacheWithConcurrentDictionary", 5.450, 0),
            new("StaticCacheWithSwitchExpression", 1.867, 0),
            new("DynamicCacheWithSwitchExpression", 1.889, 0),
        ]),
        new("HttpResult: unknown status code (150)", "StatusCodeResultBenchmarks", "StatusCode=150",
        [
            new("NoCache", 2.477, 24),
            new("StaticCacheWithDictionary", 8.479, 24),
            new("DynamicCacheWithFixedSizeArray", 2.234, 0),
            new("DynamicCacheWithFixedSizeArrayPerStatusGroup", 4.809, 24),
            new("DynamicCacheWithConcurrentDictionary", 6.076, 0),
            new("StaticCacheWithSwitchExpression", 4.195, 24),
            new("DynamicCacheWithSwitchExpression", 4.146, 24),
        ]),
        new("Filters: boxed vs generic filter context", "FilterContextBenchmarks", "",
        [
            new("GetArgBoxed", 16.865, 80),
            new("GetArg", 3.292, 24),
        ]),
        new("SignalR: UTF-8 method-name lookup", "Utf8LookupBenchmarks", "",
        [
            new("StringLookup", 100.19, 32),
            new("Utf8LookupBefore", 109.24, 0),
            new("Utf8LookupAfter", 85.20, 0),
        ]),
    ];
}
