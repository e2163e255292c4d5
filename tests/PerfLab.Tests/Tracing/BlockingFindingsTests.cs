using PerfLab.Load;
using PerfLab.Tracing;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Tracing;

public sealed class BlockingFindingsTests
{
    private static readonly BlockingWaitSite s_sleep = new("Program.Get", "App.Program.Get", "System.Threading.Thread.Sleep", 60, 3_000, 3_000,
        TraceFindingsTests.s_stack, "Program.Get", "Thread.Sleep", "await Task.Delay instead");

    [Fact]
    public void From_BlockedTimeExplainsTheLatency_StrongFindingNamesCallPlaceAndAdvice()
    {
        var profile = TraceFindingsTests.Profile(cpuSamples: 2_000, gcCount: 0) with { BlockingWaits = [s_sleep] };

        // 3000 ms blocked over 20 requests is 150 ms each, of a 160 ms mean latency.
        var finding = TraceFindings.From(profile, requests: 20, meanLatencyMs: 160).Single(f => f.Kind == TraceFindingKind.SyncOverAsync);

        Assert.Equal("Thread.Sleep() in Program.Get blocks pool threads 150.00 ms per request; await Task.Delay instead", finding.Message);
        Assert.True(finding.Strong);
        Assert.Contains("150.0 ms blocked per request against a mean latency of 160.0 ms (94 %)", finding.Evidence);
    }

    [Theory]
    [InlineData("System.Threading.Tasks.Task.Wait", "Task.Wait()")]
    // A Release build's JIT inlines the call into its caller, and Task's own wait is the outermost frame left.
    [InlineData("System.Private.CoreLib!System.Threading.Tasks.Task.InternalWait", "Task.Wait(), .Result or GetResult() (inlined)")]
    [InlineData("System.Threading.Tasks.Task.SpinThenBlockingWait", "Task.Wait(), .Result or GetResult() (inlined)")]
    [InlineData("System.Threading.Tasks.Task`1[System.String].GetResultCore", "Task.Wait(), .Result or GetResult() (inlined)")]
    public void CallName_TaskWaitFrames_TheCallTheCodeMade(string waitFrame, string expected)
    {
        var site = s_sleep with { WaitFrame = waitFrame, Call = "Task wait" };

        Assert.Equal(expected, TraceFindings.CallName(site));
    }

    [Fact]
    public void From_BlockedTimeASmallPartOfTheLatency_Weak()
    {
        var profile = TraceFindingsTests.Profile(cpuSamples: 2_000, gcCount: 0) with { BlockingWaits = [s_sleep] };

        var finding = TraceFindings.From(profile, requests: 20, meanLatencyMs: 1_500).Single(f => f.Kind == TraceFindingKind.SyncOverAsync);

        Assert.False(finding.Strong);
    }

