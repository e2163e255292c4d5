using System.Diagnostics;

namespace PerfLab.Load.Models;

/// <summary>
/// Constant arrival rate with a fixed schedule per connection, as wrk2: connection k of C sends request i at
/// start + (k + i·C) / rate. A connection whose previous request is still out sends late, and the lateness is part
/// of the measured latency, so one slow response cannot hide the requests that would have queued behind it.
/// </summary>
internal sealed class OpenRunner(OpenModel model) : ILoadModelRunner
{
    public bool UsesTimedWarmup => true;

    public ModelSummary Summarize(ScenarioRun run, RecordingSnapshot measured, double seconds, bool stoppedEarly, List<string> reasons)
    {
        var rate = model.Rate;
        return new ModelSummary(Open: new OpenSchedule(rate, (long)Math.Round(rate * seconds), measured.Sends, measured.LateSends,
            measured.MaxLagMicros / 1000.0));
    }

    public Task RunAsync(ScenarioRun run, LoadPlan plan)
    {
        var start = Stopwatch.GetTimestamp();
        var end = start + (long)((plan.Warmup + plan.Duration).TotalSeconds * Stopwatch.Frequency);
        var ticksPerRequest = Stopwatch.Frequency / model.Rate;
        var tasks = new Task[model.MaxInFlight];
        for (var k = 0; k < tasks.Length; k++)
        {
            tasks[k] = ConnectionAsync(run, new LoadWorker(k, run), start, end, ticksPerRequest, model.MaxInFlight);
        }
        return Task.WhenAll(tasks);
    }

    private static async Task ConnectionAsync(ScenarioRun run, LoadWorker worker, long start, long end, double ticksPerRequest,
        int connections)
    {
        var stop = run.Stop;
        run.UserStarted();
        // On the event loop, a due request is sent by the loop's thread when its timer fires (one clock read, no hop).
        using var pacer = Pacer.For(worker.Connection, stop);
        try
        {
            await Task.Yield();
            for (long i = 0; !stop.IsCancellationRequested; i++)
            {
                var intended = start + (long)((worker.Index + (i * connections)) * ticksPerRequest);
                if (intended >= end || !await pacer.UntilAsync(intended).ConfigureAwait(false))
                {
                    break;
                }
                if (!run.TryTakeBudget() || !await run.SendAsync(worker, intended).ConfigureAwait(false))
                {
                    break;
                }
            }
        }
        catch (OperationCanceledException)
        {
        }
        finally
        {
            run.UserStopped();
            worker.Timeout?.Dispose();
        }
    }
}
