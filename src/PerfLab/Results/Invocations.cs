namespace PerfLab.Results;

/// <summary>One invocation of a run repeated with `--invocations`: a perflab process of its own, its results in its own folder.</summary>
/// <param name="Folder">Its output folder, relative to the combined one (invocation-1, ...).</param>
/// <param name="ExitCode">The child process's exit code (0, or e.g. 5 for a failed gate, 130 when interrupted).</param>
public sealed record InvocationRecord(int Number, string Folder, DateTimeOffset StartedAt, DateTimeOffset FinishedAt, bool Incomplete,
    int ExitCode);

/// <summary>One invocation's change estimate of a comparison, as its own analysis computed it.</summary>
public sealed record InvocationEstimate(int Invocation, double ChangePercent, double LowPercent, double HighPercent, Verdict Verdict,
    int Pairs);

/// <summary>
/// A comparison pooled over invocations: the mean of the invocations' log-ratios, with a 95 % interval from their
/// spread (Student's t, invocations - 1 degrees of freedom), never narrower than the invocations' own intervals allow.
/// </summary>
/// <param name="BetweenHalfWidthPercent">The half-width the spread between invocations gives (log scale, in percent).</param>
/// <param name="WithinHalfWidthPercent">The half-width of a mean of the invocations' own intervals (log scale, in percent).</param>
/// <param name="IntervalFrom">"between" or "within": which of the two, the wider, the interval is.</param>
public sealed record PooledInvocations(IReadOnlyList<InvocationEstimate> Estimates, double BetweenHalfWidthPercent,
    double WithinHalfWidthPercent, string IntervalFrom);
