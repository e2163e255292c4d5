using System.Diagnostics;
using System.Reflection;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

/// <summary>
/// The generator's request step allocates nothing per request once warm: thousands of requests over a real Kestrel on
/// loopback, the bytes counted on the thread that completes them (the event loop's; the server allocates on its own
/// threads, which are not counted). Alone, because every class's requests complete on the same event threads.
/// </summary>
[Collection(QuietCollection.Name)]
public sealed class RequestAllocationTests
{
    private const int Warmup = 300;
    private const int Measured = 3000;

    /// <summary>
    /// Closed and open on a Content-Length response; closed on a chunked JSON body sent in two flushes (the reader
    /// awaits the second inside the body). Open: each request waits for its time on the pacer, one every millisecond.
    /// </summary>
    [Theory]
    [InlineData(false, "/fast")]
    [InlineData(true, "/fast")]
    [InlineData(false, "/json-chunked")]
    public async Task SendAsync_ThousandsOfRequestsOverKestrel_AllocateNothingPerRequest(bool open, string path)
    {
        await using var server = await TestServer.StartAsync();
        var url = server.Url(path);
        LoadModel model = open ? new OpenModel(1000, 1) : new ClosedModel(1);
        var plan = new ScenarioPlan("allocations", model, new RequestFeed(url.ToString()));
        var loadPlan = new LoadPlan([plan], TimeSpan.FromSeconds(30), TimeSpan.Zero, TimeSpan.FromSeconds(5));
        using var run = new ScenarioRun(plan, new ResolvedFeed([url], null, null), loadPlan, CancellationToken.None);
        var worker = new LoadWorker(0, run);

        using var pacer = Pacer.For(worker.Connection, run.Stop);
        var (bytes, threadChanged, grown) = await Task.Run(() => MeasureAsync(run, worker, open ? pacer : null));

        Assert.False(threadChanged, "the requests completed on different threads: their allocations cannot be counted on one");
        var recorded = run.Recorders.Snapshot();
        bytes -= Math.Min(bytes, grown * (long)LatencyHistogram.ChunkBytes);
        Assert.Equal(Warmup + Measured, recorded.Requests);
        Assert.Equal(Warmup + Measured, recorded.Latency.Count);
        Assert.Equal(open ? Warmup + Measured : 0, recorded.Uncorrected?.Count ?? 0);
        Assert.Equal(0, recorded.Errors);
        var perRequest = (double)bytes / Measured;
        Assert.True(perRequest <= (DebugBuild ? MaxPerRequestDebug : MaxPerRequest),
            $"{bytes} bytes allocated over {Measured} requests ({perRequest:0.00} a request, {(DebugBuild ? "Debug" : "Release")} build), "
            + $"besides {grown} histogram chunks for new latency ranges");
    }

    // Release (what perflab ships): nothing per request, as BenchmarkDotNet's memory diagnoser also finds for the step
    // (bench/PerfLab.LoadMicro). A Debug build makes every async method's state machine a class, one object per call:
    // 608-616 bytes a request were measured there with the body's framing in the reader's one async method (closed,
    // open through the pacer, and the two-flush chunked response alike; 1,320 were recorded before that change).
    private const double MaxPerRequest = 0.5;
    private const double MaxPerRequestDebug = 700;

    private static bool DebugBuild =>
        typeof(LoadEngine).Assembly.GetCustomAttribute<DebuggableAttribute>()?.IsJITOptimizerDisabled == true;

    /// <summary>
    /// Closed: each request at once; open: each at its time on the pacer, latency counted from it. Returns the bytes
    /// the measured requests allocated on their thread, and how many histogram chunks its recorder allocated meanwhile:
    /// a latency longer than any before (2 ms and more, on a busy machine) takes the chunk of its range once, storage
    /// for a new range rather than an allocation per request.
    /// </summary>
    private static async Task<(long Bytes, bool ThreadChanged, int Chunks)> MeasureAsync(ScenarioRun run, LoadWorker worker, Pacer? pacer)
    {
        var due = Stopwatch.GetTimestamp();
        int thread = 0;
        long before = 0;
        var chunks = 0;
        for (var i = 0; i < Warmup + Measured; i++)
        {
            if (i == Warmup)
            {
                chunks = Chunks(run.Recorders.Current);
                thread = Environment.CurrentManagedThreadId;
                before = GC.GetAllocatedBytesForCurrentThread();
            }
            due += Stopwatch.Frequency / 1000;
            Assert.True(pacer is null || await pacer.UntilAsync(due).ConfigureAwait(false));
            Assert.True(await run.SendAsync(worker, pacer is null ? 0 : due).ConfigureAwait(false));
        }
        var after = GC.GetAllocatedBytesForCurrentThread();
        return (after - before, Environment.CurrentManagedThreadId != thread, Chunks(run.Recorders.Current) - chunks);
    }

    private static int Chunks(ThreadRecorder recorder) => recorder.Latency.ChunksInUse + (recorder.Uncorrected?.ChunksInUse ?? 0);
}
