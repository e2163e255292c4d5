using System.Diagnostics;
using System.Net;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>
/// A scenario's HTTP/1.1 connections, one per user, and the one watchdog that aborts their requests once they are older
/// than the timeout, on the generator's event loop (<see cref="Pacer.OnLoop"/>); the scenario's stop signal aborts them all.
/// </summary>
internal sealed class Http11Connections : IDisposable
{
    private readonly EndPoint _endPoint;
    private readonly TimeSpan _timeout;
    private readonly bool _keepBody;
    private readonly CancellationToken _stop;
    private readonly List<Http11Connection> _connections = [];
    private readonly CancellationTokenSource _watchdogStop;

    public Http11Connections(Uri target, TimeSpan timeout, bool keepBody, CancellationToken stop)
    {
        _endPoint = Http11Connection.EndPointOf(target);
        _timeout = timeout;
        _keepBody = keepBody;
        _stop = stop;
        _watchdogStop = CancellationTokenSource.CreateLinkedTokenSource(stop);
        _ = WatchAsync(WatchdogPeriod(timeout), _watchdogStop.Token);
        stop.Register(AbortAllRequests);
    }

    /// <summary>
    /// How often the watchdog looks for late requests: a tenth of the timeout (a request is aborted at most 10 % past
    /// it), between 10 ms and 1 s. Each look wakes the timer thread and a pool thread; at 4 a second (the earlier 250 ms
    /// cap) that was a share of the CPU per request on a pinned generator at a few thousand requests a second; on the
    /// event loop a look is one more timer of the loop's.
    /// </summary>
    internal static TimeSpan WatchdogPeriod(TimeSpan timeout) =>
        TimeSpan.FromMilliseconds(Math.Clamp(timeout.TotalMilliseconds / 10, 10, 1000));

    /// <summary>How requests travel: "HTTP/1.1 sockets, inline completions" or "HTTP/1.1 sockets".</summary>
    public static string Name => Http11Connection.InlineCompletions ? "HTTP/1.1 sockets, inline completions" : "HTTP/1.1 sockets";

    /// <summary>A new user's connection, watched from now on.</summary>
    public Http11Connection Open()
    {
        var connection = new Http11Connection(_endPoint, _stop) { KeepBody = _keepBody };
        lock (_connections)
        {
            _connections.Add(connection);
        }
        return connection;
    }

    private async Task WatchAsync(TimeSpan period, CancellationToken stop)
    {
        using var pacer = Pacer.OnLoop(stop);
        var step = (long)(period.TotalSeconds * Stopwatch.Frequency);
        var next = Stopwatch.GetTimestamp() + step;
        while (await pacer.UntilAsync(next).ConfigureAwait(false))
        {
            AbortLateRequests();
            next = Math.Max(next + step, Stopwatch.GetTimestamp());
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    private void AbortLateRequests()
    {
        var deadline = Stopwatch.GetTimestamp() - (long)(_timeout.TotalSeconds * Stopwatch.Frequency);
        lock (_connections)
        {
            foreach (var connection in _connections)
            {
                connection.AbortIfOlderThan(deadline);
            }
        }
    }

    private void AbortAllRequests()
    {
        lock (_connections)
        {
            foreach (var connection in _connections)
            {
                connection.Abort();
            }
        }
    }

    public void Dispose()
    {
        _watchdogStop.Cancel();
        _watchdogStop.Dispose();
        lock (_connections)
        {
            foreach (var connection in _connections)
            {
                connection.Dispose();
            }
        }
    }
}
