using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

public sealed class TraceTalliesTests
{
    private const string Pool = "System.Private.CoreLib!System.Threading.ThreadPoolWorkQueue.Dispatch";
    private static readonly string[] s_lockA = [Pool, "App!App.Cache.Get", "System.Private.CoreLib!System.Threading.Monitor.Enter"];
    private static readonly string[] s_lockB = [Pool, "App!App.Log.Write", "System.Private.CoreLib!System.Threading.Lock.Enter"];

    [Fact]
    public void Contention_PairsPerThreadAndGroupsByCallSite()
    {
        var tally = new ContentionTally(exampleFrames: 10, app: new AppCode("App"));
        tally.Start(1, 100, s_lockA);
        tally.Start(2, 100, s_lockB);
        tally.Stop(1, 103, 0, s_lockA);              // no DurationNs (before .NET 8): the pair's 3 ms
        tally.Stop(2, 150, 2_000_000, s_lockB);      // DurationNs wins over the pair's 50 ms
        tally.Start(1, 200, s_lockA);
        tally.Stop(1, 207, 0, s_lockA);
        tally.Stop(3, 300, 0, s_lockA);              // began before the trace, length unknown: ignored

        var sites = tally.Sites([], sampleMs: 1);

        Assert.Equal(["Cache.Get", "Log.Write"], sites.Select(s => s.Place));
        Assert.Equal(2, sites[0].Count);
        Assert.Equal(10, sites[0].BlockedMs, 6);
        Assert.Equal(2, sites[1].BlockedMs, 6);
        Assert.Equal(s_lockA, sites[0].ExampleStack);
        Assert.Equal("Cache.Get", sites[0].AppPlace);
    }

    [Fact]
    public void Contention_InsideATaskWait_IsLeftToTheWaitAnalysis()
    {
        var tally = new ContentionTally(10);
        string[] wake = [Pool, "App!App.Handler", "System.Private.CoreLib!System.Threading.Tasks.Task.Wait",
            "System.Private.CoreLib!System.Threading.ManualResetEventSlim.Wait", "System.Private.CoreLib!System.Threading.Monitor.Enter"];

        tally.Stop(1, 10, 1_000_000, wake);

        Assert.Empty(tally.Sites([], 1));
    }

    [Fact]
    public void Contention_SpinningSamplesInTheSlowPath_AddSpinTimeAtTheCallSite()
    {
        var tally = new ContentionTally(10, new AppCode("App"));
        tally.Start(1, 0, s_lockB);
        tally.Stop(1, 5, 0, s_lockB);
        SampledStack[] cpu =
        [
            new([Pool, "App!App.Log.Write", "System.Private.CoreLib!System.Threading.Lock.TryEnterSlow",
                "System.Private.CoreLib!System.Threading.LowLevelSpinWaiter.Wait"], 30),
            new([Pool, "App!App.Stats.Add", "System.Private.CoreLib!System.Threading.Monitor.Enter_Slowpath"], 4),
            new([Pool, "App!App.Log.Write"], 500),   // running inside the lock: not spinning
        ];

        var sites = tally.Sites(cpu, sampleMs: 0.5);

        Assert.Equal(["Log.Write", "Stats.Add"], sites.Select(s => s.Place));
        Assert.Equal((1, 5.0, 15.0), (sites[0].Count, sites[0].BlockedMs, sites[0].AcquireCpuMs));
        Assert.Equal((0, 0.0, 2.0), (sites[1].Count, sites[1].BlockedMs, sites[1].AcquireCpuMs));
        Assert.Equal("Stats.Add", sites[1].AppPlace);
    }

    [Fact]
    public void Samples_ManagedAreCpuExternalAreWaiting_GcCpuAddedAsGc()
    {
        var tally = new SampleTally(new ComponentClassifier(new AppCode("App")));
        string[] app = [Pool, "App!App.Handler"];
        string[] json = [Pool, "App!App.Handler", "System.Text.Json!System.Text.Json.JsonSerializer.Serialize"];
        for (var i = 0; i < 300; i++)
        {
            tally.Add(1, i * 2.0, managed: true, i < 200 ? app : json);   // one sample every 2 ms
            tally.Add(2, i * 2.0, managed: false, app);
        }

        var components = tally.Components(tally.IntervalMs(gcPausedMs: 0), gcCpuMs: 100);

        Assert.Equal(2.0, tally.IntervalMs(0), 6);
        Assert.Equal((598.0 - 299) / 299, tally.IntervalMs(gcPausedMs: 299), 6);   // no ticks during pauses
        Assert.Equal((300, 300), (tally.Cpu, tally.Waiting));
        Assert.Equal([Component.App, Component.Json, Component.Gc], components.Select(c => c.Component));
        Assert.Equal([400.0, 200.0, 100.0], components.Select(c => c.Ms));
        Assert.Equal(400.0 / 700, components[0].Share, 6);
        Assert.Equal(2, tally.Stacks().Count);
        Assert.Equal(new SampledStack(app, 200), components[0].HeaviestStack);
        Assert.Null(components[2].HeaviestStack);
    }

