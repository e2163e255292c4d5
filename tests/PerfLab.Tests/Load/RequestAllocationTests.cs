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

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task SendAsync_ThousandsOfRequestsOverKestrel_AllocateNothingPerRequest(bool open)
    {
        await using var server = await TestServer.StartAsync();
        var url = server.Url("/fast");
        LoadModel model = open ? new OpenModel(1000, 1) : new ClosedModel(1);
        var plan = new ScenarioPlan("allocations", model, new RequestFeed(url.ToString()));
        var loadPlan = new LoadPlan([plan], TimeSpan.FromSeconds(30), TimeSpan.Zero, TimeSpan.FromSeconds(5));
        using var run = new ScenarioRun(plan, new ResolvedFeed([url], null, null), loadPlan, CancellationToken.None);
        var worker = new LoadWorker(0, run);

        var (bytes, threadChanged) = await Task.Run(() => MeasureAsync(run, worker, open));

        Assert.False(threadChanged, "the requests completed on different threads: their allocations cannot be counted on one");
        var recorded = run.Recorders.Snapshot();
        Assert.Equal(Warmup + Measured, recorded.Requests);
        Assert.Equal(Warmup + Measured, recorded.Latency.Count);
        Assert.Equal(open ? Warmup + Measured : 0, recorded.Uncorrected?.Count ?? 0);
        Assert.Equal(0, recorded.Errors);
        var perRequest = (double)bytes / Measured;
        Assert.True(perRequest <= (DebugBuild ? MaxPerRequestDebug : MaxPerRequest),
            $"{bytes} bytes allocated over {Measured} requests ({perRequest:0.00} a request, {(DebugBuild ? "Debug" : "Release")} build)");
    }

    // Release (what perflab ships): nothing per request, as BenchmarkDotNet's memory diagnoser also finds for the step
    // (bench/PerfLab.LoadMicro). A Debug build makes every async method's state machine a class, one object per call:
    // 1,320 bytes a request were measured there, closed and open alike (3,960,000-3,960,760 bytes over 3,000 requests).
    private const double MaxPerRequest = 0.5;
    private const double MaxPerRequestDebug = 1400;

    private static bool DebugBuild =>
        typeof(LoadEngine).Assembly.GetCustomAttribute<DebuggableAttribute>()?.IsJITOptimizerDisabled == true;

    private static async Task<(long Bytes, bool ThreadChanged)> MeasureAsync(ScenarioRun run, LoadWorker worker, bool open)
    {
        for (var i = 0; i < Warmup; i++)
        {
            Assert.True(await run.SendAsync(worker, open ? Stopwatch.GetTimestamp() : 0).ConfigureAwait(false));
        }
        var thread = Environment.CurrentManagedThreadId;
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < Measured; i++)
        {
            await run.SendAsync(worker, open ? Stopwatch.GetTimestamp() : 0).ConfigureAwait(false);
        }
        var after = GC.GetAllocatedBytesForCurrentThread();
        return (after - before, Environment.CurrentManagedThreadId != thread);
    }
}
