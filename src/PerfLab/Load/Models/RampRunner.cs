using System.Diagnostics;

namespace PerfLab.Load.Models;

/// <summary>
/// Closed-model users added in steps (seed 004's RPS-against-users chart). A ramp has no separate warm-up: its
/// steps are reported one by one, from cumulative snapshots taken at each step boundary.
/// </summary>
internal sealed class RampRunner(RampModel model) : ILoadModelRunner
{
    private readonly List<RampStep> _steps = [];

    public bool UsesTimedWarmup => false;

    public IReadOnlyList<RampStep> Steps => _steps;

    public ModelSummary Summarize(ScenarioRun run, RecordingSnapshot measured, double seconds, bool stoppedEarly, List<string> reasons) =>
        new(Ramp: [.. _steps]);

    public async Task RunAsync(ScenarioRun run, LoadPlan plan)
    {
        run.BeginMeasurement();
        var users = new List<Task>(model.MaxUsers);
        for (var u = 0; u < model.MaxUsers; u++)
        {
            var step = u < model.StartUsers ? 0 : 1 + ((u - model.StartUsers) / Math.Max(1, model.Step));
            users.Add(ClosedRunner.UserAsync(run, new LoadWorker(u, run), model.StepEvery * step));
        }
        var all = Task.WhenAll(users);

        var previous = run.Baseline;
        var previousAt = Stopwatch.GetTimestamp();
        for (var step = 0; ; step++)
        {
            var boundary = step + 1 < model.StepCount
                ? run.MeasureStart + (long)((step + 1) * model.StepEvery.TotalSeconds * Stopwatch.Frequency)
                : long.MaxValue;
            var wait = boundary == long.MaxValue ? Timeout.InfiniteTimeSpan : Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), boundary);
            var finished = await Task.WhenAny(all, wait == Timeout.InfiniteTimeSpan
                ? Task.Delay(Timeout.Infinite)
                : Task.Delay(wait < TimeSpan.Zero ? TimeSpan.Zero : wait)).ConfigureAwait(false) == all;
            var now = Stopwatch.GetTimestamp();
            var current = run.Recorders.Snapshot();
            var d = current.Minus(previous);
            var seconds = Stopwatch.GetElapsedTime(previousAt, now).TotalSeconds;
            var startUnix = DateTimeOffset.UtcNow.AddSeconds(-seconds).ToUnixTimeSeconds();
            _steps.Add(new RampStep(model.UsersAtStep(step), startUnix, seconds, d.Requests, seconds > 0 ? d.Requests / seconds : 0,
                d.Latency.Mean / 1000.0, d.Latency.Percentile(99) / 1000.0, d.Errors));
            previous = current;
            previousAt = now;
            if (finished)
            {
                break;
            }
        }
    }
}
