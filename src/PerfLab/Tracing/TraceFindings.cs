using System.Globalization;

namespace PerfLab.Tracing;

public enum TraceFindingKind
{
    Contention,
    SyncOverAsync,
    GcHeadroom,
    CpuComponent,
}

/// <summary>One thing a trace shows, with the evidence behind it.</summary>
/// <param name="Place">Where: a call site ("CulpritsApi.HoldLock"), or a component name.</param>
/// <param name="Evidence">Figures and a stack (root first) a reader can check the message against.</param>
/// <param name="Strong">False when it rests on few events or samples (see the thresholds in <see cref="TraceFindings"/>).</param>
/// <param name="Title">What the finding is, when its kind alone would say less or wrong ("Pool thread blocked in
/// Thread.Sleep()", not "sync over async"); null when the kind's own name says it.</param>
public sealed record TraceFinding(TraceFindingKind Kind, string Place, string Message, IReadOnlyList<string> Evidence, bool Strong,
    string? Title = null);

/// <summary>Turns a <see cref="TraceProfile"/> into findings. No evidence, no finding; little evidence, a weak one.</summary>
public static class TraceFindings
{
    // A contention site is strong from 20 contentions and 10 ms blocked: fewer is a lock that happened to collide.
    internal const long StrongContentions = 20;
    internal const double StrongBlockedMs = 10;
    // Sites below 1 ms blocked in the whole trace are noise (a pool's own locks colliding once) and are not reported.
    public const double MinBlockedMs = 1;
    // Nor are sites that block a request for less than 10 µs on average: a lock that collided a few times in thousands.
    private const double MinBlockedMsPerRequest = 0.01;
    // A blocking-wait site needs 50 samples (50 ms of thread time at the default 1 ms interval) to be strong.
    private const long StrongWaitSamples = 50;
    private const long MinWaitSamples = 2;
    // A blocking site explains the latency when half the mean latency or more is spent blocked there.
    private const double ExplainsLatency = 0.5;
    /// <summary>Fewer completed requests than this while tracing give no per-request figure: too few to divide by.</summary>
    public const long MinRequests = 10;
    // CPU shares rest on samples: 500 on-CPU samples (0.5 s of CPU) make a share steady to a few percent.
    public const long StrongCpuSamples = 500;
    // GC headroom is strong from 10 GCs seen with the CPU samples above.
    private const int StrongGcCount = 10;
    private const int MaxSites = 3;
    // A site whose frames have no names (a trace without its rundown) points nowhere: no finding.
    private const string Unnamed = "?";
    private const int EvidenceFrames = 12;

    /// <param name="requests">Requests completed while the trace ran; fewer
    /// than <see cref="MinRequests"/> gives per-second figures instead.</param>
    /// <param name="meanLatencyMs">The requests' mean latency, when known: a blocking site that explains most of it is strong.</param>
    public static IReadOnlyList<TraceFinding> From(TraceProfile profile, long requests, double meanLatencyMs = double.NaN)
    {
        requests = requests >= MinRequests ? requests : 0;
        var findings = new List<TraceFinding>();
        findings.AddRange(Contention(profile, requests));
        findings.AddRange(SyncOverAsync(profile, requests, meanLatencyMs));
        findings.AddRange(Gc(profile));
        findings.AddRange(LargestComponent(profile, requests));
        return findings;
    }

    private static IEnumerable<TraceFinding> Contention(TraceProfile profile, long requests) =>
        // A site needs contention events: CPU in a lock's slow path alone is also how an inflated Monitor is taken
        // uncontended, so it adds to a site's cost but makes no finding.
        profile.Contention.Where(c => c.Count > 0 && c.BlockedMs >= MinBlockedMs && c.ExampleStack.Count > 0 && c.Place != Unnamed
                                     && (requests <= 0 || c.BlockedMs / requests >= MinBlockedMsPerRequest))
            .Take(MaxSites)
            .Select(c => new TraceFinding(TraceFindingKind.Contention, c.Place,
                F($"lock taken in {c.Place}(){From(c.Place, c.AppPlace)}: {c.Count} ") +
                    F($"contentions, {Per(c.BlockedMs, profile, requests, " blocked")}") +
                    (c.AcquireCpuMs >= MinBlockedMs ? F($" (+{Per(c.AcquireCpuMs, profile, requests, " on CPU acquiring it")})") : ""),
                [F($"{c.Count} ContentionStop events, {c.BlockedMs:F1} ms blocked in {profile.TracedSeconds:F1} s traced"),
                    F($"{c.AcquireCpuMs:F1} ms of CPU in the lock's slow path, spinning or acquiring (on-CPU samples)"),
                    .. Leafmost(c.ExampleStack)],
                c.Count >= StrongContentions && c.BlockedMs >= StrongBlockedMs));

