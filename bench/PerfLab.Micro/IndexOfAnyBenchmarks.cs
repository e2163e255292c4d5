using BenchmarkDotNet.Attributes;

namespace PerfLab.Micro;

// Seed 002, section "IndexOfAny", table IndexOfAny_String / IndexOfAny_Span_Array / IndexOfAny_Span_Two_Chars
// (7.004 ns = 1.00, 0.98, 0.73): a two-character char[] handed to string.IndexOfAny is slower than the span overload
// that takes the two characters directly (dotnet/aspnetcore#39743).
[MemoryDiagnoser]
public class IndexOfAnyBenchmarks
{
    // A path with a query: the search has to walk most of the string before it finds '?'.
    private const string RequestTarget = "https://shop.example.org/catalog/items/42/details?page=3&sort=price";
    private static readonly char[] QueryOrFragment = ['?', '#'];

    [Benchmark(Baseline = true)]
    public int IndexOfAny_String() => RequestTarget.IndexOfAny(QueryOrFragment);

    [Benchmark]
    public int IndexOfAny_Span_Array() => RequestTarget.AsSpan().IndexOfAny(QueryOrFragment);

    [Benchmark]
    public int IndexOfAny_Span_Two_Chars() => RequestTarget.AsSpan().IndexOfAny('?', '#');
}
