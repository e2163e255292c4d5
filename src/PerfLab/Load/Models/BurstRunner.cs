using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Load.Models;

/// <summary>N requests at once, awaited together, M times: the harness of seed 001, timed per batch.</summary>
internal sealed class BurstRunner(BurstModel model) : ILoadModelRunner
{
    private readonly List<double> _batchMs = [];

    public bool UsesTimedWarmup => false;

    public IReadOnlyList<double> BatchMs => _batchMs;

    public int CompletedBatches => _batchMs.Count;

    public ModelSummary Summarize(ScenarioRun run, RecordingSnapshot measured, double seconds, bool stoppedEarly, List<string> reasons)
    {
        var batches = _batchMs;
        if (batches.Count < model.Batches && !stoppedEarly)
        {
            reasons.Add(string.Create(CultureInfo.InvariantCulture,
                $"{run.Plan.Name}: time limit reached after {batches.Count} of {model.Batches} batches"));
        }
        return new ModelSummary(Burst: new BurstStats(model.BatchSize, [.. batches], batches.Count > 0 ? batches.Average() : 0,
            StudentT.MarginOfError(batches, 0.999), StudentT.StdDev(batches)));
    }

    public async Task RunAsync(ScenarioRun run, LoadPlan plan)
    {
        var workers = new LoadWorker[model.BatchSize];
        for (var i = 0; i < workers.Length; i++)
        {
            workers[i] = new LoadWorker(i, run);
        }
        var tasks = new Task<bool>[model.BatchSize];
        try
        {
            for (var b = 0; b < model.WarmupBatches + model.Batches && !run.Stop.IsCancellationRequested; b++)
            {
                if (b == model.WarmupBatches)
                {
                    run.BeginMeasurement();
                }
                run.UserStarted();
                var started = Stopwatch.GetTimestamp();
                for (var i = 0; i < tasks.Length; i++)
                {
                    tasks[i] = run.SendAsync(workers[i], 0).AsTask();
                }
                await Task.WhenAll(tasks).ConfigureAwait(false);
                var elapsed = Stopwatch.GetElapsedTime(started);
                run.UserStopped();
                if (run.Stop.IsCancellationRequested)
                {
                    break;
                }
                if (b >= model.WarmupBatches)
                {
                    _batchMs.Add(elapsed.TotalMilliseconds);
                }
            }
        }
        finally
        {
            foreach (var w in workers)
            {
                w.Timeout?.Dispose();
            }
        }
    }
}
