using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using PerfLab.Common;

namespace PerfLab.Network;

/// <summary>
/// A TCP proxy on 127.0.0.1 that delays every chunk, in each direction, by a fixed one-way delay without limiting
/// bandwidth (what Toxiproxy's latency toxic does, for kernels without <c>tc netem</c>): a chunk is timestamped when
/// it is read and written at that time plus the delay, in order, while reading goes on, so a connection carries as
/// many bytes per round trip as its sender's window allows.
/// </summary>
public sealed class LatencyProxy : IAsyncDisposable
{
    /// <summary>The largest one-way delay accepted: beyond it a "latency" is an outage.</summary>
    public static readonly TimeSpan MaxOneWayDelay = TimeSpan.FromSeconds(10);

    private readonly Socket _listener;
    private readonly EndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<DelayedConnection, byte> _connections = new();
    private readonly Task _acceptLoop;
    // Connections being set up or forwarded; DisposeAsync returns only once the last one has ended.
    private readonly TaskCompletionSource _allServed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _serving;
    private long _bytesForwarded;
    private int _connectionsServed;
    private int _disposed;

    private LatencyProxy(Socket listener, EndPoint target, TimeSpan oneWayDelay)
    {
        _listener = listener;
        _target = target;
        OneWayDelay = oneWayDelay;
        EndPoint = (IPEndPoint)listener.LocalEndPoint!;
        _acceptLoop = BlockingAccept.Start(listener, _stop.Token, Accepted);
    }

    /// <summary>Where clients connect: 127.0.0.1 and the bound port.</summary>
    public IPEndPoint EndPoint { get; }

    public int Port => EndPoint.Port;

    public EndPoint Target => _target;

    public TimeSpan OneWayDelay { get; }

    /// <summary>The round-trip time the proxy adds: twice the one-way delay.</summary>
    public TimeSpan AddedRoundTrip => OneWayDelay * 2;

    public int ActiveConnections => _connections.Count;

    public long BytesForwarded => Interlocked.Read(ref _bytesForwarded);

    /// <summary>Connections forwarded since the start, the round-trip probes' included.</summary>
    public int ConnectionsServed => Volatile.Read(ref _connectionsServed);

    /// <summary>Starts listening on 127.0.0.1 (port 0: any free port) and forwarding every connection to
    /// <paramref name="target"/>, each chunk held <paramref name="oneWayDelay"/> in each direction.</summary>
    public static Task<LatencyProxy> StartAsync(
        EndPoint target, TimeSpan oneWayDelay, CancellationToken ct = default, int listenPort = 0)
    {
        ArgumentNullException.ThrowIfNull(target);
        ct.ThrowIfCancellationRequested();
        if (oneWayDelay < TimeSpan.Zero || oneWayDelay > MaxOneWayDelay)
        {
            throw new PerfLabException(string.Create(CultureInfo.InvariantCulture,
                $"the proxy's one-way delay must be between 0 and {MaxOneWayDelay.TotalSeconds:0} s "
                    + $"(got {oneWayDelay.TotalMilliseconds:0.###} ms)."),
                ExitCode.Usage);
        }
        var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            listener.Bind(new IPEndPoint(IPAddress.Loopback, listenPort));
            listener.Listen(512);
        }
        catch (SocketException ex) when (ex.SocketErrorCode == SocketError.AddressAlreadyInUse)
        {
            listener.Dispose();
            throw new PerfLabException(
                $"port {listenPort} on 127.0.0.1 is already in use (a proxy left by an earlier run?); stop it or choose another port.",
                ExitCode.Environment, ex);
        }
        catch
        {
            listener.Dispose();
            throw;
        }
        return Task.FromResult(new LatencyProxy(listener, target, oneWayDelay));
    }

    /// <summary>
    /// Times <paramref name="count"/> round trips of small messages through this proxy's own delay machinery (to a
    /// private echo server on 127.0.0.1), after one warm-up round trip: the RTT a client of the proxy sees, measured
    /// under whatever load the proxy and the machine carry right now.
    /// </summary>
    public async Task<RoundTripStats> MeasureRoundTripsAsync(int count, CancellationToken ct = default)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        await using var echo = EchoServer.Start();
        using var probeListener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probeListener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        probeListener.Listen(1);
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await probe.ConnectAsync(probeListener.LocalEndPoint!, ct);
        var accepted = probeListener.Accept(); // already connected: returns at once, and keeps the socket blocking
        Interlocked.Increment(ref _serving);
        var relay = ServeAsync(accepted, echo.EndPoint);
        try
        {
            return await RoundTripProbe.MeasureAsync(probe, count, ct);
        }
        finally
        {
            try
            {
                probe.Shutdown(SocketShutdown.Both);
            }
            catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
            {
                // already closed by a cancelled probe
            }
            probe.Close();
            await relay;
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }
        await _stop.CancelAsync();
        _listener.Dispose();
        await _acceptLoop; // no connection starts after this
        foreach (var connection in _connections.Keys)
        {
            connection.Abort(); // one that registers after this sees _stop and aborts itself
        }
        if (Volatile.Read(ref _serving) == 0)
        {
            _allServed.TrySetResult();
        }
        await _allServed.Task;
        _stop.Dispose();
    }

    // Synchronous accept (BlockingAccept) and connect on purpose: a socket that never saw an async call stays a
    // blocking socket, and the delay lines' blocking reads then wake straight from the kernel.
    private void Accepted(Socket client)
    {
        Interlocked.Increment(ref _serving);
        _ = Task.Run(() => ServeAsync(client, _target));
    }

    // Every call is counted in _serving by its caller beforehand, so that DisposeAsync can wait for it.
    private async Task ServeAsync(Socket client, EndPoint target)
    {
        try
        {
            await ServeCoreAsync(client, target);
        }
        finally
        {
            if (Interlocked.Decrement(ref _serving) == 0 && _stop.IsCancellationRequested)
            {
                _allServed.TrySetResult();
            }
        }
    }

    private async Task ServeCoreAsync(Socket client, EndPoint target)
    {
        var server = new Socket(target.AddressFamily == AddressFamily.Unspecified ? AddressFamily.InterNetwork : target.AddressFamily,
            SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            client.NoDelay = true;
            using var registration = _stop.Token.Register(server.Dispose);
            server.Connect(target);
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            // The target is down (or the proxy stopping): the client sees its connection closed, as without a proxy.
            server.Dispose();
            client.Dispose();
            return;
        }

        var connection = new DelayedConnection(client, server, OneWayDelay, n => Interlocked.Add(ref _bytesForwarded, n));
        _connections[connection] = 0;
        Interlocked.Increment(ref _connectionsServed);
        if (_stop.IsCancellationRequested)
        {
            connection.Abort(); // disposed while this one was connecting
        }
        try
        {
            await connection.Completion;
        }
        finally
        {
            _connections.TryRemove(connection, out _);
        }
    }
}
