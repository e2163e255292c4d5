using System.Diagnostics;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// How an open-model user waits for its next request's intended send time, never returning before it (latency is
/// counted from that time, so an early send would understate it). On the lab's event loop the wait is one of the
/// loop's timers (<see cref="LoopTimers"/>): the loop's thread sends the request when it comes due, and nothing is
/// allocated. Without a loop (the runtime's sockets, HttpClient) it is Task.Delay, checked against the precise clock.
/// </summary>
internal sealed class Pacer : IDisposable
{
    private readonly LoopTimer? _timer;
    private readonly CancellationToken _stop;

    private Pacer(LoopTimer? timer, CancellationToken stop)
    {
        _timer = timer;
        _stop = stop;
    }

    /// <summary>A pacer on <paramref name="connection"/>'s event loop when it has one; its waits end at <paramref name="stop"/>.</summary>
    public static Pacer For(Http11Connection? connection, CancellationToken stop) =>
        new(connection?.Loop?.Timers.NewTimer(stop), stop);

    /// <summary>
    /// The engine's own periodic work (the sampler, the watchdog): <paramref name="work"/> runs at
    /// <paramref name="firstDue"/>, then at each Stopwatch timestamp it returns, until it returns long.MaxValue or
    /// <paramref name="stop"/>. On <paramref name="loop"/> (the generator's first event loop) it is a callback the loop's
    /// thread runs, as wrk's timers are (<see cref="LoopTick"/>): the runtime's timer thread and thread pool stay idle in
    /// the measured window, and no async state machine is compiled again there. Without a loop: Task.Delay.
    /// </summary>
    public static Task Every(EpollLoop? loop, long firstDue, Func<long> work, CancellationToken stop) =>
        loop is not null ? loop.Timers.Every(firstDue, work, stop) : EveryByDelayAsync(firstDue, work, stop);

    private static async Task EveryByDelayAsync(long due, Func<long> work, CancellationToken stop)
    {
        using var pacer = new Pacer(null, stop);
        while (due != long.MaxValue && await pacer.UntilAsync(due).ConfigureAwait(false))
        {
            due = work();
        }
    }

    /// <summary>True at <paramref name="due"/> (a Stopwatch timestamp) or later; false once the run is stopping.</summary>
    public ValueTask<bool> UntilAsync(long due)
    {
        if (Stopwatch.GetTimestamp() >= due)
        {
            return new ValueTask<bool>(!_stop.IsCancellationRequested);
        }
        return _timer is not null ? _timer.UntilAsync(due) : DelayUntilAsync(due);
    }

    private async ValueTask<bool> DelayUntilAsync(long due)
    {
        // Task.Delay's timers run on the coarse tick count (4 ms steps at HZ=250) and may end up to a step early: the
        // time is checked on the precise clock, and a wait that ended early waits again.
        long left;
        while ((left = due - Stopwatch.GetTimestamp()) > 0 && !_stop.IsCancellationRequested)
        {
            var ms = (int)Math.Ceiling(left * 1000.0 / Stopwatch.Frequency); // rounded up: Task.Delay truncates
            await Task.Delay(ms, _stop).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }
        return !_stop.IsCancellationRequested;
    }

    public void Dispose() => _timer?.Dispose();
}
