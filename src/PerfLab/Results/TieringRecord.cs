namespace PerfLab.Results;

/// <summary>
/// What the SUT's runtime compiled while a run warmed up and while it was measured, read from its JIT events: the
/// evidence that the warm-up ended on final code (or how far from it).
/// </summary>
public sealed record TieringRecord
{
    /// <summary>The rule the warm-up waited for, in words.</summary>
    public required string Rule { get; init; }
    /// <summary>Seconds from the start of the load until the rule first held; null when it never did before the cap.</summary>
    public double? SettledAfterSeconds { get; init; }
    /// <summary>Methods compiled for the first time (tier 0, or optimized where tiering is off) during the warm-up.</summary>
    public int WarmupFirstCompiles { get; init; }
    /// <summary>Methods recompiled hotter (tier 1, PGO's instrumented tiers) during the warm-up.</summary>
    public int WarmupPromotions { get; init; }
    /// <summary>On-stack replacements compiled during the warm-up.</summary>
    public int WarmupOsr { get; init; }
    /// <summary>Compilations of any kind per second inside the measured window(s).</summary>
    public double WindowCompilesPerSecond { get; init; }
    /// <summary>Promotions and OSR compiles per second inside the measured window(s).</summary>
    public double WindowPromotionsPerSecond { get; init; }
    /// <summary>Every second watched, oldest first: [first compiles, promotions, OSR].</summary>
    public IReadOnlyList<int[]> Seconds { get; init; } = [];
}
