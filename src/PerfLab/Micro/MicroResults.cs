namespace PerfLab.Micro;

/// <summary>One benchmark case as BenchmarkDotNet reported it. Times are in nanoseconds; null when the case failed.
/// <paramref name="ErrorNs"/> is BenchmarkDotNet's Error column: half the 99.9 % confidence interval of the mean.</summary>
public sealed record BenchmarkMeasurement(
    string FullName,
    string Type,
    string Method,
    string Parameters,
    double? MeanNs,
    double? ErrorNs,
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

/// <summary>What a seed ratio came to here.</summary>
public enum ClaimVerdict
{
    /// <summary>The table's baseline row: every ratio is taken against it.</summary>
    Baseline,
    /// <summary>Our ratio is on the seed's side of the baseline (faster, level or slower), beyond our error.</summary>
    Holds,
    /// <summary>Our ratio is on another side than the seed's, beyond our error.</summary>
    Differs,
    /// <summary>Our ratio's error interval spans more than one side: this run cannot tell.</summary>
    WithinNoise,
    /// <summary>The benchmark failed or did not run.</summary>
    NotMeasured,
    /// <summary>The benchmark ran but its table's baseline did not, so there is no ratio.</summary>
    NoBaseline,
}

/// <summary>One seed row beside our measurement of the same benchmark. <paramref name="OurRatioError"/> is the
/// ratio's relative error, combined from both means' 99.9 % error margins.</summary>
public sealed record ClaimComparison(
    SeedRow Seed,
    double SeedRatio,
    BenchmarkMeasurement? Ours,
    double? OurRatio,
    double OurRatioError,
    bool IsBaseline)
{
    public ClaimVerdict Verdict
    {
        get
        {
            if (IsBaseline)
            {
                return ClaimVerdict.Baseline;
            }
            if (OurRatio is not { } ours)
            {
                return Ours?.MeanNs is null ? ClaimVerdict.NotMeasured : ClaimVerdict.NoBaseline;
            }
            var low = MicroComparer.DirectionOf(ours * (1 - OurRatioError));
            var high = MicroComparer.DirectionOf(ours * (1 + OurRatioError));
            if (low != high)
            {
                return ClaimVerdict.WithinNoise;
            }
            return low == MicroComparer.DirectionOf(SeedRatio) ? ClaimVerdict.Holds : ClaimVerdict.Differs;
        }
    }
}

/// <summary>Whether the ranking of a table survived: every pair of rows the seed tells apart (means more than 5 %
/// apart) must come out in the same order here. A pair whose order here is inside our error margins is neither kept
/// nor reversed, but counted as within noise.</summary>
public sealed record OrderingCheck(int PairsChecked, int PairsKept, IReadOnlyList<string> Reversed, int WithinNoise)
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
