using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Load;
using PerfLab.Network;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// Seed 002's HTTP/2 upload: one request body of a given size, sent with HTTP/2 prior knowledge through the latency
/// proxy (a real delay on the wire, not a sleep in the handler), timed from send to the server's answer.
/// </summary>
public static class UploadRun
{
    private const int ChunkSize = 64 * 1024;

    public sealed record Outcome(IReadOnlyList<double> UploadMs, double ConfiguredRttMs, double MeasuredRttMs, DateTimeOffset MeasuredFrom,
        DateTimeOffset Ended);

    public static async Task<Outcome> RunAsync(IRunningApp sut, UploadModel model, TimeSpan cap, CancellationToken ct)
    {
        await using var proxy = await LatencyProxy.StartAsync(new IPEndPoint(IPAddress.Loopback, sut.BaseAddress.Port), model.Rtt / 2, ct);
        var path = await proxy.MeasureRoundTripsAsync(20, ct);
        using var client = sut.CreateClient(cap, new Uri($"http://127.0.0.1:{proxy.Port}/"));
        var times = new List<double>();
        var measuredFrom = DateTimeOffset.UtcNow;
        var total = Stopwatch.StartNew();
        // The first upload warms the connection, the JIT and the server's window updates; it is not measured.
        for (var i = 0; i <= model.Uploads && total.Elapsed < cap; i++)
        {
            if (i == 1)
            {
                measuredFrom = DateTimeOffset.UtcNow;
            }
            var clock = Stopwatch.StartNew();
            using var response = await client.PostAsync("/upload", new FixedSizeContent(model.Bytes), ct);
            var answer = await response.Content.ReadFromJsonAsync<UploadAnswer>(ct);
            clock.Stop();
            if (!response.IsSuccessStatusCode || answer is null || answer.Bytes != model.Bytes)
            {
                throw new PerfLabException($"the upload failed: HTTP {(int)response.StatusCode}, server read {answer?.Bytes ?? 0} "
                    + $"of {model.Bytes} bytes.", ExitCode.Failed);
            }
            if (response.Version != HttpVersion.Version20)
            {
                throw new PerfLabException($"the upload went over HTTP/{response.Version}, not HTTP/2: the SUT must serve "
                    + "Kestrel:EndpointDefaults:Protocols=Http2.", ExitCode.Failed);
            }
            if (i > 0)
            {
                times.Add(clock.Elapsed.TotalMilliseconds);
            }
        }
        return new Outcome(times, model.Rtt.TotalMilliseconds, path.Median.TotalMilliseconds, measuredFrom, DateTimeOffset.UtcNow);
    }

    private sealed record UploadAnswer(long Bytes, double Milliseconds, string Protocol);

    /// <summary>A body of exactly the given size, written from one reused buffer (no allocation per chunk).</summary>
    private sealed class FixedSizeContent : HttpContent
    {
        private static readonly byte[] Chunk = CreateChunk();
        private readonly long _bytes;

        public FixedSizeContent(long bytes)
        {
            _bytes = bytes;
            Headers.ContentLength = bytes;
            Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/octet-stream");
        }

        private static byte[] CreateChunk()
        {
            var chunk = new byte[ChunkSize];
            new Random(2002).NextBytes(chunk);
            return chunk;
        }

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
            SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            for (var left = _bytes; left > 0; left -= ChunkSize)
            {
                await stream.WriteAsync(Chunk.AsMemory(0, (int)Math.Min(ChunkSize, left)), cancellationToken);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = _bytes;
            return true;
        }
    }
}