    // sleep-vs-delay's sync variant (smoke profile, 2026-11-28): a starved pool queues the bursts' requests before they
    // start, so the client saw 1,798 ms of mean latency for 150.5 ms blocked; on the server those requests took 150.7 ms.
    [Fact]
    public void From_RequestsServedWholeInsideTheTrace_TheirFigureAndTheirServerTimeDecide()
    {
        var served = new RequestBlocking(480, 20, 150.5, 150.7, new Dictionary<string, double>(), []);
        var profile = TraceFindingsTests.Profile(cpuSamples: 2_000, gcCount: 0) with
        {
            BlockingWaits = [s_sleep with { MsPerRequest = 150.5 }],
            Requests = served,
        };

        // 3000 ms over 20 completed requests would be 150 ms each; the requests' own figure is 150.5.
        var finding = TraceFindings.From(profile, requests: 20, meanLatencyMs: 1_798).Single(f => f.Kind == TraceFindingKind.SyncOverAsync);

        Assert.Equal("Thread.Sleep() in Program.Get blocks pool threads 150.50 ms per request; await Task.Delay instead", finding.Message);
        Assert.Equal("Pool thread blocked in Thread.Sleep()", finding.Title);
        Assert.True(finding.Strong);
        Assert.Contains(finding.Evidence, e => e.StartsWith("150.5 ms blocked per request of their 150.7 ms on the server (100 %), over the 480 "
            + "requests served wholly inside the trace", StringComparison.Ordinal));
        Assert.Equal(150.5, EvidenceCapture.ToEvidence(profile, "sync", 1, 20, database: null).BlockingWaitMsPerRequest);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    public void From_TooFewRequests_PerSecondNeverPerRequest(long requests)
    {
        var profile = TraceFindingsTests.Profile(cpuSamples: 2_000, gcCount: 0) with { BlockingWaits = [s_sleep] };

        var findings = TraceFindings.From(profile, requests, meanLatencyMs: 160);

        Assert.DoesNotContain(findings, f => f.Message.Contains("per request", StringComparison.Ordinal));
        Assert.Contains("blocks pool threads 750.0 ms per second traced", findings.Single(f => f.Kind == TraceFindingKind.SyncOverAsync).Message);
    }

    [Fact]
    public void Between_TraceInsideTheLoad_CountsTheOverlappingSecondsOnly()
    {
        // 100 requests in each of seconds 1000..1009 but none in 1003-1004; a trace from 1001.5 to 1005.5.
        var seconds = Enumerable.Range(1000, 10).Select(s => new LoadSecond(s, false, s is 1003 or 1004 ? 0 : 100, 100, 1, 2, 0, 4)).ToList();
        var latency = new LatencyStats(800, 2, 0.5, 1, 2, 2.5, 3, 3.5, 4, 4.5, 5);
        var scenario = new ScenarioResult("s", new ClosedModel(4), "/x", 4, 800, 80, latency, null, 0, new ErrorCounts(0, new Dictionary<string, long>()),
            null, null, null, seconds);
        var load = new LoadResult(DateTimeOffset.FromUnixTimeSeconds(1000), DateTimeOffset.FromUnixTimeSeconds(1000),
            DateTimeOffset.FromUnixTimeSeconds(1010), false, null, new GeneratorUsage(1, 2, 0.5, 2, false, 10, 100, 0.1, "HTTP/1.1"), [scenario]);

        var requests = TracedRequests.Between(load, DateTimeOffset.FromUnixTimeMilliseconds(1_001_500), DateTimeOffset.FromUnixTimeMilliseconds(1_005_500));

        // Half of 1001, all of 1002, none in 1003 and 1004, half of 1005.
        Assert.Equal(200, requests);
        Assert.Equal(2, TracedRequests.MeanLatencyMs(load));
    }

    [Fact]
    public void Divisor_RequestsOutlastTheTrace_TheMeasuredRateStandsInForATimedLoad()
    {
        // db-wait's starved sync variant: 9.8 RPS, 12 s requests, none finishing inside a 5 s trace. 5022.6 ms of pool
        // thread time blocked per traced second over 9.8 requests a second is 512.5 ms per request: its 500 ms query.
        var (requests, note) = TracedRequests.Divisor(traced: 0, measuredRps: 9.8, tracedSeconds: 5.0, timed: true);

        Assert.Equal(49, requests);
        Assert.Equal(512.5, 5022.6 * 5.0 / requests, 1);
        Assert.Contains("9.8 RPS x 5.0 s = 49 requests", note, StringComparison.Ordinal);
        Assert.Equal((3L, (string?)null), TracedRequests.Divisor(traced: 3, measuredRps: 9.8, tracedSeconds: 5.0, timed: false));
        Assert.Equal((250L, (string?)null), TracedRequests.Divisor(traced: 250, measuredRps: 9.8, tracedSeconds: 5.0, timed: true));
        Assert.Equal((2L, (string?)null), TracedRequests.Divisor(traced: 2, measuredRps: 1.0, tracedSeconds: 5.0, timed: true));
    }
}
