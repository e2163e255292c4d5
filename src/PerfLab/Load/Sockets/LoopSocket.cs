using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace PerfLab.Load.Sockets;

/// <summary>
/// A non-blocking socket driven by an <see cref="EpollLoop"/>: sends and receives are plain send/recv calls made by
/// the connection itself, and it awaits the loop only when the kernel has nothing for it. A read that returns less
/// than its buffer has emptied the socket, so the next read waits for the next event instead of trying first: per
/// request one send, one recv, and a share of one epoll_wait. The descriptor belongs to a <see cref="Socket"/>
/// (used only to create, connect, shut down and close it), so an abort from another thread can never reach a
/// descriptor number reused since.
/// </summary>
internal sealed class LoopSocket : IConnectionSocket
{
    private const int SolSocket = 1;
    private const int SoError = 4;

    private readonly EpollLoop _loop;
    private readonly Readiness _readable = new();
    private readonly Readiness _writable = new();
    private readonly Action _onReadable;
    private readonly ReceiveCompletion _received = new();
    private Memory<byte> _receiveBuffer;
    private Socket? _socket;
    private int _fd = -1;
    private int _slot = -1;
    private volatile bool _aborted;
    private volatile bool _connecting;
    private int _emptyAt;   // the readable event count when a read last found the socket empty
    private bool _lastReadFull;  // the last read filled its buffer: more may be waiting without a new event

    public LoopSocket(EpollLoop loop)
    {
        _loop = loop;
        _onReadable = OnReadable;
    }

    public async ValueTask ConnectAsync(EndPoint endPoint, CancellationToken ct)
    {
        IPEndPoint[] addresses = endPoint is IPEndPoint ip ? [ip]
            : (await Dns.GetHostAddressesAsync(((DnsEndPoint)endPoint).Host, ct).ConfigureAwait(false))
                .Select(a => new IPEndPoint(a, ((DnsEndPoint)endPoint).Port)).ToArray();
        using var cancel = ct.Register(static s => ((LoopSocket)s!).Abort(), this);
        SocketException? last = null;
        foreach (var address in addresses)
        {
            try
            {
                await ConnectToAsync(address, ct).ConfigureAwait(false);
                return;
            }
            catch (SocketException ex) when (!_aborted)
            {
                last = ex;
                Close();
            }
        }
        throw last ?? new SocketException((int)SocketError.HostNotFound);
    }

