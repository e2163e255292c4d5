namespace PerfLab.Tracing;

/// <summary>What <see cref="TraceAnalysis.Analyze"/> looks for and how much it keeps.</summary>
/// <param name="AppNamespace">Frames under this namespace are the app's own code (component App).</param>
/// <param name="TopStacks">How many of the heaviest CPU stacks to keep.</param>
/// <param name="ExampleFrames">How many frames an example stack keeps (leaf side).</param>
/// <param name="AppModule">Frames of this module (the app's main assembly) are the app's own code too, whatever their namespace.</param>
public sealed record TraceAnalysisOptions(string AppNamespace = "PerfLab.Sut", int TopStacks = 20, int ExampleFrames = 40,
    string? AppModule = null)
{
    public AppCode App => new(AppNamespace, AppModule);
}

/// <summary>What one EventPipe trace of a process says: CPU by component, GC, lock contention, blocking waits.</summary>
/// <param name="TracedSeconds">From the first to the last event of the trace.</param>
/// <param name="SampleIntervalMs">Time one CPU sample stands for: the time between ticks with the GC's pauses taken out.</param>
/// <param name="TickIntervalMs">Time between the sampler's ticks, measured from the
/// trace (it sleeps 1 ms by default); a waiting sample stands for this.</param>
/// <param name="CpuSamples">Samples of threads running managed code (type Managed): the CPU the breakdown spreads.</param>
/// <param name="WaitingSamples">Samples of threads outside managed code (type External): blocked, sleeping or in native code.</param>
/// <param name="Components">CPU milliseconds by component, largest first; Gc from pause time (see TraceAnalysis).</param>
/// <param name="Stacks">All distinct on-CPU stacks (root first) with their sample counts, for the flame-graph exports.</param>
/// <param name="Warnings">What makes this trace less telling: no samples, methods left unnamed (no rundown), ...</param>
/// <param name="PoolThreads">Where the pool threads' time went (running, blocked, idle), from the sampler's stacks.</param>
/// <param name="Requests">Blocked time per request over the requests served wholly inside the trace (<see cref="RequestTally"/>);
/// null when the trace has no request events.</param>
public sealed record TraceProfile(
    double TracedSeconds,
    double SampleIntervalMs,
    double TickIntervalMs,
    long CpuSamples,
    long WaitingSamples,
    IReadOnlyList<ComponentTime> Components,
    GcSummary Gc,
    IReadOnlyList<ContentionSite> Contention,
    IReadOnlyList<BlockingWaitSite> BlockingWaits,
    ThreadPoolSummary ThreadPool,
    IReadOnlyList<SampledStack> TopStacks,
    IReadOnlyList<SampledStack> Stacks,
    IReadOnlyList<string> Warnings,
    PoolThreadTime? PoolThreads = null,
    RequestBlocking? Requests = null)
{
    /// <summary>CPU milliseconds of every component together.</summary>
    public double CpuMs => Components.Sum(c => c.Ms);

    public double ComponentMs(Component component) => Components.FirstOrDefault(c => c.Component == component)?.Ms ?? 0;
}

/// <summary>CPU time of one component: milliseconds, the samples behind them, and the share of all CPU time.</summary>
/// <param name="HeaviestStack">The component's stack with most samples (root first); null when none was sampled (Gc from pauses).</param>
public sealed record ComponentTime(Component Component, double Ms, long Samples, double Share, SampledStack? HeaviestStack = null);

/// <summary>Garbage collections seen in the trace.</summary>
/// <param name="CountByGeneration">Index 0, 1, 2: GCs whose condemned generation was that one.</param>
/// <param name="PauseMs">Total time the runtime was suspended for GC (SuspendEE start to RestartEE stop).</param>
/// <param name="PauseShareOfWall">PauseMs over the traced wall time.</param>
/// <param name="CpuMs">The GC's CPU in the breakdown: the pause time, counted once.</param>
/// <param name="CpuUpperMs">At most this much: each pause times the heaps whose threads could work through it (server GC).</param>
/// <param name="ShareOfCpu">GC's part of the CPU breakdown (CpuMs over CpuMs plus the sampled CPU).</param>
/// <param name="ShareOfCpuUpper">The same with CpuUpperMs: the most the GC can be of the CPU.</param>
/// <param name="SampleShare">Share of on-CPU samples whose frames are GC
/// (System.GC.*), usually near zero: the sampler cannot sample during a pause.</param>
/// <param name="Heaps">Heap count from GCGlobalHeapHistory; 0 when no GC ran.</param>
/// <param name="Mode">"server" (more than one heap), "one heap" (workstation,
/// or server GC that DATAS keeps at one heap) or "unknown".</param>
public sealed record GcSummary(
    IReadOnlyList<int> CountByGeneration,
    double PauseMs,
    double PauseShareOfWall,
    double CpuMs,
    double CpuUpperMs,
    double ShareOfCpu,
    double ShareOfCpuUpper,
    double SampleShare,
    int Heaps,
    string Mode)
{
    public int Count => CountByGeneration.Sum();
}

/// <summary>Lock contention at one call site: the first frame (leaf to root) outside the lock's own plumbing.</summary>
/// <param name="Place">Short readable name of the call site, e.g. "CulpritsApi.HoldLock".</param>
/// <param name="Frame">The full readable frame of the call site.</param>
/// <param name="ExampleStack">One contended stack, root first.</param>
/// <param name="AppPlace">The innermost frame of the app's own code on that stack (the app's way to the lock); null if none.</param>
/// <param name="Count">ContentionStop events: acquisitions that blocked.</param>
/// <param name="BlockedMs">Time those threads were blocked (ContentionStop's duration).</param>
/// <param name="AcquireCpuMs">CPU in the lock's slow path (on-CPU samples): waiters spinning before they get it or block, and for
/// a Monitor whose header was inflated by earlier contention, every acquisition.</param>
public sealed record ContentionSite(string Place, string Frame, long Count, double BlockedMs, IReadOnlyList<string> ExampleStack,
    string? AppPlace = null, double AcquireCpuMs = 0);

