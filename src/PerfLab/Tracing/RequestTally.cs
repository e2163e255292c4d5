namespace PerfLab.Tracing;

/// <summary>
/// Blocked time per request from the trace's own events, counted only over requests that began and ended while the
/// trace ran. ASP.NET Core's hosting events (Microsoft.AspNetCore.Hosting RequestStart/RequestStop, paired by the
/// activity ID the runtime gives them while TplEventSource flows activity IDs) say when each request ran and on which
/// thread it started; the sampler's stacks of that thread say when it was blocked. A request holds the thread it
/// started on until it stops or the thread starts another request (an awaiting handler hands its thread back), and its
/// blocked time is that thread's blocked time over that stretch. A sample stands for the time from the midpoint with
/// the thread's previous sample to the midpoint with its next, so a wait's edges fall between samples and the figure
/// does not depend on the sampler's tick (1 ms, stretched to 13-19 ms on a busy machine). Requests still in flight at
/// either end of the trace are left out: their blocking is partly outside it, and dividing the whole trace's blocked
/// samples by the completions inside it over- or understates a request's share (a 150 ms sleep read 200 ms that way).
/// A handler that continues on another thread before it blocks (after an await) is not followed there.
/// Where the runtime times a wait itself (.NET 9+: WaitHandleWaitStart/Stop, for WaitHandle.WaitOne and Monitor.Wait,
/// so also the ManualResetEventSlim, SemaphoreSlim, Task.Wait and Process.WaitForExit built on them), the wait's
/// own start and stop replace the samples inside it: its time is exact, its site the sampled stacks' inside it (else
/// the event's own stack). Waits with no such event (Thread.Sleep, Thread.Join, a P/Invoke, synchronous I/O, any
/// wait on .NET 8) keep the samples' time.
/// </summary>
internal sealed class RequestTally
{
    private readonly Dictionary<int, ThreadLine> _threads = [];
    private readonly Dictionary<Guid, (int Thread, double Ms, string Path)> _open = [];
    private readonly List<Served> _served = [];
    private readonly Dictionary<int, (double Ms, string? Site)> _waiting = [];
    private int _unpaired;

    /// <param name="blockedAt">The blocking site the sample is in (<see cref="WaitTally.Add"/>), null when not blocked.</param>
    public void Sample(int thread, double ms, string? blockedAt)
    {
        var line = _threads.GetValueOrDefault(thread) ?? AddThread(thread);
        line.Times.Add(ms);
        line.Sites.Add(blockedAt);
    }

    /// <summary>The runtime's WaitHandleWaitStart on <paramref name="thread"/>.</summary>
    /// <param name="site">The blocking site the event's own stack is at, null when not one (the pool's own wait).</param>
    public void WaitStart(int thread, double ms, string? site) => _waiting.TryAdd(thread, (ms, site));

    /// <summary>
    /// The runtime's WaitHandleWaitStop: the thread's open wait is one exact interval (none open: it began before the trace).
    /// </summary>
    public void WaitStop(int thread, double ms)
    {
        if (_waiting.Remove(thread, out var start))
        {
            (_threads.GetValueOrDefault(thread) ?? AddThread(thread)).Waits.Add(new Wait(start.Ms, ms, start.Site));
        }
    }

    public void Start(Guid activity, int thread, double ms, string path)
    {
        if (activity == Guid.Empty)
        {
            _unpaired++; // without an activity ID its stop cannot be told from another request's
            return;
        }
        _open[activity] = (thread, ms, path);
        (_threads.GetValueOrDefault(thread) ?? AddThread(thread)).Starts.Add(ms);
    }

    public void Stop(Guid activity, double ms)
    {
        if (_open.Remove(activity, out var start))
        {
            _served.Add(new Served(start.Thread, start.Ms, ms, start.Path));
        }
        else if (activity != Guid.Empty)
        {
            _unpaired++; // began before the trace did
        }
    }

