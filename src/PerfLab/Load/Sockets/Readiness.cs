using System.Threading.Tasks.Sources;

namespace PerfLab.Load.Sockets;

/// <summary>
/// One direction (readable or writable) of a <see cref="LoopSocket"/>: the event loop <see cref="Signal"/>s each
/// edge-triggered event, and the connection awaits the next one. An event counter tells the waiter whether an event
/// came since it last found the socket empty, so a receive right after a send waits for the response's event
/// instead of trying a read the kernel would answer with EAGAIN. The waiter's continuation runs on the signalling
/// thread (the event loop), as wrk's callbacks do: no hop to the thread pool.
/// </summary>
internal sealed class Readiness : IValueTaskSource
{
    private ManualResetValueTaskSourceCore<bool> _core; // RunContinuationsAsynchronously stays false: inline
    private readonly Action _completeCore;
    private Action? _waiter;
    private int _events;
    private int _waiting;

    public Readiness() => _completeCore = () => _core.SetResult(true);

    /// <summary>How many events came so far: read before trying the socket, handed to <see cref="WaitAsync"/> if it was empty.</summary>
    public int Events => Volatile.Read(ref _events);

    /// <summary>Completes once an event came after the count <paramref name="seen"/> (at once if one already has).</summary>
    public ValueTask WaitAsync(int seen)
    {
        _core.Reset();
        return TryWait(seen, _completeCore) ? new ValueTask(this, _core.Version) : default;
    }

    /// <summary>
    /// Calls <paramref name="onEvent"/> on the signalling thread at the first event after the count <paramref name="seen"/>;
    /// false, without calling it, when one already came. The receive's way: its own continuation, with no task between.
    /// </summary>
    public bool TryWait(int seen, Action onEvent)
    {
        if (Volatile.Read(ref _events) != seen)
        {
            return false;
        }
        _waiter = onEvent;
        // A full fence: the re-check below cannot be read before the waiting flag is visible to the loop.
        Interlocked.Exchange(ref _waiting, 1);
        // An event came in between, and the loop had not taken the waiter yet.
        return Volatile.Read(ref _events) == seen || Interlocked.Exchange(ref _waiting, 0) == 0;
    }

    /// <summary>An event: counted, and the waiter (if any) resumes on this thread.</summary>
    public void Signal()
    {
        Interlocked.Increment(ref _events);
        if (Volatile.Read(ref _waiting) == 1 && Interlocked.Exchange(ref _waiting, 0) == 1)
        {
            _waiter!();
        }
    }

    void IValueTaskSource.GetResult(short token) => _core.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
