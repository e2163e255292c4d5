using System.Diagnostics;
using System.Globalization;
using System.Net;
using PerfLab.Common;

namespace PerfLab.Load.Models;

/// <summary>
/// Seed 002's HTTP/2 upload: one request body of the model's size at a time, sent with HTTP/2 prior knowledge (h2c),
/// timed from send to the server's answer, each upload one batch. The body streams from one reused buffer, so a 1 GB
/// upload holds no 1 GB array. Where the delay on the wire comes from is the plan's: the experiment runner puts a
/// latency proxy in front of the app (<see cref="LoadModel.PathRtt"/>) and sends to it.
/// </summary>
internal sealed class UploadRunner(UploadModel model) : ILoadModelRunner
{
    private const int ChunkSize = 64 * 1024;

    private readonly List<double> _uploadMs = [];
    private string? _refused;

    public bool UsesTimedWarmup => false;

    public string Transport => "HttpClient, HTTP/2 upload";

    public ModelSummary Summarize(ScenarioRun run, RecordingSnapshot measured, double seconds, bool stoppedEarly, List<string> reasons)
    {
        if (_uploadMs.Count < model.Uploads && !stoppedEarly)
        {
            var why = _refused ?? run.FirstError ?? "the time limit was reached";
            reasons.Add(string.Create(CultureInfo.InvariantCulture,
                $"{run.Plan.Name}: {why} after {_uploadMs.Count} of {model.Uploads} uploads"));
        }
        return new ModelSummary(Burst: new BurstStats(1, [.. _uploadMs], _uploadMs.Count > 0 ? _uploadMs.Average() : 0,
            StudentT.MarginOfError(_uploadMs, 0.999), StudentT.StdDev(_uploadMs)));
    }

    public async Task RunAsync(ScenarioRun run, LoadPlan plan)
    {
        using var client = new HttpMessageInvoker(new SocketsHttpHandler { UseProxy = false, AllowAutoRedirect = false });
        // The first upload warms the connection, the JIT and the server's window updates; it is not measured.
        for (var i = 0; i <= model.Uploads && !run.Stop.IsCancellationRequested; i++)
        {
            if (i == 1)
            {
                run.BeginMeasurement();
            }
            run.UserStarted();
            var ok = await UploadAsync(client, run, measured: i > 0).ConfigureAwait(false);
            run.UserStopped();
            if (!ok)
            {
                break;
            }
        }
    }

    /// <summary>One upload, recorded as a request (and, when measured, its time as a batch); false when it failed.</summary>
    private async Task<bool> UploadAsync(HttpMessageInvoker client, ScenarioRun run, bool measured)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, run.Uris[0])
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new FixedSizeContent(model.Bytes),
        };
        foreach (var (name, value) in run.Plan.Request.Headers)
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }
        var recorder = run.Recorders;
        var start = Stopwatch.GetTimestamp();
        recorder.Current.NoteSend(start, 0);
        try
        {
            using var response = await client.SendAsync(request, run.Stop).ConfigureAwait(false);
            var bytes = (await response.Content.ReadAsByteArrayAsync(run.Stop).ConfigureAwait(false)).LongLength;
            var end = Stopwatch.GetTimestamp();
            recorder.Current.Record(RequestOutcome.Response, (int)response.StatusCode, bytes, end - start, end - start);
            if (measured)
            {
                _uploadMs.Add(Stopwatch.GetElapsedTime(start, end).TotalMilliseconds);
            }
            _refused = response.IsSuccessStatusCode ? null : $"the app answered HTTP {(int)response.StatusCode}";
            return _refused is null;
        }
        catch (Exception ex) when (ex is OperationCanceledException or HttpRequestException or IOException)
        {
            // Cut by the time limit (the batch cap: not counted) or failed: recorded as the engine records a failed request.
            if (run.Fail(ex, timedOut: false) is var outcome && outcome != RequestOutcome.Stopped)
            {
                recorder.Current.Record(outcome, 0, 0, 0, 0);
            }
            return false;
        }
    }

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
                await stream.WriteAsync(Chunk.AsMemory(0, (int)Math.Min(ChunkSize, left)), cancellationToken).ConfigureAwait(false);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = _bytes;
            return true;
        }
    }
}
