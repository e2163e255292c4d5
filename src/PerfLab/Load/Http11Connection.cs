using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// One virtual user's keep-alive HTTP/1.1 connection: the generator's hot path, built the way wrk is. This class keeps
/// the connection's life: it connects before the first request's clock starts, sends the request's bytes (ready to
/// send, from <see cref="RequestTemplate"/>), has <see cref="Http11ResponseReader"/> read the response, closes the
/// connection when the server says so, and retries once when the server had closed it while idle. Nothing is
/// allocated per request and no timer is armed per request: the owner's watchdog calls <see cref="AbortIfOlderThan"/>,
/// which aborts a request that outlived the timeout. The bytes travel over an <see cref="IConnectionSocket"/>: the
/// lab's own event loop where the platform has one (<see cref="LoopSocket"/>), else the runtime's sockets;
/// <c>newSocket</c> gives another (the microbenchmarks' in-memory socket, which measures the request path
/// without the kernel).
/// </summary>
internal sealed class Http11Connection(EndPoint endPoint, CancellationToken stop, Func<IConnectionSocket>? newSocket = null)
    : IDisposable
{
    private const long Idle = 0;
    private const long Aborted = -1;

    private readonly Http11ResponseReader _reader = new();
    private readonly EpollLoop? _loop = newSocket is null ? EpollLoop.Next() : null;
    private IConnectionSocket? _socket;
    private long _busySince;
    private bool _timedOut;

    /// <summary>Keep each response's body (up to 16 MiB) for <see cref="Body"/>; off, bodies are counted and dropped.</summary>
    public bool KeepBody
    {
        get => _reader.KeepBody;
        init => _reader.KeepBody = value;
    }

    /// <summary>With <see cref="KeepBody"/>: the last response's body (chunked bodies de-chunked); valid until the next send.</summary>
    public ReadOnlySpan<byte> Body => _reader.Body;

    /// <summary>True when the last body was longer than the 16 MiB kept of it.</summary>
    public bool BodyTruncated => _reader.BodyTruncated;

    /// <summary>Whether responses complete on an event thread, without a hop to the thread pool.</summary>
    public static bool InlineCompletions => ConnectionSockets.InlineCompletions;

    /// <summary>
    /// The event loop this connection's sockets (a reconnect's too) are driven by, and its user's paced sends wait on;
    /// null on the runtime's sockets.
    /// </summary>
    public EpollLoop? Loop => _loop;

    /// <summary>True when the last request failed because the watchdog aborted it.</summary>
    public bool TimedOut => _timedOut;

    public static byte[] EncodeGet(Uri uri) => RequestTemplate.Whole(RequestSpec.Get, uri);

    public static EndPoint EndPointOf(Uri uri) =>
        IPAddress.TryParse(uri.IdnHost, out var ip) ? new IPEndPoint(ip, uri.Port) : new DnsEndPoint(uri.IdnHost, uri.Port);

    /// <inheritdoc cref="SendAsync(ReadOnlyMemory{byte}, long)"/>
    public ValueTask<Http11Response> SendAsync(ReadOnlyMemory<byte> request) => SendAsync(request, Stopwatch.GetTimestamp());

    /// <summary>
    /// Sends <paramref name="request"/> (connecting first if needed) and reads the whole response. Throws
    /// <see cref="SocketException"/>, <see cref="IOException"/>, <see cref="ObjectDisposedException"/> or
    /// <see cref="OperationCanceledException"/> on failure; <see cref="TimedOut"/> then tells a timeout apart.
    /// <paramref name="sentAt"/>: the caller's Stopwatch timestamp of the send, which the timeout counts from (the
    /// caller's clock read serves both: one read per edge of a request).
    /// </summary>
    public ValueTask<Http11Response> SendAsync(ReadOnlyMemory<byte> request, long sentAt) =>
        ExchangeAsync<ResponseOrThrow, Http11Response>(request, sentAt, default);

    /// <summary>
    /// As <see cref="SendAsync(ReadOnlyMemory{byte}, long)"/>, but the exchange's end goes to <paramref name="sink"/>,
    /// whose answer it returns: a response, or a failure of the four kinds instead of throwing it. Then, as long as the
    /// sink gives one (<see cref="IExchangeSink{TResult}.TryNext"/>: a closed-model user's next request), the next
    /// exchange, in the same method. The request path's one state machine: the load engine's bookkeeping runs in the
    /// sink, so nothing awaits this method but the user, and a user who sends as soon as it is answered awaits it once.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<TResult> ExchangeAsync<TSink, TResult>(ReadOnlyMemory<byte> request, long sentAt, TSink sink)
        where TSink : struct, IExchangeSink<TResult>
    {
        while (true)
        {
            Exception? failure = null;
            BusySince(sentAt);
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
                        var socket = _socket!;
                        _reader.Begin(request.Span.StartsWith("HEAD "u8));
                        await socket.SendAsync(request).ConfigureAwait(false);
                        // The response's receives, awaited here: the reader parses them as they come.
                        while (!_reader.Received(await socket.ReceiveAsync(_reader.ReceiveBuffer())))
                        {
                        }
                        if (_reader.Close)
                        {
                            CloseSocket();
                        }
                        break;
                    }
                    catch (Exception ex) when (reused && !_reader.GotBytes && attempt == 1 && !stop.IsCancellationRequested
                        && Volatile.Read(ref _busySince) != Aborted && IsIdleClose(ex))
                    {
                        CloseSocket(); // closed by the server while idle: one retry on a new connection (IsIdleClose)
                    }
                }
            }
            catch (Exception ex) when (ex is SocketException or IOException or ObjectDisposedException or OperationCanceledException)
            {
                Failed();
                failure = ex;
            }
            catch
            {
                Failed();
                throw;
            }
            finally
            {
                BackToIdle();
            }
            var result = failure is null ? sink.Responded(this, _reader.Response) : sink.Failed(this, failure);
            if (!sink.TryNext(result, out request, out sentAt))
            {
                return result;
            }
        }
    }

    private void BusySince(long sentAt)
    {
        _timedOut = false;
        Volatile.Write(ref _busySince, sentAt);
    }

    /// <summary>The exchange is over: the watchdog no longer aborts it, and a connection it aborted meanwhile is closed.</summary>
    private void BackToIdle()
    {
        if (Interlocked.Exchange(ref _busySince, Idle) == Aborted)
        {
            CloseSocket();
        }
    }

    private void Failed()
    {
        _timedOut = Volatile.Read(ref _busySince) == Aborted;
        CloseSocket();
    }

    /// <summary>
    /// Whether the server closed this keep-alive connection while it was idle (closed or reset before a single byte of
    /// the response): the exchange then retries once on a new connection, as HttpClient does. A server that closes an
    /// idle connection has not read the request from it, so a POST is not applied twice.
    /// </summary>
    private static bool IsIdleClose(Exception ex) =>
        ex is Http11ProtocolException
        || ex is SocketException { SocketErrorCode: SocketError.ConnectionReset or SocketError.ConnectionAborted or SocketError.Shutdown };

    /// <summary>Called by the watchdog: aborts the request in flight if it started before <paramref name="deadline"/>.</summary>
    public void AbortIfOlderThan(long deadline)
    {
        var since = Volatile.Read(ref _busySince);
        if (since > 0 && since < deadline && Interlocked.CompareExchange(ref _busySince, Aborted, since) == since)
        {
            Volatile.Read(ref _socket)?.Abort();
        }
    }

    /// <summary>Ends the request in flight, if any: the run is stopping.</summary>
    public void Abort() => Volatile.Read(ref _socket)?.Abort();

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

    private ValueTask ConnectAsync()
    {
        var socket = newSocket is null ? ConnectionSockets.Create(_loop) : newSocket();
        // Published before connecting, so that an abort (watchdog or stop) reaches a connect that hangs.
        Volatile.Write(ref _socket, socket);
        return socket.ConnectAsync(endPoint, stop);
    }

    private void CloseSocket() => Interlocked.Exchange(ref _socket, null)?.Dispose();
}
