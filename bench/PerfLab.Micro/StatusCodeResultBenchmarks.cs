using BenchmarkDotNet.Attributes;

namespace PerfLab.Micro;

// Seed 002, section "HttpResult", the two tables "known status code (e.g. 200)" and "unknown status code (e.g. 150)":
// the strategies dotnet/aspnetcore#40965 compared for caching StatusCodeHttpResult. Known 200: NoCache 2.725 ns
// (24 B), StaticCacheWithSwitchExpression 1.867 ns fastest, the dictionaries slowest (5.7 ns). Unknown 150: the
// fixed-size array 2.234 ns fastest, StaticCacheWithDictionary 8.479 ns slowest. ASP.NET Core chose the static switch.
[MemoryDiagnoser]
public class StatusCodeResultBenchmarks
{
    [Params(200, 150)]
    public int StatusCode { get; set; }

    [Benchmark(Baseline = true)]
    public StatusResult NoCache() => StatusResults.NoCache(StatusCode);

    [Benchmark]
    public StatusResult StaticCacheWithDictionary() => StatusResults.StaticDictionary(StatusCode);

    [Benchmark]
    public StatusResult DynamicCacheWithFixedSizeArray() => StatusResults.FixedSizeArray(StatusCode);

    [Benchmark]
    public StatusResult DynamicCacheWithFixedSizeArrayPerStatusGroup() => StatusResults.FixedSizeArrayPerStatusGroup(StatusCode);

    [Benchmark]
    public StatusResult DynamicCacheWithConcurrentDictionary() => StatusResults.ConcurrentDictionary(StatusCode);

    [Benchmark]
    public StatusResult StaticCacheWithSwitchExpression() => StatusResults.StaticSwitch(StatusCode);

    [Benchmark]
    public StatusResult DynamicCacheWithSwitchExpression() => StatusResults.DynamicSwitch(StatusCode);
}
