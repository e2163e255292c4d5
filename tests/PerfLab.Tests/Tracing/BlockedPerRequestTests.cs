using System.Globalization;
using PerfLab.Experiments.Analysis;
using PerfLab.Reports;
using PerfLab.Testing;
using PerfLab.Tests.Reports;
using PerfLab.Tracing;
using Xunit.Abstractions;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Tracing;

/// <summary>
/// Blocked time per request, from the trace's request events and the request's own thread's samples, against endpoints
/// of the SUT whose blocking is known: a Thread.Sleep of 150 ms and of 10 ms, and a 500 ms pg_sleep through a
/// synchronous EF Core call. Each must read within 10 % of the wait (between what was asked and the requests' time on
/// the server); the awaiting twin reads (near) none.
/// </summary>
[Collection(QuietCollection.Name)]
public sealed class BlockedPerRequestTests(PostgresFixture postgres, ITestOutputHelper output) : IClassFixture<PostgresFixture>
{
    private static readonly TimeSpan Traced = TimeSpan.FromSeconds(3);

    // Enough pool threads from the start: every user's request blocks one, and a starved pool only delays requests.
    private static readonly Dictionary<string, string> Threads = new() { ["ThreadPool:MinWorkerThreads"] = "32" };

    [Theory]
    [InlineData("/weatherforecast-sync?ms=150", 150, 8)]
    [InlineData("/weatherforecast-sync?ms=10", 10, 4)]
    public async Task Analyze_ThreadSleepEndpoint_BlockedPerRequestWithinTenPercentOfTheSleep(string path, double sleepMs, int users)
    {
        var run = await CulpritTrace.RunAsync(path, users, Traced, Threads);
        var requests = Served(run);

        AssertWithinTenPercent(requests.BlockedMsPerRequest, sleepMs, run);
        var site = run.Profile.BlockingWaits.First();
        Assert.Equal("Thread.Sleep", site.Call);
        AssertWithinTenPercent(site.MsPerRequest, sleepMs, run);
        // The same figure all the way to the report: the finding, its title, the breakdown's blocking-wait ms/req.
        var finding = run.Findings.First(f => f.Kind == TraceFindingKind.SyncOverAsync);
        Assert.Contains(string.Create(CultureInfo.InvariantCulture, $"blocks pool threads {site.MsPerRequest:F2} ms per request"),
            finding.Message);
        var evidence = EvidenceCapture.ToEvidence(run.Profile, "sync", 1, run.Requests, database: null);
        Assert.Equal(requests.BlockedMsPerRequest, evidence.BlockingWaitMsPerRequest);
        var experiment = ReportFixtures.Sample().Experiments[0] with { Findings = [EvidenceFindings.ToFinding("sync", finding)] };
        var row = Assert.Single(ReportContent.Findings(experiment).Rows);
        Assert.Equal("Pool thread blocked in Thread.Sleep()", row[1].Text);
    }

    [Fact]
    public async Task Analyze_DatabaseWaitThroughSyncEfCore_BlockedPerRequestWithinTenPercentOfThePgSleep()
    {
        var run = await CulpritTrace.RunAsync("/diagnostics/sync?ms=500", users: 8, Traced, Threads,
            await postgres.CreateDatabaseAsync());
        var requests = Served(run);

        AssertWithinTenPercent(requests.BlockedMsPerRequest, 500, run);
        Assert.Equal("synchronous socket I/O", run.Profile.BlockingWaits.First().Call);
    }

    [Fact]
    public async Task Analyze_AwaitingEndpoint_NoBlockedTimePerRequest()
    {
        var run = await CulpritTrace.RunAsync("/weatherforecast-async?ms=150", users: 8, Traced, Threads);
        var requests = Served(run);

        Assert.True(requests.BlockedMsPerRequest < 1.5, CulpritTrace.Describe(run));
        Assert.InRange(requests.MeanMs, 150, 300);
    }

    private RequestBlocking Served(CulpritRun run)
    {
        var why = CulpritTrace.Describe(run);
        output.WriteLine(why);
        var requests = run.Profile.Requests;
        Assert.True(requests is not null, "no request events in the trace: " + why);
        // Requests wholly inside the trace: most of those the load completed while it ran, never more.
        Assert.InRange(requests.Requests, Math.Max(10, run.Requests / 2), run.Requests + 1);
        return requests;
    }

    // The wait really taken lies between what the code asked for and the same requests' time on the server (start to
    // stop event): a woken thread that waits for a core still holds its thread, and on this 2-core machine at load
    // average 45-55 a 10 ms Thread.Sleep held it 11.7 ms (12.9 ms on the server). Within 10 % of that span.
    private static void AssertWithinTenPercent(double measured, double asked, CulpritRun run)
    {
        var taken = Math.Max(asked, run.Profile.Requests!.MeanMs);
        Assert.True(measured >= asked * 0.9 && measured <= taken * 1.1,
            $"blocked {measured:F2} ms per request, the wait took {asked}-{taken:F2} ms: " + CulpritTrace.Describe(run));
    }
}
