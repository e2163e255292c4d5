using System.Diagnostics;
using System.Net;
using System.Runtime.CompilerServices;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// A scenario's HTTP/1.1 connections, one per user, and the one watchdog that aborts their requests once they are older
/// than the timeout, on the generator's event loop (<see cref="Pacer.Every"/>); the scenario's stop signal aborts them all.
/// </summary>
internal sealed class Http11Connections : IDisposable
{
    private readonly EndPoint _endPoint;
    private readonly TimeSpan _timeout;
    private readonly bool _keepBody;
    private readonly CancellationToken _stop;
    private readonly List<Http11Connection> _connections = [];
    private readonly CancellationTokenSource _watchdogStop;
    private readonly long _lookEvery; // the watchdog's period, in Stopwatch ticks
    private long _nextLook;

    public Http11Connections(Uri target, TimeSpan timeout, bool keepBody, CancellationToken stop)
    {
        _endPoint = Http11Connection.EndPointOf(target);
        _timeout = timeout;
        _keepBody = keepBody;
        _stop = stop;
        _watchdogStop = CancellationTokenSource.CreateLinkedTokenSource(stop);
        _lookEvery = (long)(WatchdogPeriod(timeout).TotalSeconds * Stopwatch.Frequency);
        _nextLook = Stopwatch.GetTimestamp() + _lookEvery;
        _ = Pacer.Every(EpollLoop.First, _nextLook, WatchOnce, _watchdogStop.Token);
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

    /// <summary>The watchdog's look, a callback of the loop's (<see cref="Pacer.Every"/>): returns when the next is due.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    private long WatchOnce()
    {
        AbortLateRequests();
        _nextLook = Math.Max(_nextLook + _lookEvery, Stopwatch.GetTimestamp());
        return _nextLook;
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
