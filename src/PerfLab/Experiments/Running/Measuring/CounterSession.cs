using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Experiments.Running.Warmup;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>The SUT's runtime counters, read over EventPipe for exactly the duration of a measurement.</summary>
public static class CounterSession
{
    private static readonly TimeSpan _listeningWait = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Runs <paramref name="measure"/> with the counters collector attached to the SUT for exactly its duration; the
    /// session is stopped (and what it read kept) whether the measurement returns or throws.
    /// </summary>
    /// <param name="live">Given each sample as it is read (e.g. <see cref="JitActivity"/> deciding when a warm-up may end).</param>
    public static Task<(T Result, CounterRecording? Recording)> WithCountersAsync<T>(int pid, Func<Task<T>> measure,
        CancellationToken ct, IProgress<CounterSample>? live = null) =>
        WithCountersAsync((options, token) => CounterCollector.CollectAsync(pid, options, live, token), measure, ct);

    /// <summary>
    /// As for a pid, for an app wherever it runs: its counters are read where its process is
    /// (<see cref="IRunningApp.CollectCountersAsync"/>).
    /// </summary>
    public static Task<(T Result, CounterRecording? Recording)> WithCountersAsync<T>(IRunningApp app, Func<Task<T>> measure,
        CancellationToken ct, IProgress<CounterSample>? live = null) =>
        WithCountersAsync((options, token) => app.CollectCountersAsync(options, live, token), measure, ct);

    private static async Task<(T Result, CounterRecording? Recording)> WithCountersAsync<T>(
        Func<CounterOptions, CancellationToken, Task<CounterRecording>> collect, Func<Task<T>> measure, CancellationToken ct)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var listening = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var counters = CollectCountersAsync(collect, () => listening.TrySetResult(), stop.Token);
        T result;
        try
        {
            // Load starts once the counters listen: an up-down counter counts from then (CounterOptions.Listening). A
            // collector that cannot attach ends at once; one that never says so costs this wait, once.
            await Task.WhenAny(listening.Task, counters, Task.Delay(_listeningWait, ct));
            result = await measure();
        }
        finally
        {
            await stop.CancelAsync();
            await counters;
        }
        return (result, await counters);
    }

    /// <summary>
    /// The runtime's counters until cancelled; a collector that cannot attach leaves the run without counters, not failed.
    /// ASP.NET Core's Hosting and Kestrel counters are left out: the load engine counts the requests itself, and
    /// enabling them makes the SUT pay for its per-request diagnostics on every request (docs/benchmarks/counters.md).
    /// Npgsql's meter is read (the run's database figures): an endpoint that runs no command pays nothing for it, one
    /// that does pays an aggregator update or two per command, next to a round trip to PostgreSQL.
    /// </summary>
    private static async Task<CounterRecording?> CollectCountersAsync(
        Func<CounterOptions, CancellationToken, Task<CounterRecording>> collect, Action listening, CancellationToken ct)
    {
        try
        {
            var options = new CounterOptions
            {
                Interval = TimeSpan.FromSeconds(1),
                Providers = [CounterCatalog.RuntimeEventSource, CounterCatalog.NpgsqlMeter],
                Listening = listening,
            };
            return await collect(options, ct);
        }
        catch (PerfLabException)
        {
            return null;
        }
    }
}
