using System.Diagnostics;
using System.Threading.Tasks.Sources;

namespace PerfLab.Load.Sockets;

/// <summary>
/// An event loop's timers, as wrk2's: the open model's paced sends wait here, and the loop's epoll wait ends at the
/// earliest of them, so a request due at a time is sent by the loop's thread itself, right then, with no timer
/// object, no thread-pool hop and nothing allocated per request (Task.Delay cost all three on every paced request).
/// Waits are nearly always armed on the loop's own thread (the previous response's continuation); one armed
/// elsewhere that comes due before the loop's current wait ends wakes the loop through its eventfd.
/// </summary>
internal sealed class LoopTimers(Action wake)
{
    private readonly Lock _gate = new();
    private readonly PriorityQueue<(ILoopDue Item, int Generation), long> _due = new();
    private long _earliest = long.MaxValue; // the queue's first due, written under the lock, read without it
    private int _loopThread = -1;

    /// <summary>Called once by the loop's thread: arming from it needs no wake-up.</summary>
    public void RunOn(int managedThreadId) => _loopThread = managedThreadId;

    /// <summary>A user's timer for its paced sends; it completes on <paramref name="stop"/> too (with false).</summary>
    public LoopTimer NewTimer(CancellationToken stop) => new(this, stop);

    /// <summary>
    /// Work the loop's thread runs at the times it names, until it is done or <paramref name="stop"/> (<see cref="LoopTick"/>).
    /// </summary>
    public Task Every(long firstDue, Func<long> work, CancellationToken stop) => LoopTick.Start(this, firstDue, work, stop);

    /// <summary>The Stopwatch timestamp of the earliest armed timer; long.MaxValue when none is.</summary>
    /// <remarks>No lock: one armed meanwhile by another thread, earlier than this, wakes the loop (Add).</remarks>
    public long NextDue() => Volatile.Read(ref _earliest);

    internal void Add(ILoopDue item, int generation, long due)
    {
        bool mustWake;
        lock (_gate)
        {
            var earliest = _earliest;
            _due.Enqueue((item, generation), due);
            mustWake = due < earliest && Environment.CurrentManagedThreadId != _loopThread;
            if (due < earliest)
            {
                Volatile.Write(ref _earliest, due);
            }
        }
        if (mustWake)
        {
            wake();
        }
    }

    /// <summary>Completes every timer due by now, on the loop's thread: each continuation sends its request here.</summary>
    public void FireDue()
    {
        if (Volatile.Read(ref _earliest) == long.MaxValue)
        {
            return;
        }
        var now = Stopwatch.GetTimestamp();
        while (Volatile.Read(ref _earliest) <= now)
        {
            (ILoopDue Item, int Generation) entry;
            lock (_gate)
            {
                if (!_due.TryPeek(out entry, out var due) || due > now)
                {
                    return;
                }
                _due.Dequeue();
                Volatile.Write(ref _earliest, _due.TryPeek(out _, out var next) ? next : long.MaxValue);
            }
            // Outside the lock: the continuation arms this user's next wait, a tick queues its next run.
            entry.Item.Fire(entry.Generation);
        }
    }
}

/// <summary>
/// One user's paced wait on its loop (<see cref="LoopTimers"/>): awaited without allocating, completed by the loop when
/// due (true) or by the run's stop (false), never before its time. A wait the stop ended leaves its entry in the loop's
/// queue until its time (at most the run's end); the entry's generation then no longer matches and it is ignored.
/// </summary>
internal sealed class LoopTimer : IValueTaskSource<bool>, ILoopDue, IDisposable
{
    private readonly LoopTimers _timers;
    private readonly CancellationToken _stop;
    private readonly CancellationTokenRegistration _stopped;
    private ManualResetValueTaskSourceCore<bool> _core; // RunContinuationsAsynchronously stays false: inline
    private int _state; // the wait's generation, shifted left once, plus 1 while the wait is armed

    internal LoopTimer(LoopTimers timers, CancellationToken stop)
    {
        _timers = timers;
        _stop = stop;
        _stopped = stop.Register(static s => ((LoopTimer)s!).Complete(false, -1), this);
    }

    /// <summary>Completes at <paramref name="due"/> (a Stopwatch timestamp) with true, or at the run's stop with false.</summary>
    public ValueTask<bool> UntilAsync(long due)
    {
        if (_stop.IsCancellationRequested)
        {
            return new ValueTask<bool>(false);
        }
        _core.Reset();
        var generation = ((Volatile.Read(ref _state) >> 1) + 1) & 0x3FFF_FFFF;
        // A full fence: a stop that comes after this store finds the wait armed, one before it is seen below.
        Interlocked.Exchange(ref _state, (generation << 1) | 1);
        var version = _core.Version;
        _timers.Add(this, generation, due);
        if (_stop.IsCancellationRequested)
        {
            Complete(false, -1);
        }
        return new ValueTask<bool>(this, version);
    }

    /// <summary>Completes the armed wait once; <paramref name="generation"/>: only that wait's (-1: whichever is armed).</summary>
    internal void Complete(bool result, int generation)
    {
        while (true)
        {
            var state = Volatile.Read(ref _state);
            if ((state & 1) == 0 || (generation >= 0 && state >> 1 != generation))
            {
                return;
            }
            if (Interlocked.CompareExchange(ref _state, state & ~1, state) == state)
            {
                _core.SetResult(result);
                return;
            }
        }
    }

    void ILoopDue.Fire(int generation) => Complete(true, generation);

    bool IValueTaskSource<bool>.GetResult(short token) => _core.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(Action<object?> continuation, object? state, short token,
        ValueTaskSourceOnCompletedFlags flags) => _core.OnCompleted(continuation, state, token, flags);

    public void Dispose() => _stopped.Dispose();
}
