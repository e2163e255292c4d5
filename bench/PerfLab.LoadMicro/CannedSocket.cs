using System.Net;
using PerfLab.Load.Sockets;

namespace PerfLab.LoadMicro;

/// <summary>
/// A connection's socket in memory: a send is taken at once, and a receive waits until <see cref="Deliver"/> copies the
/// canned response into its buffer and completes it on the caller's thread, as the event loop completes a waiting
/// receive on its own. The request step so suspends and resumes as it does over the kernel, and what is measured is
/// perflab's code per request without the system calls. A response in several pieces is delivered piece by piece,
/// each into the receive the previous one's continuation left waiting (a server that flushed more than once).
/// </summary>
internal sealed class CannedSocket(byte[][] pieces) : IConnectionSocket
{
    private readonly ReceiveCompletion _core = new();
    private Memory<byte> _buffer;

    public ValueTask ConnectAsync(EndPoint endPoint, CancellationToken ct) => default;

    public ValueTask SendAsync(ReadOnlyMemory<byte> bytes) => default;

    public SocketReceive ReceiveAsync(Memory<byte> buffer)
    {
        _buffer = buffer;
        _core.Reset();
        return new SocketReceive(_core);
    }

    /// <summary>The response's events: each waiting receive gets its piece, and the request step runs on.</summary>
    public void Deliver()
    {
        foreach (var piece in pieces)
        {
            piece.CopyTo(_buffer.Span);
            _core.SetResult(piece.Length);
        }
    }

    public void Abort()
    {
    }

    public void Dispose()
    {
    }
}
