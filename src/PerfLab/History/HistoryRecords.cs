namespace PerfLab.History;

/// <summary>
/// One `perflab run` as the history keeps it: where and when it was measured. <see cref="Key"/> names the run itself
/// (its times, commit and machine), so adding the same results folder twice, or a copy of it, adds nothing.
/// </summary>
public sealed record HistoryRun(string Key, DateTimeOffset StartedAt, string Commit, string Machine, string Runtime, string Profile,
    string? NoiseLine, string Source);

/// <summary>
/// One variant's figure in one run: the median over its repetitions with the 95 % interval, for one metric (a catalog
/// key: "cpu-per-request", "rps", ...) of one scenario ("all" for the scenarios together).
/// </summary>
/// <param name="NoiseFloorPercent">The smallest change the run said it could tell apart on this figure (its noise
/// line's decidable percent); null when the run stated none for it.</param>
/// <param name="Verdict">The run's own verdict on this variant against its baseline on this figure, when it made one.</param>
public sealed record HistoryPoint(string Experiment, string Variant, string Scenario, string Metric, double Median, double? Low,
    double? High, int Samples, double? NoiseFloorPercent, string? Verdict);

/// <summary>A point with the run it came from, as a query returns it.</summary>
public sealed record StoredPoint(HistoryRun Run, HistoryPoint Point);
