namespace PerfLab.Load;

/// <summary>
/// The end of a scenario's measured window. With <see cref="LoadPlan.WindowHoldsACycle"/> a closed scenario's window
/// lasts at least one cycle: it ends at its duration only once it has completed as many requests as it has users (by
/// Little's law, the time each user takes to be answered once), at most the request timeout later. A starved app
/// answers in bursts about a cycle apart (seed 003's blocking variant: 100 users, 6 pool threads each held 500 ms,
/// bursts of 27 answers 7 s apart), and a shorter window could see none of them and measure nothing.
/// </summary>
internal static class WindowCycle
{
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Arms the scenario's stop for a window of <paramref name="duration"/> opened now; returns what holds it open,
    /// to be awaited before the run is disposed (it ends by <paramref name="finished"/> at the latest).
    /// </summary>
    public static Task Arm(ScenarioRun run, LoadPlan plan, TimeSpan duration, Task finished)
    {
        // Short alternation reads the responses as it cuts the window into its own, and ends the run itself.
        (plan.Probe as IResponseTap)?.Attach(() => run.Recorders.Snapshot().Responses, run.StopNow);
        if (!plan.WindowHoldsACycle || run.Plan.Model is not ClosedModel closed)
        {
            run.StopAfter(duration);
            return Task.CompletedTask;
        }
        run.StopAfter(duration + plan.Timeout);
        return HoldAsync(run, closed.Users, duration, finished);
    }

    private static async Task HoldAsync(ScenarioRun run, int users, TimeSpan duration, Task finished)
    {
        var wait = duration;
        while (await Task.WhenAny(finished, Task.Delay(wait)).ConfigureAwait(false) != finished)
        {
            // Read once at the duration when the cycle is already done (the usual case), every 100 ms after.
            if (run.Recorders.Snapshot().Responses - run.Baseline.Responses >= users)
            {
                run.StopNow();
                return;
            }
            wait = Poll;
        }
    }
}
