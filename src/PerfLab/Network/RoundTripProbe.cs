using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace PerfLab.Network;

/// <summary>Round-trip times of small messages over one TCP connection.</summary>
public sealed record RoundTripStats(int Count, TimeSpan Min, TimeSpan Median, TimeSpan P90, TimeSpan Max)
{
    public static RoundTripStats From(IReadOnlyList<TimeSpan> samples)
    {
        if (samples.Count == 0)
        {
            throw new ArgumentException("no round trips were timed", nameof(samples));
        }
        var sorted = samples.Order().ToArray();
        return new RoundTripStats(sorted.Length, sorted[0], Percentile(sorted, 0.5), Percentile(sorted, 0.9), sorted[^1]);
    }

    // Nearest rank, so every figure is a round trip that really happened.
    private static TimeSpan Percentile(TimeSpan[] sorted, double p) =>
        sorted[Math.Clamp((int)Math.Ceiling(p * sorted.Length) - 1, 0, sorted.Length - 1)];
}

/// <summary>Times round trips of small messages to an echo server (directly or through a proxy).</summary>
public static class RoundTripProbe
{
    private const int MessageSize = 32;

    /// <summary>Connects to <paramref name="echoEndPoint"/>, which must echo what it receives, and times
    /// <paramref name="count"/> round trips of a 32-byte message after one warm-up round trip.</summary>
    public static async Task<RoundTripStats> MeasureAsync(EndPoint echoEndPoint, int count, CancellationToken ct = default)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        using (ct.Register(socket.Dispose))
        {
            try
            {
                await Task.Factory.StartNew(() => socket.Connect(echoEndPoint), ct, TaskCreationOptions.LongRunning, TaskScheduler.Default);
            }
            catch (ObjectDisposedException) when (ct.IsCancellationRequested)
            {
                ct.ThrowIfCancellationRequested();
            }
        }
        return await MeasureAsync(socket, count, ct);
    }

    // Blocking calls on a thread of its own: the timed path then holds only kernel wake-ups, no thread-pool hops,
    // which on a loaded machine add milliseconds that are the machine's, not the path's.
    internal static Task<RoundTripStats> MeasureAsync(Socket connected, int count, CancellationToken ct)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        return Task.Factory.StartNew(() =>
        {
            using var registration = ct.Register(connected.Dispose);
            try
            {
                return Measure(connected, count);
            }
            catch (Exception ex) when (ex is ObjectDisposedException or SocketException && ct.IsCancellationRequested)
            {
                throw new OperationCanceledException(ct);
            }
        }, ct, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    private static RoundTripStats Measure(Socket connected, int count)
    {
        var message = new byte[MessageSize];
        var reply = new byte[MessageSize];
        var samples = new List<TimeSpan>(count);
        for (var i = 0; i <= count; i++)
        {
            message.AsSpan().Fill((byte)i);
            var start = Stopwatch.GetTimestamp();
            connected.Send(message);
            var received = 0;
            while (received < MessageSize)
            {
                var n = connected.Receive(reply, received, MessageSize - received, SocketFlags.None);
                if (n == 0)
                {
                    throw new IOException("the echo end closed the connection during a round trip");
                }
                received += n;
            }
            var elapsed = Stopwatch.GetElapsedTime(start);
            if (!reply.AsSpan().SequenceEqual(message))
            {
                throw new IOException("the echo end answered with different bytes");
            }
            if (i > 0) // the first round trip warms up the path (JIT, connection setup) and is not counted
            {
                samples.Add(elapsed);
            }
        }
        return RoundTripStats.From(samples);
    }
}
