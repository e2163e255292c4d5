using System.Runtime.CompilerServices;

namespace PerfLab.Load.Sockets;

/// <summary>What an event loop's timer queue holds (<see cref="LoopTimers"/>): something the loop's thread runs when due.</summary>
internal interface ILoopDue
{
    /// <summary>Runs on the loop's thread at or after the time it was queued for; <paramref name="generation"/> as queued.</summary>
    void Fire(int generation);
}

/// <summary>
/// Work that the loop's thread runs itself at the times the work names (the engine's once-a-second sampling and
/// watchdog): a plain callback, no await. An async method's compiler-made state machine cannot carry
/// AggressiveOptimization, so reached once a second it was call-counted and compiled again at tier 1 inside the
/// measured window; a callback can carry it (docs/benchmarks/load-engine.md, "Load engine: what still compiles").
/// The work returns the Stopwatch timestamp it is next due at, or long.MaxValue when it is done. The task ends when it
/// is done, when the stop comes (never while the work is running: the last run finishes first), or with the work's
/// exception.
/// </summary>
internal sealed class LoopTick : ILoopDue
{
    private const int Waiting = 0, Running = 1, Ended = 2;

    private readonly LoopTimers _timers;
    private readonly Func<long> _work;
    private readonly CancellationToken _stop;
    private readonly TaskCompletionSource _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _state;

    private LoopTick(LoopTimers timers, Func<long> work, CancellationToken stop)
    {
        _timers = timers;
        _work = work;
        _stop = stop;
    }

    /// <summary>Runs <paramref name="work"/> on the loop at <paramref name="firstDue"/>, then at each time it returns.</summary>
    public static Task Start(LoopTimers timers, long firstDue, Func<long> work, CancellationToken stop)
    {
        if (stop.IsCancellationRequested || firstDue == long.MaxValue)
        {
            return Task.CompletedTask;
        }
        var tick = new LoopTick(timers, work, stop);
        stop.UnsafeRegister(static s => ((LoopTick)s!).EndIf(Waiting), tick);
        timers.Add(tick, 0, firstDue);
        return tick._ended.Task;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use
    void ILoopDue.Fire(int generation)
    {
        if (Interlocked.CompareExchange(ref _state, Running, Waiting) != Waiting)
        {
            return; // ended by the stop: its last entry outlived it
        }
        long next;
        try
        {
            next = _work();
        }
        catch (Exception ex)
        {
            Volatile.Write(ref _state, Ended);
            _ended.TrySetException(ex);
            return;
        }
        // Waiting before the stop is looked at: a stop from now on ends it itself, one before is seen here.
        Volatile.Write(ref _state, Waiting);
        if (next == long.MaxValue || _stop.IsCancellationRequested)
        {
            EndIf(Waiting);
            return;
        }
        _timers.Add(this, 0, next);
    }

    private void EndIf(int state)
    {
        if (Interlocked.CompareExchange(ref _state, Ended, state) == state)
        {
            _ended.TrySetResult();
        }
    }
}
