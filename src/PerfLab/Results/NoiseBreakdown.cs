namespace PerfLab.Results;

/// <summary>
/// Where the spread of an experiment's all-scenario RPS comes from. If runs differed only by the second-to-second noise
/// inside them, their spread would be <see cref="ExpectedRunToRunCvPercent"/>; a larger <see cref="RunToRunCvPercent"/> is
/// the SUT process's own state (JIT, heap, pool, database), and <see cref="DriftPercentPerRun"/> is what changes with time.
/// </summary>
public sealed record NoiseBreakdown
{
    /// <summary>Coefficient of variation of the per-second RPS inside the measured window, median over runs, in percent.</summary>
    public required double WithinRunCvPercent { get; init; }
    /// <summary>
    /// What that within-run noise alone gives over a whole window: the within-run CV over the square root of the seconds.
    /// </summary>
    public required double ExpectedRunToRunCvPercent { get; init; }
    /// <summary>
    /// Coefficient of variation of the runs' RPS within each variant, after the drift is taken out, pooled over variants, in percent.
    /// </summary>
    public required double RunToRunCvPercent { get; init; }
    /// <summary>
    /// The trend of RPS along the invocation, in percent per run, from all variants together (each against its own mean).
    /// </summary>
    public required double DriftPercentPerRun { get; init; }
    /// <summary>Share of the variants' spread (in log RPS) that the drift explains, 0..1.</summary>
    public required double DriftShare { get; init; }
    /// <summary>Successful runs the figures come from.</summary>
    public required int Runs { get; init; }
}
