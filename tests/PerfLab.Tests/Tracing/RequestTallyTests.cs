using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

// The arithmetic of blocked time per request on known timelines: a thread sampled at a steady or uneven tick, blocked
// over a known stretch, with requests that start and stop around it.
public sealed class RequestTallyTests
{
    private const string Site = "App.Handler\nThread.Sleep";

    [Theory]
    [InlineData(1.0)]
    [InlineData(7.0)] // a busy machine's stretched tick: the wait's edges still fall between samples
    public void Summary_OneThreadBlockedFortyMsInsideItsRequest_FortyMsPerRequest(double tickMs)
    {
        var tally = new RequestTally();
        var request = Guid.NewGuid();
        tally.Start(request, thread: 1, ms: 3, "/sync");
        // Samples at 0, tick, 2 tick ... 140; blocked from 20 to 60 (the midpoints of a sample on each side of the edges).
        for (var t = 0.0; t <= 140; t += tickMs)
        {
            tally.Sample(1, t, t >= 20 && t < 60 ? Site : null);
        }
        tally.Stop(request, 100);

        var summary = tally.Summary(maxPaths: 5)!;

        Assert.Equal(1, summary.Requests);
        Assert.Equal(40, summary.BlockedMsPerRequest, tickMs);
        Assert.Equal(40, summary.BySite[Site], tickMs);
        Assert.Equal(97, summary.MeanMs, 6);
        Assert.Equal("/sync", Assert.Single(summary.Paths).Path);
    }

    [Fact]
    public void Summary_RequestsInFlightAtTheEndsOrHandingTheirThreadOn_CountOnlyWhatTheyHeld()
    {
        var tally = new RequestTally();
        var (early, awaiting, next, late) = (Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid());
        // Events in time order, as a trace delivers them, between samples every 1 ms of threads 1 and 2.
        var events = new SortedList<double, Action>
        {
            [5.5] = () => tally.Stop(early, 5.5), // began before the trace
            [10.5] = () => tally.Start(awaiting, 1, 10.5, "/async"),
            [30.5] = () => tally.Start(next, 1, 30.5, "/sync"),
            [75.5] = () => tally.Stop(next, 75.5),
            [80.5] = () => tally.Stop(awaiting, 80.5), // its thread ran another request meanwhile, which blocked
            [90.5] = () => tally.Start(late, 2, 90.5, "/sync"), // still in flight at the end
        };
        for (var t = 0.0; t <= 100; t++)
        {
            foreach (var e in events.Where(e => e.Key > t - 1 && e.Key < t))
            {
                e.Value();
            }
            tally.Sample(1, t, t is >= 40 and < 70 ? Site : null);
            tally.Sample(2, t, null);
        }

        var summary = tally.Summary(maxPaths: 5)!;

        // The awaiting request held thread 1 from 10.5 to 30.5 only; the next one holds the 30 ms of blocking.
        Assert.Equal(2, summary.Requests);
        Assert.Equal(2, summary.LeftOut); // one stopped without a start in the trace, one still in flight at its end
        Assert.Equal(15, summary.BlockedMsPerRequest, 6);
        Assert.Equal(0, summary.Paths.Single(p => p.Path == "/async").BlockedMsPerRequest, 6);
        Assert.Equal(30, summary.Paths.Single(p => p.Path == "/sync").BlockedMsPerRequest, 6);
    }

    // The runtime timed the wait (WaitHandleWaitStart/Stop, .NET 9+): its edges are exact whatever the tick, and its
    // site is the one the samples inside it name; samples outside timed waits still count as before.
    [Theory]
    [InlineData(1.0)]
    [InlineData(13.0)]
    public void Summary_WaitTimedByTheRuntime_ExactEdgesAtTheSampledSite(double tickMs)
    {
        var tally = new RequestTally();
        var request = Guid.NewGuid();
        tally.Start(request, thread: 1, ms: 3, "/event");
        tally.WaitStart(1, 20.3, "App.Handler\nWaitHandle.WaitOne");
        tally.WaitStop(1, 61.7);
        for (var t = 0.0; t <= 140; t += tickMs)
        {
            tally.Sample(1, t, t is >= 20.3 and < 61.7 ? Site : null);
        }
        tally.WaitStart(1, 141, Site); // open at the end: no interval
        tally.Stop(request, 100);

        var summary = tally.Summary(maxPaths: 5)!;

        Assert.Equal(41.4, summary.BlockedMsPerRequest, 6);
        // The samples' site, not the event stack's (which the samples name whenever any fall inside the wait).
        Assert.Equal(41.4, summary.BySite[Site], 6);
        Assert.Equal(1, summary.TimedWaits);
    }

    [Fact]
    public void Summary_TimedWaitsShorterThanATickOrOfNoSite_EventSiteOrNothing()
    {
        var tally = new RequestTally();
        var request = Guid.NewGuid();
        tally.Start(request, thread: 1, ms: 0.5, "/event");
        for (var t = 0.0; t <= 20; t += 10)
        {
            tally.Sample(1, t, null);
            tally.WaitStart(1, t + 1, t < 10 ? Site : null); // the first at a site, the second the runtime's own
            tally.WaitStop(1, t + 3.5);
        }
        tally.Stop(request, 19);

        var summary = tally.Summary(maxPaths: 5)!;

        Assert.Equal(2.5, summary.BlockedMsPerRequest, 6);
        Assert.Equal(1, summary.TimedWaits);
    }

    [Fact]
    public void Summary_NoRequestEvents_Null()
    {
        var tally = new RequestTally();
        tally.Sample(1, 0, Site);
        tally.Sample(1, 1, Site);

        Assert.Null(tally.Summary(maxPaths: 5));
    }
}
