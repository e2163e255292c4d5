using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net.Sockets;

namespace PerfLab.Network;

// One proxied connection: two delay lines, client -> server and server -> client. In each line a reader thread stamps
// every chunk as it arrives and a writer thread sleeps precisely until the chunk is due and writes it. Dedicated
// threads keep the release time within tens of microseconds of due on a quiet machine (pool timers wake on whole
// milliseconds); four threads per connection suit what the proxy serves, a handful of connections (one HTTP/2 upload,
// a database pool), not thousands.
internal sealed class DelayedConnection
{
    private readonly Socket _client;
    private readonly Socket _server;
    private readonly CancellationTokenSource _abort = new();
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _linesLeft = 2;
    private int _closed;

    public DelayedConnection(Socket client, Socket server, TimeSpan oneWayDelay, Action<int> onForwarded)
    {
        _client = client;
        _server = server;
        var delayTicks = (long)(oneWayDelay.TotalSeconds * Stopwatch.Frequency);
        new DelayLine(this, client, server, delayTicks, onForwarded, "to-server").Start();
        new DelayLine(this, server, client, delayTicks, onForwarded, "to-client").Start();
    }

    public Task Completion => _completion.Task;

    /// <summary>Drops the connection at once, both ways, with whatever is still held.</summary>
    public void Abort()
    {
        try
        {
            _abort.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // already closed
        }
        Close(reset: true);
    }

    private void LineFinished(bool failed)
    {
        if (failed)
        {
            Abort();
        }
        if (Interlocked.Decrement(ref _linesLeft) == 0)
        {
            Close(reset: false);
            _abort.Dispose();
            _completion.TrySetResult();
        }
    }

    // Both directions ended cleanly: a plain close lets the kernel deliver what it still holds. On an abort, linger 0
    // makes the close send a reset, so the peers see the drop now instead of after the kernel drains.
    private void Close(bool reset)
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return;
        }
        foreach (var socket in new[] { _client, _server })
        {
            if (reset)
            {
                try
                {
                    socket.LingerState = new LingerOption(true, 0);
                }
                catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
                {
                    // the socket is already gone
                }
            }
            socket.Dispose();
        }
    }

    private sealed class DelayLine(
        DelayedConnection owner, Socket from, Socket to, long delayTicks, Action<int> onForwarded, string name)
    {
        private const int ReadSize = 64 * 1024;
        // Backpressure once this much is held: a receiver that stops reading must not make the proxy buffer forever.
        private const long MaxHeldBytes = 32L * 1024 * 1024;

        // A blocking queue: the writer thread waits on it directly, with no thread-pool hop per chunk.
        private readonly BlockingCollection<Chunk> _chunks = [];
        private readonly SemaphoreSlim _drained = new(0);
        private long _held;
        private int _finishedHalves;
        private bool _failed;

        public void Start()
        {
            new Thread(ReadLoop) { IsBackground = true, Name = $"latency-proxy read {name}" }.Start();
            new Thread(WriteLoop) { IsBackground = true, Name = $"latency-proxy write {name}" }.Start();
        }

        // A blocking read on its own thread stamps a chunk as soon as the kernel wakes the thread; an async read
        // would wait for the socket engine and then the thread pool, late by milliseconds on a loaded machine.
        private void ReadLoop()
        {
            var ct = owner._abort.Token;
            var buffer = ArrayPool<byte>.Shared.Rent(ReadSize);
            try
            {
                while (true)
                {
                    while (Interlocked.Read(ref _held) > MaxHeldBytes)
                    {
                        _drained.Wait(TimeSpan.FromMilliseconds(50), ct);
                    }
                    var n = from.Receive(buffer, 0, ReadSize, SocketFlags.None);
                    var due = Stopwatch.GetTimestamp() + delayTicks;
                    if (n == 0)
                    {
                        _chunks.Add(new Chunk(null, 0, due)); // end of stream, delayed like the data
                        break;
                    }
                    // Copied to a right-sized rental so that many small chunks do not each hold 64 KB.
                    var data = ArrayPool<byte>.Shared.Rent(n);
                    buffer.AsSpan(0, n).CopyTo(data);
                    Interlocked.Add(ref _held, n);
                    _chunks.Add(new Chunk(data, n, due));
                }
            }
            catch (Exception ex) when (ex is SocketException or ObjectDisposedException or OperationCanceledException)
            {
                _failed = true;
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
                _chunks.CompleteAdding();
                Finish();
            }
        }

        private void WriteLoop()
        {
            var ct = owner._abort.Token;
            try
            {
                foreach (var chunk in _chunks.GetConsumingEnumerable(ct))
                {
                    PreciseSleep.Until(chunk.Due, ct);
                    if (chunk.Data is null)
                    {
                        to.Shutdown(SocketShutdown.Send);
                        continue;
                    }
                    try
                    {
                        var sent = 0;
                        while (sent < chunk.Length)
                        {
                            sent += to.Send(chunk.Data, sent, chunk.Length - sent, SocketFlags.None);
                        }
                    }
                    finally
                    {
                        ArrayPool<byte>.Shared.Return(chunk.Data);
                        Interlocked.Add(ref _held, -chunk.Length);
                        if (_drained.CurrentCount == 0)
                        {
                            _drained.Release();
                        }
                    }
                    onForwarded(chunk.Length);
                }
            }
            catch (Exception ex) when (ex is SocketException or ObjectDisposedException or OperationCanceledException)
            {
                _failed = true;
            }
            finally
            {
                // Whatever is still queued after a failure goes back to the pool.
                while (_chunks.TryTake(out var left))
                {
                    if (left.Data is not null)
                    {
                        ArrayPool<byte>.Shared.Return(left.Data);
                    }
                }
                Finish();
            }
        }

        // The line is done when both its reader and its writer are; a failure on either side drops the connection.
        private void Finish()
        {
            if (Interlocked.Increment(ref _finishedHalves) == 2)
            {
                owner.LineFinished(_failed);
            }
            else if (_failed)
            {
                owner.Abort();
            }
        }
    }

    private readonly record struct Chunk(byte[]? Data, int Length, long Due);
}
