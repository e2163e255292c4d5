using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

// One BlockingApp for the class, one short trace per culprit: each blocking call must be named with the app's method
// that made it, its advice, and its blocked time per request within 20 % of what the call really took. The app times
// each call itself: the thread that releases the waits runs late on a busy machine (a 30 ms event took 45-55 ms).
public sealed class BlockingCallTests(BlockingApp app) : IClassFixture<BlockingApp>
{
    private static readonly TimeSpan Traced = TimeSpan.FromSeconds(2.5);

    [Theory]
    [InlineData("sleep", "Thread.Sleep", "Culprits.Sleep", 50, @"^Thread\.Sleep\(\) in Culprits\.Sleep blocks pool threads \d+\.\d\d ms per request; await Task\.Delay instead$")]
    [InlineData("semaphore", "SemaphoreSlim.Wait", "Culprits.WaitSemaphore", 20, @"^SemaphoreSlim\.Wait\(\) in Culprits\.WaitSemaphore blocks .*; await SemaphoreSlim\.WaitAsync instead$")]
    [InlineData("event", "ManualResetEventSlim.Wait", "Culprits.WaitEvent", 30, @"^ManualResetEventSlim\.Wait\(\) in Culprits\.WaitEvent blocks .*; signal a TaskCompletionSource and await its Task instead$")]
    [InlineData("fifo", "synchronous file I/O", "Culprits.ReadFifo", 40, @"^File\.ReadAllBytes\(\) \(synchronous file I/O\) in Culprits\.ReadFifo blocks .*; use the async file API")]
    public async Task Analyze_BlockingEndpoint_NamesTheCallItsPlaceAndBlockedMsPerRequest(string culprit, string call, string place,
        double leastMs, string message)
    {
        var run = await app.TraceAsync("/" + culprit, users: 4, Traced);
        var why = run.Describe();

        var site = run.Profile.BlockingWaits.FirstOrDefault();
        Assert.True(site is not null, why);
        Assert.Equal(call, site.Call);
        Assert.Equal(place, site.AppPlace);
        var known = run.AppBlockedMs[culprit];
        Assert.True(known >= leastMs * 0.95, why);
        Assert.True(run.PerRequest(site) > known * 0.8 && run.PerRequest(site) < known * 1.2, why);
        // Over the requests the trace saw whole (their own start and stop events) alike. The app's own mean also holds
        // the 1.5 s before the trace (at load average 55: 56.0 ms against 50.1 ms inside the trace for a 50 ms sleep).
        Assert.True(site.MsPerRequest > known * 0.8 && site.MsPerRequest < known * 1.2, why);
        var finding = run.Findings.First(f => f.Kind == TraceFindingKind.SyncOverAsync);
        Assert.Matches(message, finding.Message);
        // Four users each blocked most of the time: about four pool threads blocked at once.
        Assert.True(run.Profile.PoolThreads!.BlockedAtOnceMean is > 1.5 and < 5, why);
    }

    // The negative control: the same waits awaited hold no pool thread.
    [Fact]
    public async Task Analyze_AwaitingEndpoint_NamesNoBlockingCall()
    {
        var run = await app.TraceAsync("/awaiting", users: 4, Traced);
        var why = run.Describe();

        Assert.True(run.Requests > 20, why);
        Assert.DoesNotContain(run.Profile.BlockingWaits, w => w.AppPlace is not null);
        Assert.DoesNotContain(run.Findings, f => f.Kind == TraceFindingKind.SyncOverAsync);
    }
}