    private static IEnumerable<TraceFinding> SyncOverAsync(TraceProfile profile, long requests, double meanLatencyMs) =>
        // The costliest per request first: the report's evidence leads with it.
        profile.BlockingWaits.Where(w => w.Samples >= MinWaitSamples && w.Place != Unnamed)
            .Select(w => BlockingFinding(profile, w, requests, meanLatencyMs)).OrderByDescending(f => f.Cost).Take(MaxSites)
            .Select(f => f.Finding);

    // Strong with enough samples, and, when the latency is known, when the blocked time explains most of it.
    // Per request: over the requests served wholly inside the trace where it has their events (RequestTally), else the
    // thread time over the requests completed while it ran.
    private static (double Cost, TraceFinding Finding) BlockingFinding(TraceProfile profile, BlockingWaitSite w, long requests,
        double meanLatencyMs)
    {
        var served = profile.Requests is { Requests: >= MinRequests } r && double.IsFinite(w.MsPerRequest) ? r : null;
        // Over its own route's requests where the trace has them: a site on one of several loaded paths is that path's cost.
        var route = served is not null && w.Route is { Requests: >= MinRequests } sr ? sr : null;
        var perRequest = route?.MsPerRequest ?? (served is not null ? w.MsPerRequest : requests > 0 ? w.Ms / requests : double.NaN);
        // The same requests' time on the server, start to stop event, where known: a starved pool's queue adds to the
        // client's latency what the blocking caused, and would make the blocking look minor (150 ms of 1.8 s seen).
        meanLatencyMs = route?.MeanMs ?? served?.MeanMs ?? meanLatencyMs;
        var explains = double.IsFinite(meanLatencyMs) && meanLatencyMs > 0 && double.IsFinite(perRequest)
            ? perRequest / meanLatencyMs : double.NaN;
        var evidence = new List<string>
        {
            F($"{w.Samples} samples of {Threads(w).Plural} blocked there ({w.Ms:F0} ms of thread time, from the sampler's ")
                + F($"stacks), at least {w.Waits} waits"),
        };
        if (served is not null)
        {
            evidence.Add(F($"{perRequest:F1} ms blocked per request of their {meanLatencyMs:F1} ms on the server ({explains * 100:F0} %), ")
                + (route is null ? "over " : F($"over the {route.Requests} requests to {route.Path} of "))
                + F($"the {served.Requests} requests served wholly inside the trace (their start and stop events, their ")
                + F($"threads' samples, {route?.TimedWaits ?? served.TimedWaits} waits timed by the runtime's own wait events; ")
                + F($"{served.LeftOut} in flight at its ends left out)"));
        }
        else if (double.IsFinite(explains))
        {
            evidence.Add(F($"{perRequest:F1} ms blocked per request against a mean latency of {meanLatencyMs:F1} ")
                + F($"ms ({explains * 100:F0} %)"));
        }
        if (profile.PoolThreads is { } pool)
        {
            evidence.Add(F($"pool threads blocked at once: {pool.BlockedAtOnceMean:F1} on average, up to {pool.BlockedAtOnceMax}"));
        }
        evidence.Add(F($"thread pool: {profile.ThreadPool.BlockingAdjustments} threads added for blocked ")
            + F($"threads, {profile.ThreadPool.StarvationAdjustments} for starvation, up ")
            + F($"to {profile.ThreadPool.MaxWorkerThreads} workers"));
        evidence.AddRange(Leafmost(w.ExampleStack));
        var strong = w.Samples >= StrongWaitSamples && (!double.IsFinite(explains) || explains >= ExplainsLatency);
        var cost = double.IsFinite(perRequest) ? F($"{perRequest:F2} ms per request") : Per(w.Ms, profile, 0);
        var place = Handler(w);
        return (double.IsFinite(perRequest) ? perRequest : w.Ms, new TraceFinding(TraceFindingKind.SyncOverAsync, place,
            F($"{CallName(w)} in {place}{From(w.Place, w.AppPlace)} blocks {Threads(w).Plural} {cost}")
                + (route is null ? "" : F($" to {route.Path}"))
                + F($"; {w.Advice}"),
            evidence, strong, F($"{Threads(w).Title} blocked in {CallName(w)}")));
    }

    // The kind of thread a site held, as the finding names it: a request served outside the pool is no pool thread.
    private static (string Title, string Plural) Threads(BlockingWaitSite w) => w.PoolThreads
        ? ("Pool thread", "pool threads")
        : ("Request thread (not a pool thread)", "request threads outside the pool");