    [Fact]
    public void Waits_PoolThreadsOnly_GroupedByCaller_RunsOfSamplesAreWaits()
    {
        var tally = new WaitTally(exampleFrames: 10);
        string[] blocked = [Pool, "App!App.Orders.Count", "System.Private.CoreLib!System.Threading.Tasks.Task`1[System.Int32].get_Result",
            "System.Private.CoreLib!System.Threading.Tasks.Task.SpinThenBlockingWait"];
        string[] finished = [Pool, "App!App.Orders.Count", "System.Private.CoreLib!System.Runtime.CompilerServices.TaskAwaiter.GetResult"];
        string[] running = [Pool, "App!App.Orders.Count"];
        string[] main = ["App!Program.Main", "System.Private.CoreLib!System.Runtime.CompilerServices.TaskAwaiter.GetResult"];
        for (var i = 0; i < 10; i++)
        {
            tally.Add(1, managed: i == 5, i == 5 ? running : blocked);  // two waits, split by one sample running
            tally.Add(2, managed: true, blocked);                       // spinning inside the wait: counts, one wait
            tally.Add(3, managed: true, finished);                      // GetResult on a finished task: does not
            tally.Add(4, managed: false, main);                         // Main waiting for host.Run(): not a pool thread
        }

        var site = Assert.Single(tally.Sites(intervalMs: 1.5));

        Assert.Equal("Orders.Count", site.Place);
        Assert.Equal("System.Threading.Tasks.Task`1.get_Result", site.WaitFrame);
        Assert.Equal((3, 19), (site.Waits, site.Samples));
        Assert.Equal(28.5, site.Ms, 6);
        Assert.Equal(blocked, site.ExampleStack);
    }

    [Fact]
    public void Waits_NothingButTheRuntimesCodeUnderTheWait_BlockedTimeButNoSite()
    {
        var tally = new WaitTally(exampleFrames: 10);
        // A work item of the runtime's own (an EventSource answering the trace session) waiting on a handle: no frame
        // under the wait is code anyone could change.
        string[] runtimes = [Pool, "System.Private.CoreLib!System.Diagnostics.Tracing.EventSource.SendCommand", "?",
            "System.Private.CoreLib!System.Threading.WaitHandle.WaitOneNoCheck"];
        string[] apps = [Pool, "App!App.Orders.Count", "System.Private.CoreLib!System.Threading.WaitHandle.WaitOneNoCheck"];
        for (var i = 0; i < 6; i++)
        {
            tally.Add(1, managed: false, runtimes);
            tally.Add(2, managed: false, apps);
        }

        var site = Assert.Single(tally.Sites(intervalMs: 1));

        Assert.Equal(("Orders.Count", "WaitHandle.WaitOne"), (site.Place, site.Call));
        Assert.Equal(12, tally.ThreadTime(intervalMs: 1).BlockedMs, 6);
    }

    [Fact]
    public void Gc_PausesOnlyForGcSuspensions_CpuIsPauseOnceAtMostTimesHeaps()
    {
        var gc = new GcTally();
        gc.Suspend(GCSuspendEEReason.SuspendOther, 0);   // the sampler's own suspension
        gc.Restart(1);
        gc.Start(0);
        gc.Suspend(GCSuspendEEReason.SuspendForGC, 10);
        gc.Heaps(2);
        gc.Restart(14);
        gc.Start(2);
        gc.Suspend(GCSuspendEEReason.SuspendForGC, 20);
        gc.Heaps(1);
        gc.Restart(21);

        var summary = gc.Summary(tracedMs: 100, cpuMs: 50, sampleShare: 0);

        Assert.Equal([1, 0, 1], summary.CountByGeneration);
        Assert.Equal(5, summary.PauseMs, 6);
        Assert.Equal(5, summary.CpuMs, 6);
        Assert.Equal(9, summary.CpuUpperMs, 6);   // 4 ms on 2 heaps, 1 ms on 1
        Assert.Equal(0.05, summary.PauseShareOfWall, 6);
        Assert.Equal(5.0 / 50, summary.ShareOfCpu, 6);
        Assert.Equal(9.0 / 54, summary.ShareOfCpuUpper, 6);
        Assert.Equal(("server", 2), (summary.Mode, summary.Heaps));
    }
}
