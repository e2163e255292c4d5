using System.Net;

namespace PerfLab.Load.Sockets;

/// <summary>
/// The byte stream under one HTTP/1.1 connection of the generator. One exchange at a time uses it (send, then
/// receive); only <see cref="Abort"/> may come from another thread.
/// </summary>
internal interface IConnectionSocket : IDisposable
{
    /// <summary>Connects; throws a SocketException, or <see cref="OperationCanceledException"/> when <paramref name="ct"/> fires.</summary>
    ValueTask ConnectAsync(EndPoint endPoint, CancellationToken ct);

    /// <summary>Sends all of <paramref name="bytes"/>.</summary>
    ValueTask SendAsync(ReadOnlyMemory<byte> bytes);

    /// <summary>Receives at least one byte into <paramref name="buffer"/>; 0 when the server closed the connection.</summary>
    SocketReceive ReceiveAsync(Memory<byte> buffer);

    /// <summary>Thread-safe: ends the operation in flight, and every later one, with an error.</summary>
    void Abort();
}

/// <summary>Which socket a new connection gets: the lab's event loop where it runs (Linux, x64 or Arm64), else the runtime's.</summary>
internal static class ConnectionSockets
{
    /// <summary>A socket on <paramref name="loop"/> (a user's connections and paced sends keep to one), or the runtime's.</summary>
    public static IConnectionSocket Create(EpollLoop? loop) => loop is not null ? new LoopSocket(loop) : new RuntimeSocket();

    /// <summary>Whether responses complete on an event thread without a hop to the thread pool.</summary>
    public static bool InlineCompletions => EpollLoop.Available || RuntimeSocket.InlineCompletions;
}
