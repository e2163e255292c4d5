using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>What one exchange returned: the status code and the length of the body, which is counted, not kept.</summary>
internal readonly record struct Http11Response(int Status, long BodyBytes);

/// <summary>A response that is not HTTP/1.x as the generator understands it, or a connection closed mid-response.</summary>
internal sealed class Http11ProtocolException(string message) : IOException(message);

/// <summary>
/// One virtual user's keep-alive HTTP/1.1 connection: the generator's hot path, built the way wrk is.
/// The request's bytes come ready to send (<see cref="RequestTemplate"/>); the response is parsed in a reused buffer
/// (status line, then a Content-Length, chunked or read-to-close body, and Connection: close) and its body is counted,
/// not kept, unless <see cref="KeepBody"/> asks for it (a JSON check reads it). Nothing is allocated per request and no timer is armed per request: the owner's watchdog calls
/// <see cref="AbortIfOlderThan"/>, which closes the socket of a request that outlived the timeout.
/// <para>
/// The socket prefers inline completions: a receive that completes runs its continuation (parse, record, send the
/// next request) on the socket engine's event thread instead of queuing it to the thread pool. That hop, not HTTP,
/// was most of the cost of a request through <see cref="HttpClient"/>; without it one event thread serves every
/// connection as wrk's event loop does. It is an internal switch of <see cref="Socket"/> (the runtime keeps its
/// setter for reflection); where it is missing the connection works the same, on the thread pool.
/// </para>
/// </summary>
internal sealed partial class Http11Connection(EndPoint endPoint, CancellationToken stop) : IDisposable
{
    private const int InitialBuffer = 16 * 1024;
    private const int MaxHeadBytes = 64 * 1024;
    private const long Idle = 0;
    private const long Aborted = -1;

    // The setter itself: a runtime whose property had no setter would make PropertyInfo.SetValue throw.
    private static readonly MethodInfo? s_setPreferInline = OperatingSystem.IsWindows() ? null
        : typeof(Socket).GetProperty("PreferInlineCompletions", BindingFlags.Instance | BindingFlags.NonPublic)?.SetMethod;

    private byte[] _buffer = [];
    private int _start;
    private int _end;
    private Socket? _socket;
    private long _busySince;
    private bool _timedOut;
    private bool _gotBytes; // any byte of the current response received
    private readonly KeptBody _kept = new();

    /// <summary>Keep each response's body (up to 16 MiB) for <see cref="Body"/>; off, bodies are counted and dropped.</summary>
    public bool KeepBody { get; init; }

    /// <summary>With <see cref="KeepBody"/>: the last response's body (chunked bodies de-chunked); valid until the next send.</summary>
    public ReadOnlySpan<byte> Body => _kept.Span;

    /// <summary>True when the last body was longer than the 16 MiB kept of it.</summary>
    public bool BodyTruncated => _kept.Truncated;

    /// <summary>Whether this runtime lets the generator's sockets complete inline (see the class remarks).</summary>
    public static bool InlineCompletions => s_setPreferInline is not null;

    /// <summary>True when the last request failed because the watchdog aborted it.</summary>
    public bool TimedOut => _timedOut;

    public static byte[] EncodeGet(Uri uri) => RequestTemplate.Whole(RequestSpec.Get, uri);

    public static EndPoint EndPointOf(Uri uri) =>
        IPAddress.TryParse(uri.IdnHost, out var ip) ? new IPEndPoint(ip, uri.Port) : new DnsEndPoint(uri.IdnHost, uri.Port);

    /// <summary>
    /// Sends <paramref name="request"/> (connecting first if needed) and reads the whole response. Throws
    /// <see cref="SocketException"/>, <see cref="IOException"/>, <see cref="ObjectDisposedException"/> or
    /// <see cref="OperationCanceledException"/> on failure; <see cref="TimedOut"/> then tells a timeout apart.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<Http11Response> SendAsync(ReadOnlyMemory<byte> request)
    {
        _timedOut = false;
        Volatile.Write(ref _busySince, Stopwatch.GetTimestamp());
        try
        {
            for (var attempt = 1; ; attempt++)
            {
                var reused = _socket is not null;
                if (!reused)
                {
                    await ConnectAsync().ConfigureAwait(false);
                }
                try
                {
                    return await ExchangeAsync(_socket!, request).ConfigureAwait(false);
                }
                catch (Exception ex) when (reused && !_gotBytes && attempt == 1 && !stop.IsCancellationRequested && IsIdleClose(ex))
                {
                    // The server closed this keep-alive connection while it was idle (closed or reset before a single
                    // byte of the response): one retry on a new connection, as HttpClient does. A server that closes
                    // an idle connection has not read the request from it, so a POST is not applied twice.
                    CloseSocket();
                }
            }
        }
        catch
        {
            _timedOut = Volatile.Read(ref _busySince) == Aborted;
            CloseSocket();
            throw;
        }
        finally
        {
            if (Interlocked.Exchange(ref _busySince, Idle) == Aborted)
            {
                CloseSocket();
            }
        }
    }

