using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

public sealed class TraceFindingsTests
{
    internal static readonly string[] s_stack = ["Kestrel!Run", "App!App.Cache.Get", "System.Private.CoreLib!System.Threading.Monitor.Enter"];

    [Fact]
    public void From_KnownProfile_EachFindingSaysPlaceAndFigures()
    {
        var profile = Profile(cpuSamples: 2_000, gcCount: 40) with
        {
            Contention = [new ContentionSite("Cache.Get", "App.Cache.Get", 120, 600, s_stack)],
            BlockingWaits = [new BlockingWaitSite("Orders.Count", "App.Orders.Count", "System.Threading.Tasks.Task.Wait", 180, 400, 400, s_stack)],
        };

        var findings = TraceFindings.From(profile, requests: 200);

        Assert.Equal([TraceFindingKind.Contention, TraceFindingKind.SyncOverAsync, TraceFindingKind.GcHeadroom, TraceFindingKind.CpuComponent],
            findings.Select(f => f.Kind));
        Assert.All(findings, f => Assert.True(f.Strong));
        Assert.Equal("lock taken in Cache.Get(): 120 contentions, 3.00 ms blocked per request", findings[0].Message);
        Assert.Equal("Cache.Get", findings[0].Place);
        Assert.Contains("  App.Cache.Get", findings[0].Evidence);
        Assert.Equal("Task.Wait() in Orders.Count blocks pool threads 2.00 ms per request; await it instead", findings[1].Message);
        Assert.Equal("400 samples of pool threads blocked there (400 ms of thread time, from the sampler's stacks), at least 180 waits", findings[1].Evidence[0]);
        Assert.Equal("GC is 25.0 % of CPU here (pause 5.0 % of wall time): no GC mode can move RPS by more than about 25 %", findings[2].Message);
        Assert.Equal("App is the largest CPU component: 75 % of CPU, 15.00 ms per request", findings[3].Message);
        Assert.Equal(["App 3000 ms (75 %), Gc 1000 ms (25 %)", "its heaviest stack, 10 samples:", "  Run", "  App.Cache.Get",
            "  System.Threading.Monitor.Enter"], findings[3].Evidence);
    }

    [Fact]
    public void From_FewEvents_FindingsAreWeak_AndNoRequestsGivesPerSecond()
    {
        var profile = Profile(cpuSamples: 100, gcCount: 2) with
        {
            Contention = [new ContentionSite("Dictionary.TryAdd", "Lib.Dictionary.TryAdd", 3, 4, s_stack, AppPlace: "Cache.Get")],
        };

        var findings = TraceFindings.From(profile, requests: 0);

        Assert.All(findings, f => Assert.False(f.Strong));
        Assert.Equal("lock taken in Dictionary.TryAdd() (called from Cache.Get()): 3 contentions, 1.0 ms blocked per second traced",
            findings[0].Message);
    }

    [Fact]
    public void From_NoEvidence_NoFinding()
    {
        var profile = Profile(cpuSamples: 0, gcCount: 0) with
        {
            Components = [],
            Contention =
            [
                new ContentionSite("Cache.Get", "App.Cache.Get", 1, 0.2, s_stack),   // below 1 ms: noise
                new ContentionSite("?", "?", 500, 900, ["?!?"]),                    // no method names: points nowhere
                new ContentionSite("Pipe.Read", "Lib.Pipe.Read", 0, 0, s_stack, AcquireCpuMs: 50), // slow path, never blocked
            ],
            BlockingWaits = [new BlockingWaitSite("Orders.Count", "App.Orders.Count", "System.Threading.Tasks.Task.Wait", 1, 1, 1, s_stack)],
        };

        Assert.Empty(TraceFindings.From(profile, requests: 100));
    }

    // 4 s traced; CPU 4000 ms: App 3000, Gc 1000.
    internal static TraceProfile Profile(long cpuSamples, int gcCount) => new(
        TracedSeconds: 4, SampleIntervalMs: 1, TickIntervalMs: 1, CpuSamples: cpuSamples, WaitingSamples: 0,
        Components: [new ComponentTime(Component.App, 3000, 3000, 0.75, new SampledStack(s_stack, 10)), new ComponentTime(Component.Gc, 1000, 0, 0.25)],
        Gc: new GcSummary([gcCount, 0, 0], PauseMs: 200, PauseShareOfWall: 0.05, CpuMs: 1000, CpuUpperMs: 1000, ShareOfCpu: 0.25, ShareOfCpuUpper: 0.25, SampleShare: 0,
            Heaps: 5, Mode: "server"),
        Contention: [], BlockingWaits: [], ThreadPool: new ThreadPoolSummary(0, 0, 0, 4),
        TopStacks: [new SampledStack(s_stack, 10)], Stacks: [new SampledStack(s_stack, 10)], Warnings: []);
}
