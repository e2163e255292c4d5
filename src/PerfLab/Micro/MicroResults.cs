namespace PerfLab.Micro;

/// <summary>One benchmark case as BenchmarkDotNet reported it. Times are in nanoseconds; null when the case failed.</summary>
public sealed record BenchmarkMeasurement(
    string FullName,
    string Type,
    string Method,
    string Parameters,
    double? MeanNs,
    double? StdDevNs,
    long? AllocatedBytes)
{
    /// <summary><c>Namespace.Class.Method</c>, without the parameters BenchmarkDotNet appends to the full name.</summary>
    public string MethodFullName => FullName.IndexOf('(') is var p and >= 0 ? FullName[..p] : FullName;
}

/// <summary>Where the benchmarks ran, from BenchmarkDotNet's host environment record.</summary>
public sealed record MicroHost(
    string BenchmarkDotNetVersion,
    string Runtime,
    string Processor,
    int LogicalCores,
    string Os,
    string Job);

/// <summary>Everything read back from one or more BenchmarkDotNet JSON reports.</summary>
public sealed record MicroResults(MicroHost? Host, IReadOnlyList<BenchmarkMeasurement> Benchmarks);

/// <summary>How a ratio compares with 1: the band of "level" is ±5 %.</summary>
public enum RatioDirection
{
    Faster,
    Level,
    Slower,
}

/// <summary>One seed row beside our measurement of the same benchmark.</summary>
public sealed record ClaimComparison(
    SeedRow Seed,
    double SeedRatio,
    BenchmarkMeasurement? Ours,
    double? OurRatio)
{
    public bool IsBaseline { get; init; }

    /// <summary>True when our ratio falls on the same side of the baseline as the seed's (faster, level or slower);
    /// null when we have no figure.</summary>
    public bool? DirectionHolds => OurRatio is { } ours
        ? MicroComparer.DirectionOf(ours) == MicroComparer.DirectionOf(SeedRatio)
        : null;
}

/// <summary>Whether the ranking of a table survived: every pair of rows the seed tells apart (means more than 5 %
/// apart) must come out in the same order here.</summary>
public sealed record OrderingCheck(int PairsChecked, int PairsKept, IReadOnlyList<string> Reversed)
{
    public bool Holds => PairsChecked > 0 && PairsKept == PairsChecked;
}

/// <summary>A seed table beside our run of it.</summary>
public sealed record TableComparison(SeedTable Table, IReadOnlyList<ClaimComparison> Rows, OrderingCheck Ordering);

/// <summary>The whole comparison the summary writer renders.</summary>
public sealed record MicroComparison(
    MicroHost? Host,
    IReadOnlyList<TableComparison> Tables,
    IReadOnlyList<BenchmarkMeasurement> NotInSeed);
