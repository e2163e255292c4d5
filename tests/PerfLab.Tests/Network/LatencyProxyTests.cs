using System.Diagnostics;
using System.Net.Sockets;
using System.Security.Cryptography;
using PerfLab.Common;
using PerfLab.Network;

namespace PerfLab.Tests.Network;

// Real sockets on 127.0.0.1 only. The machine has two shared cores, so the timing bounds allow scheduling noise
// above the configured delay but never below it: the proxy must not release a chunk early. The class runs alone,
// after the parallel tests, so that other tests' CPU load does not land in the timings.
[Collection(TimingSensitive.Name)]
public sealed class LatencyProxyTests
{
    private static readonly TimeSpan TestTimeout = TimeSpan.FromSeconds(30);

    [Theory]
    [InlineData(20)]
    [InlineData(10)]
    public async Task RoundTrip_ThroughProxy_AddsConfiguredRttOnceAndNeverLess(int rttMs)
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        await using var echo = new TestEchoServer();
        await using var proxy = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromMilliseconds(rttMs / 2.0), cts.Token);

        var attempts = await MeasureUntilWithinAsync(rttMs, async () =>
        {
            var direct = await RoundTripProbe.MeasureAsync(echo.EndPoint, 50, cts.Token);
            var through = await RoundTripProbe.MeasureAsync(proxy.EndPoint, 50, cts.Token);
            return (through.Min, through.Median - direct.Median);
        });

        Assert.True(attempts.Passed, attempts.Report);
    }

    [Fact]
    public async Task MeasureRoundTrips_OwnProbe_ReportsConfiguredRtt()
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        await using var echo = new TestEchoServer();
        await using var proxy = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromMilliseconds(10), cts.Token);

        var attempts = await MeasureUntilWithinAsync(20, async () =>
        {
            var stats = await proxy.MeasureRoundTripsAsync(30, cts.Token);
            Assert.Equal(30, stats.Count);
            return (stats.Min, stats.Median);
        });

        Assert.True(attempts.Passed, attempts.Report);
        Assert.Equal(0, echo.Accepted); // the probe's far end is the proxy's own echo, not the target
    }

    // No round trip may ever be shorter than the RTT (a chunk released early is a bug, whatever the load), and the proxy
    // adds the RTT once: an attempt's fastest round trip comes under one and a half of it (held twice each way, it would
    // be two). How close the median comes is the database path's figure (docs/benchmarks/setup.md; within 10 % in the
    // quiet collection's DatabasePathTests), not asserted here: on this shared 2-core machine a woken thread waits for a
    // core for milliseconds at a time (medians far above the RTT at load averages of 20 to 77). A stall can hold up
    // every round trip of an attempt, so five attempts: a proxy that adds too much fails all five.
    private static async Task<(bool Passed, string Report)> MeasureUntilWithinAsync(
        int rttMs, Func<Task<(TimeSpan Min, TimeSpan Median)>> measure)
    {
        var report = new List<string>();
        for (var attempt = 0; attempt < 5; attempt++)
        {
            var (min, median) = await measure();
            report.Add($"min {min.TotalMilliseconds:0.000} ms, median {median.TotalMilliseconds:0.000} ms");
            Assert.True(min.TotalMilliseconds >= rttMs, $"a round trip took {min.TotalMilliseconds:0.000} ms, less than the configured {rttMs} ms");
            if (min.TotalMilliseconds < rttMs * 1.5)
            {
                return (true, "");
            }
        }
        return (false, $"configured RTT {rttMs} ms; no fastest round trip under {rttMs * 1.5:0.#} ms in 5 attempts: "
            + string.Join("; ", report));
    }

    [Fact]
    public async Task MeasureRoundTrips_Cancelled_StopsWithinASecondAndLeavesTheProxyWorking()
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        await using var echo = new TestEchoServer();
        await using var proxy = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromSeconds(2), cts.Token);
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(200));

        var stopwatch = Stopwatch.StartNew();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => proxy.MeasureRoundTripsAsync(5, cancel.Token));

        // Cancelled at 200 ms, it ends before a single 4 s round trip could (let alone the five asked for): a probe that
        // waited for its round trip would take 4 s or more, and 3 s of room is left for a stalled host.
        Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(3.5), $"cancelling took {stopwatch.Elapsed.TotalMilliseconds:0} ms");
        // The probe's connection winds down on its own threads: poll, bounded, instead of sleeping a guess.
        var deadline = Stopwatch.StartNew();
        while (proxy.ActiveConnections > 0 && deadline.Elapsed < TimeSpan.FromSeconds(10))
        {
            await Task.Delay(10, cts.Token);
        }
        Assert.Equal(0, proxy.ActiveConnections);
    }

    [Fact]
    public async Task Forward_SeveralMegabytesOfRandomBytes_ArriveUnchanged()
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        await using var echo = new TestEchoServer();
        await using var proxy = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromMilliseconds(2), cts.Token);
        var payload = RandomNumberGenerator.GetBytes(6 * 1024 * 1024);

        var (echoed, _) = await EchoThroughAsync(proxy, payload, randomWrites: true, cts.Token);

        Assert.Equal(payload.Length, echoed.Length);
        Assert.Equal(Convert.ToHexString(SHA256.HashData(payload)), Convert.ToHexString(SHA256.HashData(echoed)));
        Assert.Equal(2L * payload.Length, proxy.BytesForwarded);
    }

    [Fact]
    public async Task Forward_EightMegabytesAt200MsRtt_IsNotCappedAtOneChunkPerRoundTrip()
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        await using var echo = new TestEchoServer();
        await using var proxy = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromMilliseconds(100), cts.Token);
        var payload = RandomNumberGenerator.GetBytes(8 * 1024 * 1024);

        var (echoed, elapsed) = await EchoThroughAsync(proxy, payload, randomWrites: false, cts.Token);

        Assert.Equal(payload.Length, echoed.Length);
        // Holding each 64 KB chunk for a round trip before reading the next would take 128 x 200 ms = 25.6 s (each way).
        // Pipelined, it is one round trip plus the copying, well under a second: a quarter of the capped time leaves a
        // stalled host seconds of room and still fails a proxy that holds a round trip per chunk.
        var capped = TimeSpan.FromMilliseconds(payload.Length / (64.0 * 1024) * 200);
        Assert.True(elapsed < capped / 4,
            $"8 MB took {elapsed.TotalMilliseconds:0} ms; one chunk per RTT would be {capped.TotalMilliseconds:0} ms");
    }

    [Fact]
    public async Task DisposeAsync_OpenConnections_ClosesEveryOneAndStopsListening()
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        await using var echo = new TestEchoServer();
        var proxy = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromMilliseconds(5), cts.Token);
        var clients = new List<Socket>();
        try
        {
            for (var i = 0; i < 3; i++)
            {
                var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                await socket.ConnectAsync(proxy.EndPoint, cts.Token);
                clients.Add(socket);
                await RoundTripProbe.MeasureAsync(socket, 1, cts.Token); // the connection really goes through
            }
            Assert.Equal(3, proxy.ActiveConnections);

            var stopwatch = Stopwatch.StartNew();
            await proxy.DisposeAsync();
            // It closes them at once (well under a second); one that waited for its clients to hang up would never end.
            Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(10), $"dispose took {stopwatch.Elapsed.TotalMilliseconds:0} ms");

            Assert.Equal(0, proxy.ActiveConnections);
            foreach (var socket in clients)
            {
                Assert.True(await IsClosedAsync(socket, cts.Token), "a client connection was left open");
            }
            using var late = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            await Assert.ThrowsAsync<SocketException>(async () => await late.ConnectAsync(proxy.EndPoint, cts.Token));
        }
        finally
        {
            await proxy.DisposeAsync();
            clients.ForEach(c => c.Dispose());
        }
    }

    [Fact]
    public async Task Connect_TargetDown_ClosesTheClientConnection()
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        using var reserved = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        reserved.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        var nobody = (System.Net.IPEndPoint)reserved.LocalEndPoint!; // bound, never listening: connections are refused
        await using var proxy = await LatencyProxy.StartAsync(nobody, TimeSpan.FromMilliseconds(5), cts.Token);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);

        await client.ConnectAsync(proxy.EndPoint, cts.Token);

        Assert.True(await IsClosedAsync(client, cts.Token), "the client was left connected to a proxy with no target");
        Assert.Equal(0, proxy.ConnectionsServed);
    }

    [Fact]
    public async Task StartAsync_DelayOutOfRange_ThrowsUsage()
    {
        await using var echo = new TestEchoServer();
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.FromMinutes(1)));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
    }

    [Fact]
    public async Task StartAsync_PortInUse_ThrowsEnvironmentNamingThePort()
    {
        await using var echo = new TestEchoServer();
        await using var first = await LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.Zero);
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => LatencyProxy.StartAsync(echo.EndPoint, TimeSpan.Zero, listenPort: first.Port));
        Assert.Equal(ExitCode.Environment, ex.ExitCode);
        Assert.Contains(first.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), ex.Message);
    }

    // Writes the payload while reading the echo back (both at once, as a real full-duplex client would).
    private static async Task<(byte[] Echoed, TimeSpan Elapsed)> EchoThroughAsync(
        LatencyProxy proxy, byte[] payload, bool randomWrites, CancellationToken ct)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(proxy.EndPoint, ct);
        var stopwatch = Stopwatch.StartNew();
        var send = Task.Run(async () =>
        {
            var random = new Random(42);
            var offset = 0;
            while (offset < payload.Length)
            {
                var size = Math.Min(payload.Length - offset, randomWrites ? random.Next(1, 100_000) : 64 * 1024);
                await socket.SendAsync(payload.AsMemory(offset, size), SocketFlags.None, ct);
                offset += size;
            }
            socket.Shutdown(SocketShutdown.Send);
        }, ct);
        var received = new MemoryStream(payload.Length);
        var buffer = new byte[64 * 1024];
        int n;
        while ((n = await socket.ReceiveAsync(buffer, SocketFlags.None, ct)) > 0)
        {
            received.Write(buffer, 0, n);
        }
        await send;
        return (received.ToArray(), stopwatch.Elapsed);
    }

    private static async Task<bool> IsClosedAsync(Socket socket, CancellationToken ct)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(TimeSpan.FromSeconds(10)); // a closed socket answers at once; a stalled host gets room
        try
        {
            var n = await socket.ReceiveAsync(new byte[16], SocketFlags.None, timeout.Token);
            return n == 0;
        }
        catch (SocketException)
        {
            return true; // reset: closed
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }
}