    private async ValueTask ConnectToAsync(IPEndPoint address, CancellationToken ct)
    {
        var socket = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, Blocking = false };
        Volatile.Write(ref _socket, socket);
        _fd = (int)socket.SafeHandle.DangerousGetHandle();
        try
        {
            socket.Connect(address);
        }
        catch (SocketException ex) when (ex.SocketErrorCode is SocketError.WouldBlock or SocketError.InProgress)
        {
            // In progress: registered now (a socket not yet connecting would report an event at once), the loop
            // reports the connect's outcome as the first writable event.
            var seen = _writable.Events;
            _slot = _loop.Register(this, _fd);
            _connecting = true;
            Interlocked.MemoryBarrier(); // against Abort's flag, written on another thread (a store then a load each)
            try
            {
                ThrowIfAborted(ct);
                await _writable.WaitAsync(seen).ConfigureAwait(false);
            }
            finally
            {
                _connecting = false;
            }
            ThrowIfAborted(ct);
            var errno = PendingError(socket);
            if (errno != 0)
            {
                throw LibC.Error(errno);
            }
            return;
        }
        _slot = _loop.Register(this, _fd);
    }

    /// <summary>SO_ERROR: how a non-blocking connect ended (0: connected).</summary>
    private static int PendingError(Socket socket)
    {
        Span<byte> value = stackalloc byte[sizeof(int)];
        socket.GetRawSocketOption(SolSocket, SoError, value);
        return MemoryMarshal.Read<int>(value);
    }

    public ValueTask SendAsync(ReadOnlyMemory<byte> bytes)
    {
        var seen = _writable.Events;
        var sent = Send(bytes.Span);
        return sent == bytes.Length ? default : SendRestAsync(bytes[sent..], seen);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask SendRestAsync(ReadOnlyMemory<byte> rest, int seen)
    {
        while (!rest.IsEmpty)
        {
            await _writable.WaitAsync(seen).ConfigureAwait(false);
            seen = _writable.Events;
            rest = rest[Send(rest.Span)..];
        }
    }

    /// <summary>Bytes sent, 0 when the socket's send buffer is full.</summary>
    private int Send(ReadOnlySpan<byte> bytes)
    {
        while (true)
        {
            ThrowIfAborted(default);
            var n = LibC.send(_fd, ref MemoryMarshal.GetReference(bytes), bytes.Length, LibC.MsgNoSignal);
            if (n >= 0)
            {
                return (int)n;
            }
            var errno = Marshal.GetLastSystemError();
            if (errno == LibC.EAgain)
            {
                return 0;
            }
            if (errno != LibC.EIntr)
            {
                throw LibC.Error(errno);
            }
        }
    }

    public SocketReceive ReceiveAsync(Memory<byte> buffer)
    {
        var seen = _readable.Events;
        if (seen != _emptyAt || _lastReadFull)
        {
            var n = Receive(buffer.Span, seen);
            if (n >= 0)
            {
                return new SocketReceive(n);
            }
        }
        _receiveBuffer = buffer;
        _received.Reset();
        ReceiveWhenReadable(seen);
        return new SocketReceive(_received);
    }

    /// <summary>
    /// Receives into the waiting buffer as soon as the socket has bytes: now if an event came since
    /// <paramref name="seen"/>, else from the loop's thread when the next one does (<see cref="_onReadable"/>). The
    /// caller awaits <see cref="_received"/> directly, without a state machine of this socket's in between.
    /// </summary>
    private void ReceiveWhenReadable(int seen)
    {
        while (!_readable.TryWait(seen, _onReadable))
        {
            seen = _readable.Events;
            if (TryCompleteReceive(seen))
            {
                return;
            }
        }
    }

    private void OnReadable()
    {
        var seen = _readable.Events;
        if (!TryCompleteReceive(seen))
        {
            ReceiveWhenReadable(seen); // a stale event: the bytes it announced were read already
        }
    }

    /// <summary>Completes the waiting receive with its bytes (or its error); false when the socket had none.</summary>
    private bool TryCompleteReceive(int seen)
    {
        int n;
        try
        {
            n = Receive(_receiveBuffer.Span, seen);
        }
        catch (Exception ex)
        {
            _received.SetException(ex);
            return true;
        }
        if (n < 0)
        {
            return false;
        }
        _received.SetResult(n);
        return true;
    }

    /// <summary>Bytes received (0: the server closed), or -1 when there were none; <paramref name="seen"/>: events before.</summary>
    private int Receive(Span<byte> buffer, int seen)
    {
        while (true)
        {
            ThrowIfAborted(default);
            var n = LibC.recv(_fd, ref MemoryMarshal.GetReference(buffer), buffer.Length, 0);
            if (n >= 0)
            {
                _lastReadFull = n > 0 && n == buffer.Length;
                if (!_lastReadFull)
                {
                    _emptyAt = seen; // a short read took all there was: only a later event brings more
                }
                return (int)n;
            }
            var errno = Marshal.GetLastSystemError();
            if (errno == LibC.EAgain)
            {
                _lastReadFull = false;
                _emptyAt = seen;
                return -1;
            }
            if (errno != LibC.EIntr)
            {
                throw LibC.Error(errno);
            }
        }
    }

    /// <summary>Called on the loop's thread for each event of this socket.</summary>
    public void OnEvents(uint events)
    {
        if ((events & (LibC.EpollIn | LibC.EpollRdHup | LibC.EpollHup | LibC.EpollErr)) != 0)
        {
            _readable.Signal();
        }
        if ((events & (LibC.EpollOut | LibC.EpollHup | LibC.EpollErr)) != 0)
        {
            _writable.Signal();
        }
    }

    /// <summary>
    /// Marks the socket aborted and shuts it down: the kernel then reports an event on it, and the waiting operation
    /// resumes on the loop's thread and throws, not on the caller's (a watchdog, or a stop callback).
    /// </summary>
    public void Abort()
    {
        _aborted = true;
        Interlocked.MemoryBarrier();
        try
        {
            Volatile.Read(ref _socket)?.Shutdown(SocketShutdown.Both);
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            // Not connected yet, or already closed: the next operation sees the flag.
        }
        if (_connecting)
        {
            // A connect that never answers may not report the shutdown: its wait ends here, on the caller's thread
            // (rare: a connect outlived the timeout, or the run stopped during one).
            _writable.Signal();
        }
    }

    private void ThrowIfAborted(CancellationToken ct)
    {
        if (_aborted)
        {
            ct.ThrowIfCancellationRequested();
            throw new SocketException((int)SocketError.OperationAborted);
        }
    }

    public void Dispose() => Close();

    private void Close()
    {
        if (Interlocked.Exchange(ref _socket, null) is not { } socket)
        {
            return;
        }
        if (_slot >= 0)
        {
            _loop.Unregister(_slot, _fd);
            _slot = -1;
        }
        socket.Dispose();
        _fd = -1;
    }
}
