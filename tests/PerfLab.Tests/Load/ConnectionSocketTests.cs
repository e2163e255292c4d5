using System.Net;
using System.Net.Sockets;
using System.Text;
using PerfLab.Load.Sockets;

namespace PerfLab.Tests.Load;

/// <summary>
/// The byte streams under the generator's HTTP/1.1 connections, both kinds (the lab's epoll loop and the runtime's
/// sockets), against raw loopback listeners that answer slowly, in pieces, or not at all.
/// </summary>
public sealed class ConnectionSocketTests
{
    public static TheoryData<string> Kinds => ["loop", "runtime"];

    private static IConnectionSocket Create(string kind) =>
        kind == "loop"
            ? new LoopSocket(EpollLoop.Next() ?? throw new InvalidOperationException("no epoll loop on this platform"))
            : new RuntimeSocket();

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task SendAsync_SixteenMebibytesToAReaderThatStartsLate_DeliversEveryByte(string kind)
    {
        using var listener = Listen();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        using var started = new SemaphoreSlim(0);
        var counting = Task.Run(async () =>
        {
            using var client = await listener.AcceptTcpClientAsync(cts.Token);
            await started.WaitAsync(cts.Token); // the sender is blocked on a full socket buffer by then
            var stream = client.GetStream();
            var buffer = new byte[64 * 1024];
            long total = 0, sum = 0;
            int n;
            while ((n = await stream.ReadAsync(buffer, cts.Token)) > 0)
            {
                total += n;
                for (var i = 0; i < n; i++)
                {
                    sum += buffer[i];
                }
            }
            return (total, sum);
        });
        var payload = new byte[16 * 1024 * 1024];
        for (var i = 0; i < payload.Length; i++)
        {
            payload[i] = (byte)(i % 251);
        }
        var expectedSum = payload.Sum(b => (long)b);

        using (var socket = Create(kind))
        {
            await socket.ConnectAsync(listener.LocalEndpoint, cts.Token);
            var sending = socket.SendAsync(payload).AsTask();
            Assert.False(sending.IsCompleted, "16 MiB fit in the socket buffers: the partial-send path was not exercised");
            started.Release();
            await sending.WaitAsync(cts.Token);
        }

        Assert.Equal((payload.LongLength, expectedSum), await counting);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveAsync_AnswerInThreePiecesThenClose_ReadsEveryByteThenZero(string kind)
    {
        using var listener = Listen();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var serving = Task.Run(async () =>
        {
            using var client = await listener.AcceptTcpClientAsync(cts.Token);
            var stream = client.GetStream();
            foreach (var piece in new[] { "abc", "defg", "hi" })
            {
                await stream.WriteAsync(Encoding.ASCII.GetBytes(piece), cts.Token);
                await Task.Delay(50, cts.Token); // separate segments, each after the client waits again
            }
        });
        using var socket = Create(kind);
        await socket.ConnectAsync(listener.LocalEndpoint, cts.Token);

        var received = new StringBuilder();
        var buffer = new byte[1024];
        int n;
        var reads = 0;
        while ((n = await ReceiveTask(socket, buffer).WaitAsync(cts.Token)) > 0)
        {
            received.Append(Encoding.ASCII.GetString(buffer, 0, n));
            reads++;
        }

        Assert.Equal("abcdefghi", received.ToString());
        Assert.InRange(reads, 1, 3);
        await serving;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Abort_DuringAReceiveThatWaits_EndsItWithAnError(string kind)
    {
        using var listener = Listen();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var accepting = listener.AcceptTcpClientAsync(cts.Token).AsTask(); // accepted, then silent
        using var socket = Create(kind);
        await socket.ConnectAsync(listener.LocalEndpoint, cts.Token);
        using var server = await accepting;

        var receiving = ReceiveTask(socket, new byte[1024]);
        Assert.False(receiving.IsCompleted);
        socket.Abort();

        var ex = await Assert.ThrowsAnyAsync<Exception>(() => receiving.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.True(ex is ObjectDisposedException or SocketException { SocketErrorCode: SocketError.OperationAborted }, ex.ToString());
        await Assert.ThrowsAnyAsync<Exception>(() => socket.SendAsync(new byte[1]).AsTask());
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ConnectAsync_NothingListensOnThePort_ThrowsConnectionRefused(string kind)
    {
        EndPoint closed;
        using (var listener = Listen())
        {
            closed = listener.LocalEndpoint;
            listener.Stop();
        }
        using var socket = Create(kind);

        var ex = await Assert.ThrowsAsync<SocketException>(() => socket.ConnectAsync(closed, CancellationToken.None).AsTask());
        Assert.Equal(SocketError.ConnectionRefused, ex.SocketErrorCode);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveThenSend_TheServerResetsTheConnection_NameTheResetThenTheBrokenPipe(string kind)
    {
        using var listener = Listen();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var accepting = listener.AcceptSocketAsync(cts.Token).AsTask();
        using var socket = Create(kind);
        await socket.ConnectAsync(listener.LocalEndpoint, cts.Token);
        using (var server = await accepting)
        {
            await socket.SendAsync("ping"u8.ToArray()); // unread by the server: its close then sends a reset
            await Task.Delay(50, cts.Token);
            server.LingerState = new LingerOption(true, 0);
        }

        // The errno of a failed recv, then of a failed send, each read after the call (LibC's note on send and recv).
        var received = await Assert.ThrowsAsync<SocketException>(() => ReceiveTask(socket, new byte[64]).WaitAsync(cts.Token));
        Assert.Equal(SocketError.ConnectionReset, received.SocketErrorCode);
        var sent = await Assert.ThrowsAsync<SocketException>(() => socket.SendAsync(new byte[1]).AsTask().WaitAsync(cts.Token));
        Assert.True(sent.SocketErrorCode is SocketError.Shutdown or SocketError.ConnectionReset, sent.ToString());
    }

    [Fact]
    public async Task ReceiveAsync_OnTheLoop_ResumesOnTheLoopsThreadAsWrksCallbacksDo()
    {
        using var listener = Listen();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var serving = Task.Run(async () =>
        {
            using var client = await listener.AcceptTcpClientAsync(cts.Token);
            var stream = client.GetStream();
            var buffer = new byte[16];
            _ = await stream.ReadAsync(buffer, cts.Token);
            await Task.Delay(100, cts.Token); // the client is waiting by then
            await stream.WriteAsync("pong"u8.ToArray(), cts.Token);
        });
        using var socket = Create("loop");
        await socket.ConnectAsync(listener.LocalEndpoint, cts.Token);

        var thread = await PingAsync(socket).WaitAsync(cts.Token);

        Assert.Equal(EpollLoop.ThreadName, thread);
        await serving;
    }

    /// <summary>Sends "ping", awaits the answer, and names the thread the await resumed on.</summary>
    private static async Task<string?> PingAsync(IConnectionSocket socket)
    {
        await socket.SendAsync("ping"u8.ToArray()).ConfigureAwait(false);
        _ = await socket.ReceiveAsync(new byte[16]);
        return Thread.CurrentThread.Name;
    }

    private static async Task<int> ReceiveTask(IConnectionSocket socket, byte[] buffer) => await socket.ReceiveAsync(buffer);

    private static TcpListener Listen()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return listener;
    }
}
