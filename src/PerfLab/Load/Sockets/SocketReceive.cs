using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;

namespace PerfLab.Load.Sockets;

/// <summary>
/// One receive of a connection, awaited by its exchange: done already (its count), waiting on a
/// <see cref="ReceiveCompletion"/> (the lab's event loop, the microbenchmarks' in-memory socket), or any other
/// socket's <see cref="ValueTask{TResult}"/>. The completion's awaiter hands the exchange's own continuation to the
/// completing thread as it is: no <see cref="ValueTask{TResult}"/> between them, so none of its type tests, interface
/// calls and token checks at each of the awaiter's three steps (measured in docs/benchmarks/load-engine-loop.md).
/// </summary>
internal readonly struct SocketReceive
{
    private readonly ReceiveCompletion? _pending;
    private readonly ValueTask<int> _task;

    /// <summary>A receive that already took <paramref name="count"/> bytes (0: the server closed).</summary>
    public SocketReceive(int count) => _task = new ValueTask<int>(count);

    public SocketReceive(ValueTask<int> task) => _task = task;

    public SocketReceive(ReceiveCompletion pending) => _pending = pending;

    public Awaiter GetAwaiter() => new(_pending, _task);

    /// <summary>The receive's awaiter; it never resumes on a captured context (the generator has none).</summary>
    public readonly struct Awaiter(ReceiveCompletion? pending, ValueTask<int> task) : ICriticalNotifyCompletion
    {
        public bool IsCompleted => pending?.IsCompleted ?? task.IsCompleted;

        public int GetResult() => pending is not null ? pending.GetResult() : task.GetAwaiter().GetResult();

        public void OnCompleted(Action continuation) => UnsafeOnCompleted(continuation);

        public void UnsafeOnCompleted(Action continuation)
        {
            if (pending is not null)
            {
                pending.OnCompleted(continuation);
            }
            else
            {
                task.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(continuation);
            }
        }
    }
}

/// <summary>
/// A connection's one waiting receive at a time: the socket <see cref="Reset"/>s it before it waits, completes it with a
/// count or an error from whichever thread got the bytes (the event loop), and the exchange's continuation, handed over
/// as an <see cref="Action"/>, runs right there on that thread. The hand-over and the completion meet in one
/// compare-and-swap, so either may come first.
/// </summary>
internal sealed class ReceiveCompletion
{
    private static readonly Action s_done = () => { };
    private Action? _continuation;
    private int _count;
    private Exception? _error;

    public bool IsCompleted => ReferenceEquals(Volatile.Read(ref _continuation), s_done);

    /// <summary>Before a receive waits: no count, no error, no continuation.</summary>
    public void Reset()
    {
        _error = null;
        _continuation = null;
    }

    public void SetResult(int count)
    {
        _count = count;
        Complete();
    }

    public void SetException(Exception error)
    {
        _error = error;
        Complete();
    }

    private void Complete()
    {
        // Null: the exchange has not handed its continuation over yet, and finds the receive done when it does.
        Interlocked.Exchange(ref _continuation, s_done)?.Invoke();
    }

    /// <summary>
    /// Runs <paramref name="continuation"/> when the receive completes; if it already has, on the thread pool (as
    /// <see cref="System.Threading.Tasks.Sources.ManualResetValueTaskSourceCore{TResult}"/> does), never inside the caller.
    /// </summary>
    public void OnCompleted(Action continuation)
    {
        if (Interlocked.CompareExchange(ref _continuation, continuation, null) is not null)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static c => c(), continuation, preferLocal: true);
        }
    }

    public int GetResult()
    {
        if (_error is { } error)
        {
            ExceptionDispatchInfo.Throw(error);
        }
        return _count;
    }
}