/// <summary>Threads held in a blocking call (<see cref="WaitTally"/>), grouped by the call and the caller that made it.</summary>
/// <param name="Waits">Waits seen: runs of one thread's consecutive samples at this site (a lower bound, back-to-back waits merge).</param>
/// <param name="Samples">Waiting samples whose stack holds a blocking wait at this call site.</param>
/// <param name="Ms">Samples times the tick interval: thread time spent blocked there.</param>
/// <param name="WaitFrame">The blocking frame seen, e.g. "System.Threading.Tasks.Task.Wait".</param>
/// <param name="AppPlace">The innermost frame of the app's own code above the wait; null if none.</param>
/// <param name="Call">The kind of blocking call (<see cref="BlockingCall.Name"/>): "Thread.Sleep", "Task wait", ...</param>
/// <param name="Advice">What to do instead, from <see cref="BlockingCalls"/>.</param>
/// <param name="MsPerRequest">Blocked there per request, over the requests served wholly inside the trace
/// (<see cref="RequestBlocking"/>); NaN when the trace has no request events.</param>
/// <param name="Handler">Where the place is an endpoint delegate with the handler inlined: the handler its route maps to,
/// from the app's assembly (<see cref="HandlerSource"/>), with its source file and line when the app has symbols.</param>
/// <param name="Route">The request path it blocked most, with its blocked ms per request of that path; null without request events.</param>
/// <param name="PoolThreads">False when a thread outside the pool served a request there (Kestrel's inline scheduling, an
/// app's own thread running the pipeline): the finding then says "request thread", not "pool thread".</param>
/// <param name="Native">For a P/Invoke: the native function the app's frame calls ("libc!usleep"), from the app's
/// assembly metadata (<see cref="NativeCalls"/>); null when not a P/Invoke or not found.</param>
public sealed record BlockingWaitSite(string Place, string Frame, string WaitFrame, long Waits, long Samples, double Ms,
    IReadOnlyList<string> ExampleStack, string? AppPlace = null, string Call = "Task wait", string Advice = "await it instead",
    double MsPerRequest = double.NaN, SiteRoute? Route = null, string? Handler = null, bool PoolThreads = true,
    string? Native = null);

/// <summary>
/// Blocked time per request from the trace's own request events: only requests that began and ended while it ran.
/// </summary>
/// <param name="Requests">Requests served wholly inside the trace whose thread the sampler saw throughout.</param>
/// <param name="LeftOut">Requests the trace saw only part of (in flight at its start or end), or could not pair.</param>
/// <param name="BlockedMsPerRequest">Mean time a request's thread was blocked while it held it.</param>
/// <param name="MeanMs">Mean time from the request's start event to its stop event (the server's view of its latency).</param>
/// <param name="BySite">Blocked ms per request by blocking site (the wait analysis's key: call site and call).</param>
/// <param name="Paths">The same by request path, most requests first.</param>
/// <param name="Routes">By blocking site: the request path it blocked longest in all, with its time per request of that path.</param>
/// <param name="TimedWaits">Waits inside those requests that the runtime timed itself (WaitHandleWaitStart/Stop, .NET 9+);
/// the rest of the blocked time is from the sampler's stacks.</param>
public sealed record RequestBlocking(long Requests, long LeftOut, double BlockedMsPerRequest, double MeanMs,
    IReadOnlyDictionary<string, double> BySite, IReadOnlyList<PathBlocking> Paths,
    IReadOnlyDictionary<string, SiteRoute>? Routes = null, long TimedWaits = 0);

/// <summary>The request path a blocking site held most: its requests served whole, and the site's blocked ms per one of them.</summary>
/// <param name="MeanMs">Those requests' mean time on the server, start to stop event.</param>
/// <param name="TimedWaits">The site's waits in those requests that the runtime timed itself (WaitHandleWaitStart/Stop).</param>
public sealed record SiteRoute(string Path, long Requests, double MsPerRequest, double MeanMs, long TimedWaits = 0);

/// <summary>Requests of one path served wholly inside the trace: how many, blocked ms and server ms per request.</summary>
public sealed record PathBlocking(string Path, long Requests, double BlockedMsPerRequest, double MeanMs);

/// <summary>
/// Thread time of the pool's worker threads over the trace, from the sampler's stacks (every managed thread is sampled
/// every tick, so samples times the tick are thread milliseconds): running managed code, blocked in a blocking call,
/// idle (waiting for work), or outside managed code otherwise (a syscall, native code).
/// </summary>
/// <param name="BlockedAtOnceMean">Pool threads blocked at the same tick, on average over the trace's ticks.</param>
/// <param name="BlockedAtOnceMax">The most pool threads blocked at one tick.</param>
public sealed record PoolThreadTime(double RunningMs, double BlockedMs, double IdleMs, double OutsideManagedMs,
    double BlockedAtOnceMean, int BlockedAtOnceMax);

/// <summary>The thread pool's own reports: why it added threads and how many workers it ran.</summary>
/// <param name="StarvationAdjustments">Adjustments with reason Starvation: nothing was dequeued for a while, a thread was injected.</param>
/// <param name="BlockingAdjustments">Adjustments with reason CooperativeBlocking
/// (.NET 6+): threads added because pool threads blocked in Task.Wait/Result.</param>
public sealed record ThreadPoolSummary(int StarvationAdjustments, int BlockingAdjustments, int Adjustments, int MaxWorkerThreads);