    /// <summary>
    /// Blocked ms per request over the requests served wholly inside the sampled span, in all and by site key; null
    /// when the trace holds no request events (not an ASP.NET Core app, or a trace without the hosting provider).
    /// </summary>
    public RequestBlocking? Summary(int maxPaths)
    {
        if (_served.Count == 0 && _open.Count == 0 && _unpaired == 0)
        {
            return null;
        }
        var bySite = new Dictionary<string, double>();
        var byPathSite = new Dictionary<(string Path, string Site), (double Ms, long Timed)>();
        var byPath = new Dictionary<string, (long Requests, double BlockedMs, double Ms)>();
        long requests = 0, timedWaits = 0;
        double blocked = 0, served = 0;
        foreach (var r in _served)
        {
            if (!_threads.TryGetValue(r.Thread, out var line) || !line.Covers(r.StartMs, r.StopMs))
            {
                continue; // it began or ended outside what the sampler saw of its thread
            }
            var ms = line.BlockedMs(r.StartMs, line.Holds(r.StartMs, r.StopMs), (site, t, timed) =>
            {
                bySite[site] = bySite.GetValueOrDefault(site) + t;
                var previous = byPathSite.GetValueOrDefault((r.Path, site));
                byPathSite[(r.Path, site)] = (previous.Ms + t, previous.Timed + (timed ? 1 : 0));
                timedWaits += timed ? 1 : 0;
            });
            requests++;
            blocked += ms;
            served += r.StopMs - r.StartMs;
            var p = byPath.GetValueOrDefault(r.Path);
            byPath[r.Path] = (p.Requests + 1, p.BlockedMs + ms, p.Ms + r.StopMs - r.StartMs);
        }
        double Per(double ms) => requests > 0 ? ms / requests : double.NaN;
        return new RequestBlocking(requests, _served.Count - requests + _open.Count + _unpaired, Per(blocked), Per(served),
            bySite.ToDictionary(s => s.Key, s => Per(s.Value)),
            byPath.OrderByDescending(p => p.Value.Requests).Take(maxPaths)
                .Select(p => new PathBlocking(p.Key, p.Value.Requests, p.Value.BlockedMs / p.Value.Requests, p.Value.Ms / p.Value.Requests))
                .ToList(),
            Routes(byPathSite, byPath.ToDictionary(p => p.Key, p => (p.Value.Requests, p.Value.Ms))), timedWaits);
    }

    // Each site's route: the path whose requests it blocked longest in all, its time per request of that path, and how
    // many of its waits there the runtime timed.
    private static Dictionary<string, SiteRoute> Routes(Dictionary<(string Path, string Site), (double Ms, long Timed)> byPathSite,
        Dictionary<string, (long Requests, double Ms)> paths) =>
        byPathSite.GroupBy(p => p.Key.Site)
            .ToDictionary(g => g.Key, g =>
            {
                var top = g.MaxBy(p => p.Value.Ms);
                var path = paths[top.Key.Path];
                return new SiteRoute(top.Key.Path, path.Requests, top.Value.Ms / path.Requests, path.Ms / path.Requests, top.Value.Timed);
            });

    private ThreadLine AddThread(int thread)
    {
        var line = new ThreadLine();
        _threads.Add(thread, line);
        return line;
    }

    private sealed record Served(int Thread, double StartMs, double StopMs, string Path);

    /// <summary>A wait the runtime timed, with the site its event's stack is at.</summary>
    private sealed record Wait(double StartMs, double StopMs, string? Site);

    /// <summary>One thread's samples in time order (as the source delivers them) and the requests started on it.</summary>
    private sealed class ThreadLine
    {
        public List<double> Times { get; } = [];
        public List<string?> Sites { get; } = [];
        public List<double> Starts { get; } = [];
        public List<Wait> Waits { get; } = [];

        public bool Covers(double from, double to) => Times.Count >= 2 && Times[0] <= from && Times[^1] >= to;

        /// <summary>Until the request stops, or until its thread starts another request, whichever comes first.</summary>
        public double Holds(double start, double stop)
        {
            var next = Starts.BinarySearch(start);
            next = next >= 0 ? next + 1 : ~next;
            return next < Starts.Count ? Math.Min(stop, Starts[next]) : stop;
        }