    private static bool IsIdleClose(Exception ex) =>
        ex is Http11ProtocolException
        || ex is SocketException { SocketErrorCode: SocketError.ConnectionReset or SocketError.ConnectionAborted or SocketError.Shutdown };

    /// <summary>Called by the watchdog: aborts the request in flight if it started before <paramref name="deadline"/>.</summary>
    public void AbortIfOlderThan(long deadline)
    {
        var since = Volatile.Read(ref _busySince);
        if (since > 0 && since < deadline && Interlocked.CompareExchange(ref _busySince, Aborted, since) == since)
        {
            Volatile.Read(ref _socket)?.Dispose();
        }
    }

    /// <summary>Ends the request in flight, if any: the run is stopping.</summary>
    public void Abort() => Volatile.Read(ref _socket)?.Dispose();

    public void Dispose() => CloseSocket();

    /// <summary>Connects before the first request's clock starts, as wrk does; a failure is left for the first send to count.</summary>
    public async ValueTask<bool> PreconnectAsync()
    {
        if (_socket is not null)
        {
            return true;
        }
        try
        {
            await ConnectAsync().ConfigureAwait(false);
            return true;
        }
        catch (Exception ex) when (ex is SocketException or OperationCanceledException or ObjectDisposedException)
        {
            CloseSocket();
            return false;
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask ConnectAsync()
    {
        var socket = endPoint is IPEndPoint ip
            ? new Socket(ip.AddressFamily, SocketType.Stream, ProtocolType.Tcp)
            : new Socket(SocketType.Stream, ProtocolType.Tcp);
        socket.NoDelay = true;
        try
        {
            s_setPreferInline?.Invoke(socket, [true]);
        }
        catch (TargetInvocationException)
        {
            // Not supported on this platform: the thread pool completes the operations instead.
        }
        Volatile.Write(ref _socket, socket);
        if (_buffer.Length == 0)
        {
            _buffer = new byte[InitialBuffer];
        }
        _start = _end = 0;
        await socket.ConnectAsync(endPoint, stop).ConfigureAwait(false);
    }

    private void CloseSocket()
    {
        Interlocked.Exchange(ref _socket, null)?.Dispose();
        _start = _end = 0;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<Http11Response> ExchangeAsync(Socket socket, ReadOnlyMemory<byte> request)
    {
        _gotBytes = false;
        _kept.Clear();
        for (var sent = 0; sent < request.Length;)
        {
            sent += await socket.SendAsync(request[sent..], SocketFlags.None).ConfigureAwait(false);
        }
        // No pipelining, so nothing the server sent before this request belongs to it.
        _start = _end = 0;
        while (true)
        {
            int headEnd;
            while ((headEnd = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n\r\n"u8)) < 0)
            {
                // The receive is awaited here rather than in a helper: one state machine fewer on every response.
                MakeRoom();
                var n = await socket.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None).ConfigureAwait(false);
                if (n == 0)
                {
                    throw new Http11ProtocolException("the server closed the connection before the end of the response headers");
                }
                _end += n;
                _gotBytes = true;
            }
            var head = Http11Head.Parse(_buffer.AsSpan(_start, headEnd));
            _start += headEnd + 4;
            if (head.Status is >= 100 and < 200 and not 101)
            {
                continue; // an interim response (100 Continue, 103 Early Hints): the real one follows
            }
            long body = 0;
            var close = head.Close;
            if (head.Status is 204 or 304 or 101 || request.Span.StartsWith("HEAD "u8))
            {
                // no body (a HEAD response's Content-Length is the GET's)
            }
            else if (head.Chunked)
            {
                body = await ReadChunkedAsync(socket).ConfigureAwait(false);
            }
            else if (head.ContentLength >= 0)
            {
                await SkipAsync(socket, head.ContentLength).ConfigureAwait(false);
                body = head.ContentLength;
            }
            else
            {
                body = await ReadToCloseAsync(socket).ConfigureAwait(false);
                close = true;
            }
            if (close)
            {
                CloseSocket();
            }
            return new Http11Response(head.Status, body);
        }
    }
}
