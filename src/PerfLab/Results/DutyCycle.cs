using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// Where an experiment's time went: its blocks' wall time (starting, confirming, warming, measuring, tracing and stopping
/// every SUT) against the part of it inside measured windows, the only part its intervals are made of. The run's
/// opening (build, calibration, preparing the variants) belongs to no experiment and is not counted.
/// </summary>
/// <param name="WallSeconds">The experiment's blocks, end to end, on the wall clock.</param>
/// <param name="MeasuredSeconds">Its successful runs' measured windows added up: each run's cost windows (its slots), or
/// the seconds of its timeline where no cost was measured.</param>
public sealed record DutyCycle(double WallSeconds, double MeasuredSeconds)
{
    /// <summary>The share of the wall time inside measured windows (0 to 1); null without wall time.</summary>
    [JsonIgnore]
    public double? Share => WallSeconds > 0 ? Math.Min(1, MeasuredSeconds / WallSeconds) : null;

    /// <summary>The measured seconds of one run (failed runs measured nothing that counts).</summary>
    public static double MeasuredSecondsOf(RunRecord run) => run.Status != RunStatus.Ok ? 0
        : run.Cost is { Windows.Count: > 0 } cost ? cost.Windows.Sum(w => w.Seconds)
        : run.Timeline.Count;

    public static DutyCycle Of(IEnumerable<RunRecord> runs, double wallSeconds) =>
        new(Math.Round(wallSeconds, 2), Math.Round(runs.Sum(MeasuredSecondsOf), 2));
}
