namespace PerfLab.Load.Models;

internal sealed class ClosedRunner(ClosedModel model) : ILoadModelRunner
{
    public bool UsesTimedWarmup => true;

    public Task RunAsync(ScenarioRun run, LoadPlan plan)
    {
        var users = model.Users;
        var tasks = new Task[users];
        for (var u = 0; u < users; u++)
        {
            tasks[u] = UserAsync(run, new LoadWorker(u, run), TimeSpan.Zero);
        }
        return Task.WhenAll(tasks);
    }

    /// <summary>One virtual user: send, await the answer, send again; shared with the ramp model.</summary>
    internal static async Task UserAsync(ScenarioRun run, LoadWorker worker, TimeSpan startAfter)
    {
        var stop = run.Stop;
        try
        {
            if (startAfter > TimeSpan.Zero)
            {
                await Task.Delay(startAfter, stop).ConfigureAwait(false);
            }
            run.UserStarted();
            try
            {
                // Yield once so that N users start on the pool, not serially inside the caller's loop.
                await Task.Yield();
                if (worker.Connection is { } connection)
                {
                    // Connected before its first request's clock starts, as wrk does: connecting is not latency.
                    await connection.PreconnectAsync().ConfigureAwait(false);
                }
                await run.SendInTurnAsync(worker).ConfigureAwait(false);
            }
            finally
            {
                run.UserStopped();
            }
        }
        catch (OperationCanceledException)
        {
        }
        finally
        {
            worker.Timeout?.Dispose();
        }
    }
}