        /// <summary>
        /// Blocked ms in [from, to]: each timed wait's overlap with it, at the site sampled inside the wait; then each
        /// blocked sample's share of the time around it outside the timed waits, clipped to the span.
        /// </summary>
        /// <param name="atSite">Each site's part: its ms, and whether it was a wait the runtime timed.</param>
        public double BlockedMs(double from, double to, Action<string, double, bool> atSite)
        {
            double total = 0;
            var first = FirstWaitEndingAfter(from);
            for (var w = first; w < Waits.Count && Waits[w].StartMs < to; w++)
            {
                if ((SampledSite(Waits[w]) ?? Waits[w].Site) is not { } site)
                {
                    continue;
                }
                var ms = Overlap(Waits[w].StartMs, Waits[w].StopMs, from, to);
                total += ms;
                atSite(site, ms, true);
            }
            var i = Times.BinarySearch(from);
            i = Math.Max(0, (i >= 0 ? i : ~i) - 1);
            for (; i < Times.Count && Lower(i) < to; i++)
            {
                if (Sites[i] is not { } site)
                {
                    continue;
                }
                var (lo, hi) = (Math.Max(from, Lower(i)), Math.Min(to, Upper(i)));
                var ms = Math.Max(0, hi - lo);
                for (var w = first; w < Waits.Count && Waits[w].StartMs < hi; w++)
                {
                    // A sample inside a timed wait is that wait's, which counted it exactly; one beside it keeps what
                    // the wait does not cover.
                    ms = Times[i] >= Waits[w].StartMs && Times[i] <= Waits[w].StopMs
                        ? 0 : ms - Overlap(Waits[w].StartMs, Waits[w].StopMs, lo, hi);
                }
                ms = Math.Max(0, ms);
                total += ms;
                atSite(site, ms, false);
            }
            return total;
        }

        // The site of the first blocked sample inside the wait: the sampled stack names the call the app made.
        private string? SampledSite(Wait wait)
        {
            var i = Times.BinarySearch(wait.StartMs);
            for (i = i >= 0 ? i : ~i; i < Times.Count && Times[i] <= wait.StopMs; i++)
            {
                if (Sites[i] is { } site)
                {
                    return site;
                }
            }
            return null;
        }

        private int FirstWaitEndingAfter(double ms)
        {
            int lo = 0, hi = Waits.Count;
            while (lo < hi)
            {
                var mid = (lo + hi) / 2;
                (lo, hi) = Waits[mid].StopMs <= ms ? (mid + 1, hi) : (lo, mid);
            }
            return lo;
        }

        private static double Overlap(double a, double b, double from, double to) => Math.Max(0, Math.Min(b, to) - Math.Max(a, from));

        // The first and last samples stand for half their one neighbouring gap on their open side.
        private double Lower(int i) => i > 0 ? (Times[i - 1] + Times[i]) / 2 : Times[i] - (Upper(i) - Times[i]);

        private double Upper(int i) => i + 1 < Times.Count ? (Times[i] + Times[i + 1]) / 2
            : Times[i] + (i > 0 ? (Times[i] - Times[i - 1]) / 2 : 0);
    }
}

/// <summary>ASP.NET Core's request start and stop events (Microsoft.AspNetCore.Hosting's EventSource) into a tally.</summary>
internal static class RequestEvents
{
    public const string Provider = "Microsoft.AspNetCore.Hosting";
    // HostingEventSource's event IDs: RequestStart(method, path) is 3, RequestStop() 4.
    private const int RequestStart = 3;
    private const int RequestStop = 4;

    public static void Subscribe(Microsoft.Diagnostics.Tracing.TraceEventDispatcher source, RequestTally tally) =>
        source.AllEvents += e =>
        {
            if (e.ProviderName != Provider)
            {
                return;
            }
            switch ((int)e.ID)
            {
                case RequestStart:
                    tally.Start(e.ActivityID, e.ThreadID, e.TimeStampRelativeMSec, e.PayloadByName("path") as string ?? "?");
                    break;
                case RequestStop:
                    tally.Stop(e.ActivityID, e.TimeStampRelativeMSec);
                    break;
            }
        };
}