    /// <summary>
    /// The place as a user finds it: a handler the JIT inlined into ASP.NET Core's compiled endpoint delegate leaves no
    /// frame of its own, so the route it serves names it ("the handler of /weatherforecast-sync").
    /// </summary>
    public static string Handler(BlockingWaitSite w) =>
        w.Route is { } route && OffCpuCall.IsEndpointDelegate(w.Frame)
            ? (w.Handler is { } handler ? F($"{handler}, ") : "") + F($"the handler of {route.Path} (inlined into its endpoint delegate)")
            : w.Place;

    /// <summary>"Thread.Sleep()", "Task.Wait()", "File.ReadAllBytes() (synchronous file I/O)": the call as the stack names it.</summary>
    public static string CallName(BlockingWaitSite w)
    {
        if (w.Call == BlockingCalls.PInvoke.Name)
        {
            return w.Native is { } native ? F($"{native} via P/Invoke") : w.Call;
        }
        var frame = BlockingCalls.Display(w.WaitFrame);
        return w.Call.StartsWith("synchronous", StringComparison.Ordinal) ? F($"{frame} ({w.Call})") : frame;
    }

    private static IEnumerable<TraceFinding> Gc(TraceProfile profile)
    {
        var gc = profile.Gc;
        if (gc.Count == 0 || profile.CpuMs <= 0)
        {
            yield break;
        }
        // If every GC cycle vanished, at most the GC's part of the CPU comes back: the bound on what any GC setting buys
        // when the app is CPU-bound. With server GC the share is a range (pauses once .. times heaps); the bound is its top.
        var share = gc.ShareOfCpuUpper - gc.ShareOfCpu >= 0.0005
            ? F($"{gc.ShareOfCpu * 100:F1}-{gc.ShareOfCpuUpper * 100:F1} %")
            : F($"{gc.ShareOfCpu * 100:F1} %");
        yield return new TraceFinding(TraceFindingKind.GcHeadroom, "GC",
            F($"GC is {share} of CPU here (pause {gc.PauseShareOfWall * 100:F1} % of wall time): no GC mode can move RPS by more than ")
                + F($"about {gc.ShareOfCpuUpper * 100:F0} %"),
            [F($"{gc.Count} GCs (gen0 {gc.CountByGeneration[0]}, gen1 {gc.CountByGeneration[1]}, ")
                + F($"gen2 {gc.CountByGeneration[2]}), {gc.PauseMs:F1} ms paused (at most {gc.CpuUpperMs:F0} ms of GC CPU with every ")
                + F($"heap's thread busy), GC mode {gc.Mode}, up to {gc.Heaps} heap(s)"),
                F($"{profile.CpuSamples} on-CPU samples, {profile.CpuMs:F0} ms of CPU including the pauses")],
            gc.Count >= StrongGcCount && profile.CpuSamples >= StrongCpuSamples);
    }

    private static IEnumerable<TraceFinding> LargestComponent(TraceProfile profile, long requests)
    {
        if (profile.CpuSamples == 0 || profile.Components.Count == 0)
        {
            yield break;
        }
        var top = profile.Components[0];
        var evidence = new List<string>
        {
            string.Join(", ", profile.Components.Select(c => F($"{c.Component} {c.Ms:F0} ms ({c.Share * 100:F0} %)"))),
        };
        if (top.HeaviestStack is { } stack)
        {
            evidence.Add(F($"its heaviest stack, {stack.Samples} samples:"));
            evidence.AddRange(Leafmost(stack.Frames));
        }
        else if (top.Component == Component.Gc)
        {
            evidence.Add(F($"GC time from {profile.Gc.Count} GCs' pauses ({profile.Gc.PauseMs:F0} ms), which the sampler cannot see"));
        }
        yield return new TraceFinding(TraceFindingKind.CpuComponent, top.Component.ToString(),
            F($"{top.Component} is the largest CPU component: {top.Share * 100:F0} % of CPU, {Per(top.Ms, profile, requests)}"),
            evidence, profile.CpuSamples >= StrongCpuSamples);
    }

    private static string Per(double ms, TraceProfile profile, long requests, string what = "") => requests > 0
        ? F($"{ms / requests:F2} ms{what} per request")
        : F($"{ms / Math.Max(profile.TracedSeconds, 1e-9):F1} ms{what} per second traced");

    // A site in a library (a lock inside ConcurrentDictionary) also names the app code that led there.
    private static string From(string place, string? appPlace) =>
        appPlace is null || appPlace == place ? "" : F($" (called from {appPlace}())");

    private static IEnumerable<string> Leafmost(IReadOnlyList<string> stack) =>
        stack.Skip(Math.Max(0, stack.Count - EvidenceFrames)).Select(f => "  " + FrameNames.MethodPart(f));

    private static string F(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
