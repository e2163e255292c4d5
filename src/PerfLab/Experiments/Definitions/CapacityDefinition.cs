using System.Globalization;

namespace PerfLab.Experiments.Definitions;

/// <summary>The search's range and precision.</summary>
/// <param name="From">The first rate tried.</param>
/// <param name="Max">The highest rate tried.</param>
/// <param name="Precision">Stop bisecting once the bracket is this narrow, relative to the rate that held (0.05: 5 %).</param>
public sealed record CapacityRange(double From, double Max, double Precision = 0.05)
{
    /// <summary>Each rising step doubles the rate: the bisection then narrows the bracket in a few steps whatever its width.</summary>
    public const double Growth = 2;

    /// <summary>A bound on bisection steps, so a target whose answer wanders cannot keep the search going.</summary>
    public const int MaxBisections = 10;

    /// <summary>
    /// A bound on the steps that confirm the boundary (its two rates tried again, back to back, until they agree): one
    /// round when they agree at once, a second when a try disagreed and the boundary widened.
    /// </summary>
    public const int MaxConfirmations = 4;

    /// <summary>The rising steps when every rate up to <see cref="Max"/> holds.</summary>
    public int MostRisingSteps => 1 + (int)Math.Ceiling(Math.Log(Max / From, Growth));

    /// <summary>The bisections a bracket of one doubling needs to narrow to <see cref="Precision"/>.</summary>
    public int Bisections => Math.Min(MaxBisections, (int)Math.Ceiling(Math.Log(1 / Precision, 2)));
}

/// <summary>
/// An experiment's <c>capacity:</c> block: each variant's figure is its capacity, the highest arrival rate (open model,
/// latency from the intended send time) its app sustains within <see cref="Slo"/>, found by the capacity search in
/// every run; the variants' capacities are compared in the usual interleaved blocks. The profile's warm-up and
/// duration are each step's.
/// </summary>
public sealed record CapacityDefinition(CapacitySlo Slo, CapacityRange Range)
{
    /// <summary>
    /// Steps of a typical search, for the plan's estimate before anything ran: half the rising steps the range allows
    /// (a capacity somewhere inside it), then the bisections to the precision and one round confirming the boundary.
    /// </summary>
    public int ExpectedSteps => (Range.MostRisingSteps + 1) / 2 + Range.Bisections + 2;

    /// <summary>"within p99&lt;100ms, errors&lt;1%: steps from 50 RPS doubling up to 2000, then bisection to 5 %".</summary>
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"capacity within {Slo.Describe()}: open-model steps from {Range.From:0.##} RPS doubling up to {Range.Max:0.##}, " +
        $"then bisection to {Range.Precision * 100:0.#} %, the boundary confirmed");
}
