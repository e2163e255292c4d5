using System.Net;
using System.Net.Sockets;
using System.Text;
using PerfLab.Load;
using PerfLab.Load.Sockets;

namespace PerfLab.Tests.Load;

/// <summary>The generator's own HTTP/1.1 client against real Kestrel and against raw sockets that misbehave on purpose.</summary>
public sealed class Http11ConnectionTests
{
    private static LoadPlan Plan(Uri url, long count, int users = 4) =>
        new([new ScenarioPlan("test", new ClosedModel(users), new RequestFeed(url.ToString())) { MaxRequests = count }],
            TimeSpan.FromSeconds(30), TimeSpan.Zero, TimeSpan.FromSeconds(5));

    [Theory]
    [InlineData("/chunked?kb=40", 40 * 1024)]
    [InlineData("/big?kb=100", 100 * 1024)]
    [InlineData("/close", 7)]
    public async Task RunAsync_ChunkedLargeAndClosingResponses_CountsEveryBodyByteWithoutErrors(string path, int bodyBytes)
    {
        await using var server = await TestServer.StartAsync();

        var result = await LoadEngine.RunAsync(Plan(server.Url(path), 60));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(0, s.Errors.Total);
        Assert.Equal(60, s.Requests);
        Assert.Equal(60, server.Requests);
        Assert.Equal(60L * bodyBytes, s.BytesReceived);
        Assert.StartsWith("HTTP/1.1 sockets", result.Generator.Transport);
    }

    // Where the lab's own event loop does not run, the generator's speed rests on an internal switch of Socket
    // (PreferInlineCompletions). Should a runtime drop or rename it, the load still works on the thread pool, at a
    // fraction of wrk's throughput: this says so first.
    [Fact]
    public void InlineCompletions_OnThisRuntime_AreAvailable()
    {
        Assert.True(RuntimeSocket.InlineCompletions, "Socket.PreferInlineCompletions has no setter on this runtime");
        Assert.True(Http11Connection.InlineCompletions);
    }

    [Fact]
    public async Task SendAsync_ServerDroppedTheIdleKeepAliveConnection_RetriesOnceOnANewConnection()
    {
        // A server that answers one request per connection and then closes it without saying so.
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var connections = 0;
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        using var closed = new SemaphoreSlim(0);
        var serving = ServeAsync(listener, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", () => Interlocked.Increment(ref connections), cts.Token,
            closed: () => closed.Release());
        var endPoint = (IPEndPoint)listener.LocalEndpoint;
        var url = new Uri($"http://127.0.0.1:{endPoint.Port}/x");
        using var connection = new Http11Connection(endPoint, cts.Token);
        var request = Http11Connection.EncodeGet(url);

        var first = await connection.SendAsync(request);
        await closed.WaitAsync(cts.Token); // the server has closed the connection, without a word to the client
        var second = await connection.SendAsync(request);

        Assert.Equal(new Http11Response(200, 2), first);
        Assert.Equal(new Http11Response(200, 2), second);
        Assert.Equal(2, Volatile.Read(ref connections));
        await cts.CancelAsync();
        await serving;
    }

    [Fact]
    public async Task RunAsync_ServerAnswersSomethingThatIsNotHttp_CountsConnectionErrorsAndNamesTheProblem()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var serving = ServeAsync(listener, "SSH-2.0-OpenSSH_9.2\r\n\r\n", () => { }, cts.Token);
        var url = new Uri($"http://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}/x");

        var result = await LoadEngine.RunAsync(Plan(url, 10_000_000, users: 1));

        var s = Assert.Single(result.Scenarios);
        Assert.True(s.Errors.ByKind.GetValueOrDefault("connection-error") > 0, string.Join(",", s.Errors.ByKind));
        Assert.Equal(s.Requests, s.Errors.Total);
        Assert.True(result.Incomplete);
        Assert.Contains("not an HTTP/1.x status line: 'SSH-2.0-OpenSSH_9.2'", result.IncompleteReason);
        await cts.CancelAsync();
        await serving;
    }

    [Fact]
    public async Task SendAsync_WatchdogAbortsALateRequest_ReportsATimeoutAndTheNextRequestReconnects()
    {
        await using var server = await TestServer.StartAsync();
        var url = server.Url("/delay?ms=2000");
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        using var connection = new Http11Connection(Http11Connection.EndPointOf(url), cts.Token);

        var sending = connection.SendAsync(Http11Connection.EncodeGet(url)).AsTask();
        while (server.Requests == 0 && !cts.IsCancellationRequested)
        {
            await Task.Delay(10); // until the request is at the server, in flight
        }
        connection.AbortIfOlderThan(System.Diagnostics.Stopwatch.GetTimestamp());

        await Assert.ThrowsAnyAsync<Exception>(() => sending);
        Assert.True(connection.TimedOut);
        var next = await connection.SendAsync(Http11Connection.EncodeGet(server.Url("/fast")));
        Assert.Equal(new Http11Response(200, 2), next);
        Assert.False(connection.TimedOut);
    }

    /// <summary>Answers each connection's first request with <paramref name="answer"/>, then closes it.</summary>
    private static Task ServeAsync(TcpListener listener, string answer, Action accepted, CancellationToken ct, Action? closed = null) => Task.Run(async () =>
    {
        var bytes = Encoding.ASCII.GetBytes(answer);
        while (!ct.IsCancellationRequested)
        {
            try
            {
                using (var client = await listener.AcceptTcpClientAsync(ct))
                {
                    accepted();
                    var stream = client.GetStream();
                    await ReadHeadAsync(stream, ct);
                    await stream.WriteAsync(bytes, ct);
                }
                closed?.Invoke();
            }
            catch (OperationCanceledException)
            {
                return;
            }
            catch (IOException)
            {
                // the client went away first: next connection
            }
        }
    });

    private static async Task ReadHeadAsync(NetworkStream stream, CancellationToken ct)
    {
        var head = new StringBuilder();
        var buffer = new byte[1024];
        while (!head.ToString().Contains("\r\n\r\n", StringComparison.Ordinal))
        {
            var n = await stream.ReadAsync(buffer, ct);
            if (n == 0)
            {
                return;
            }
            head.Append(Encoding.ASCII.GetString(buffer, 0, n));
        }
    }

    [Theory]
    [InlineData(5_000, 500)]   // the default --timeout: two looks a second (four before the 1 s cap)
    [InlineData(30_000, 1_000)] // capped at 1 s
    [InlineData(2_000, 200)]
    [InlineData(50, 10)]        // at least 10 ms
    public void WatchdogPeriod_KnownTimeouts_ATenthBetween10msAnd1s(int timeoutMs, int expectedMs)
    {
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), Http11Connections.WatchdogPeriod(TimeSpan.FromMilliseconds(timeoutMs)));
    }
}
