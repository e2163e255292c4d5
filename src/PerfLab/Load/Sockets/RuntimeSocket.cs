using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace PerfLab.Load.Sockets;

/// <summary>
/// A connection over the runtime's <see cref="Socket"/>, where the lab's own event loop does not run. The socket
/// prefers inline completions: a receive that completes runs its continuation (parse, record, send the next request)
/// on the socket engine's event thread instead of queuing it to the thread pool. That hop, not HTTP, was most of the
/// cost of a request through <see cref="HttpClient"/>. It is an internal switch of <see cref="Socket"/> (the runtime
/// keeps its setter for reflection); where it is missing the connection works the same, on the thread pool.
/// </summary>
internal sealed class RuntimeSocket : IConnectionSocket
{
    // The setter itself: a runtime whose property had no setter would make PropertyInfo.SetValue throw.
    private static readonly MethodInfo? s_setPreferInline = OperatingSystem.IsWindows() ? null
        : typeof(Socket).GetProperty("PreferInlineCompletions", BindingFlags.Instance | BindingFlags.NonPublic)?.SetMethod;

    private Socket? _socket;

    public static bool InlineCompletions => s_setPreferInline is not null;

    public async ValueTask ConnectAsync(EndPoint endPoint, CancellationToken ct)
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
        await socket.ConnectAsync(endPoint, ct).ConfigureAwait(false);
    }

    public ValueTask SendAsync(ReadOnlyMemory<byte> bytes)
    {
        var sending = _socket!.SendAsync(bytes, SocketFlags.None);
        return sending.IsCompletedSuccessfully && sending.Result == bytes.Length ? default : SendRestAsync(sending, bytes);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask SendRestAsync(ValueTask<int> sending, ReadOnlyMemory<byte> bytes)
    {
        for (var sent = await sending.ConfigureAwait(false); sent < bytes.Length;)
        {
            sent += await _socket!.SendAsync(bytes[sent..], SocketFlags.None).ConfigureAwait(false);
        }
    }

    public SocketReceive ReceiveAsync(Memory<byte> buffer) => new(_socket!.ReceiveAsync(buffer, SocketFlags.None));

    /// <summary>Disposing the socket ends its pending operation (the runtime makes that thread-safe).</summary>
    public void Abort() => Volatile.Read(ref _socket)?.Dispose();

    public void Dispose() => Volatile.Read(ref _socket)?.Dispose();
}
