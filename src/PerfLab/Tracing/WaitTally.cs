namespace PerfLab.Tracing;

/// <summary>
/// Thread time of the threads that serve requests and of the pool's threads, from the CPU sampler's events: the
/// sampler writes one event per managed thread every tick whatever the thread does, so a blocked thread's samples
/// times the tick are the time it was blocked. A thread running the request pipeline (<see cref="OffCpuCall"/>), pool
/// thread or not, is blocked when it is off CPU (External) under the app's own code, whatever it called; a pool thread
/// elsewhere, when its stack holds a <see cref="BlockingCalls"/> frame and it is off CPU. Spinning inside a wait's own
/// machinery (SpinWait, SpinThenBlockingWait) counts as blocked too: the thread is held. A pool thread's other samples
/// are running (Managed), idle (waiting for work in the pool's own semaphore) or elsewhere outside managed code (a
/// syscall). Threads that serve no request and are not pool threads (Main blocking in host.Run()) are left out: they
/// hold no thread the server needs.
/// </summary>
internal sealed class WaitTally(int exampleFrames, AppCode? app = null)
{
    private readonly Dictionary<string[], Sample> _stacks = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<int, string?> _threadAt = [];
    private readonly Dictionary<string, Site> _sites = [];
    private readonly HashSet<int> _inTick = [];
    private readonly long[] _states = new long[4];
    private int _blockedThisTick;
    private long _ticks;
    private long _blockedInTicks;
    private int _maxBlocked;

    /// <summary>
    /// Samples must come in time order, as a trace source delivers them. Returns the site the thread is blocked at (a
    /// key of <see cref="RequestBlocking.BySite"/>), or null when it is not blocked.
    /// </summary>
    public string? Add(int thread, bool managed, string[] frames)
    {
        var sample = Of(frames);
        NextTickIfSeen(thread);
        if (!sample.Pool)
        {
            return null;
        }
        var blocking = sample.Wait is { } w && (!managed || w.Deep) ? w : null;
        _states[(int)(blocking is not null ? PoolThreadState.Blocked : managed ? PoolThreadState.Running
            : sample.Idle ? PoolThreadState.Idle : PoolThreadState.OutsideManaged)]++;
        var key = blocking?.Key;
        if (blocking is not null)
        {
            _blockedThisTick++;
            var site = _sites.GetValueOrDefault(key!) ?? new Site();
            site.Count(blocking, frames);
            site.OutsidePool |= !sample.PoolThread;
            // A thread's consecutive samples at one site are one wait; a new wait starts when it arrives from elsewhere.
            // Back-to-back waits with no sample in between merge, so the count is a lower bound.
            if (_threadAt.GetValueOrDefault(thread) != key)
            {
                site.Waits++;
            }
            _sites[key!] = site;
        }
        _threadAt[thread] = key;
        return key;
    }

    /// <summary>The site a thread in a wait the runtime timed is at, from the wait's frames, without counting a sample.</summary>
    public string? SiteOf(string[] frames) => Of(frames) is { Pool: true } sample ? sample.Wait?.Key : null;

    private Sample Of(string[] frames)
    {
        if (!_stacks.TryGetValue(frames, out var sample))
        {
            sample = Describe(frames);
            _stacks.Add(frames, sample);
        }
        return sample;
    }

    // A site seen in fewer samples is a momentary wait (a lazy initialisation, a first call), not a blocked pool thread.
    private const int MinSamples = 3;

    /// <summary>
    /// The places that blocked request or pool threads, costliest per request first; where the trace has request events, only
    /// those that held their route's requests for a meaningful share of their time (<see cref="MeaningfulShare"/>).
    /// A wait with nothing under it but the runtime's own
    /// threading and tracing code or unresolved frames (call site "?": a work item of the runtime's, such as an
    /// EventSource answering the trace session) names no code anyone could change: its samples stay in the pool's
    /// blocked time (<see cref="ThreadTime"/>) but it is not a site.
    /// </summary>
    /// <param name="perRequest">Blocked ms per request by site key and route, from <see cref="RequestTally"/>; null without
    /// request events.</param>
    public List<BlockingWaitSite> Sites(double intervalMs, RequestBlocking? perRequest = null) =>
        _sites.Where(s => s.Value.Samples >= MinSamples && s.Value.Wait.CallSite != UnknownCallSite).OrderByDescending(s => s.Value.Samples)
            .Select(s => new BlockingWaitSite(FrameNames.Place(s.Value.Wait.CallSite), FrameNames.MethodPart(s.Value.Wait.CallSite),
                s.Value.Wait.WaitFrame, s.Value.Waits, s.Value.Samples, s.Value.Samples * intervalMs,
                s.Value.Example.TakeLast(exampleFrames).ToList(),
                FrameNames.InnermostApp(s.Value.Example, s.Value.Example.Length - 1, app), s.Value.Wait.Call.Name,
                    s.Value.Wait.Call.Advice, perRequest is null ? double.NaN : perRequest.BySite.GetValueOrDefault(s.Key),
                    perRequest?.Routes?.GetValueOrDefault(s.Key), PoolThreads: !s.Value.OutsidePool))
            .Where(s => Meaningful(s, perRequest))
            // The costliest per request of its route first (the report's evidence leads with it), else the most samples.
            .OrderByDescending(s => s.Route?.MsPerRequest ?? (double.IsFinite(s.MsPerRequest) ? s.MsPerRequest : -1))
            .ThenByDescending(s => s.Samples)
            .ToList();

    // Over its route's requests; a site on no request the trace saw whole (an awaiting handler's continuation on
    // another thread) over all of them. Without request events every site counts.
    private static bool Meaningful(BlockingWaitSite site, RequestBlocking? served) =>
        served is not { Requests: >= TraceFindings.MinRequests } all
        || (site.Route is { } r ? r.MsPerRequest >= MeaningfulShare * r.MeanMs : site.Ms / all.Requests >= MeaningfulShare * all.MeanMs);

    // A site must hold its route's requests off CPU for this share of their time on the server: an awaiting handler's
    // thread dips into native code for microseconds (a timer's event, a header parse, the JIT), which blocks nothing.
    private const double MeaningfulShare = 0.05;

    /// <summary>The pool threads' time by state, and how many were blocked at once (per tick: mean and most).</summary>
    public PoolThreadTime ThreadTime(double intervalMs)
    {
        var ticks = _ticks + (_inTick.Count > 0 ? 1 : 0);
        var blocked = _blockedInTicks + _blockedThisTick;
        return new PoolThreadTime(_states[(int)PoolThreadState.Running] * intervalMs, _states[(int)PoolThreadState.Blocked] * intervalMs,
            _states[(int)PoolThreadState.Idle] * intervalMs, _states[(int)PoolThreadState.OutsideManaged] * intervalMs,
            ticks > 0 ? (double)blocked / ticks : 0, Math.Max(_maxBlocked, _blockedThisTick));
    }

    // Every thread is sampled once per tick: a thread seen again opens the next tick.
    private void NextTickIfSeen(int thread)
    {
        if (_inTick.Add(thread))
        {
            return;
        }
        _ticks++;
        _blockedInTicks += _blockedThisTick;
        _maxBlocked = Math.Max(_maxBlocked, _blockedThisTick);
        _blockedThisTick = 0;
        _inTick.Clear();
        _inTick.Add(thread);
    }

    private Sample Describe(string[] frames)
    {
        var serves = OffCpuCall.ServesRequests(frames);
        var poolThread = IsPoolThread(frames);
        if (!serves && !poolThread)
        {
            return new Sample(false, false, null);
        }
        // A wait inside a lock's slow path is that lock's contention, which the contention events measure.
        var lockSlowPath = FrameNames.OutermostLockSpin(frames);
        if ((serves || RunsWorkItem(frames)) && OffCpuCall.Locate(frames, app) is { } found
            && (lockSlowPath < 0 || lockSlowPath <= found.Place))
        {
            return new Sample(true, false, Found(frames, found), poolThread);
        }
        var wait = BlockingCalls.Outermost(frames);
        if (wait < 0)
        {
            return new Sample(true, IsIdle(frames), null);
        }
        // A wait with no work item on the stack is the pool's own (a worker or the gate waiting for work): idle time.
        if (!RunsWorkItem(frames) && !serves)
        {
            return new Sample(true, true, null);
        }
        var site = FrameNames.CallSite(frames, wait - 1);
        var call = BlockingCalls.Of(frames[wait])!;
        var callSite = site >= 0 ? frames[site] : UnknownCallSite;
        var waitFrame = FrameNames.WithoutGenericArguments(FrameNames.MethodPart(frames[wait]));
        return new Sample(true, false, new WaitStack(callSite + "\n" + waitFrame, callSite, waitFrame, call,
            frames.Skip(wait).Any(FrameNames.IsDeepWait)));
    }

    // The call the app made, named by its frame; a P/Invoke by the app's own frame that made it.
    private static WaitStack Found(string[] frames, OffCpuCall.Found found)
    {
        var place = frames[found.Place];
        if (found.Call < 0)
        {
            return new WaitStack(place + "\n" + BlockingCalls.PInvoke.Name, place,
                FrameNames.WithoutGenericArguments(FrameNames.MethodPart(place)), BlockingCalls.PInvoke, false);
        }
        var waitFrame = FrameNames.WithoutGenericArguments(FrameNames.MethodPart(frames[found.Call]));
        // Keyed by the name a user reads: WaitOne and WaitOneNoCheck (the JIT inlined one or not) are one call.
        return new WaitStack(place + "\n" + BlockingCalls.Display(waitFrame), place, waitFrame, BlockingCalls.Within(frames, found.Call),
            frames.Skip(found.Call).Any(FrameNames.IsDeepWait));
    }

    private static bool RunsWorkItem(string[] frames) =>
        frames.Any(f => f.Contains("System.Threading.ThreadPoolWorkQueue.Dispatch", StringComparison.Ordinal));

    private static bool IsPoolThread(string[] frames) =>
        frames.Any(f => f.Contains("System.Threading.ThreadPoolWorkQueue.Dispatch", StringComparison.Ordinal)
            || f.Contains("PortableThreadPool+WorkerThread", StringComparison.Ordinal));

    // A worker waiting for work: in the pool's own semaphore, with no work item on its stack.
    private static bool IsIdle(string[] frames) =>
        frames.Any(f => f.Contains("System.Threading.LowLevelLifoSemaphore", StringComparison.Ordinal))
        && !RunsWorkItem(frames);

    private const string UnknownCallSite = "?";

    private enum PoolThreadState { Running, Blocked, Idle, OutsideManaged }

    /// <param name="Pool">A pool thread or one serving a request: its samples count.</param>
    /// <param name="PoolThread">The pool's own thread (a request served outside the pool is not).</param>
    private sealed record Sample(bool Pool, bool Idle, WaitStack? Wait, bool PoolThread = true);

    private sealed record WaitStack(string Key, string CallSite, string WaitFrame, BlockingCall Call, bool Deep);

    /// <summary>
    /// One place the app's code blocked, by the call it made. What the thread did below that call can differ between
    /// samples (a synchronous EF Core query first negotiates its connection, then reads its socket): the site is named by
    /// the blocking call seen in most of its samples, with that call's first stack as its example.
    /// </summary>
    private sealed class Site
    {
        private readonly Dictionary<BlockingCall, (long Samples, WaitStack Wait, string[] Example)> _byCall = [];

        public WaitStack Wait => Dominant.Wait;
        public string[] Example => Dominant.Example;
        public long Samples { get; private set; }
        public long Waits { get; set; }
        public bool OutsidePool { get; set; }

        // Most samples first; a tie goes to the call seen first, so the name does not flicker between equal counts.
        private (long Samples, WaitStack Wait, string[] Example) Dominant =>
            _byCall.Values.Aggregate((best, next) => next.Samples > best.Samples ? next : best);

        public void Count(WaitStack wait, string[] frames)
        {
            Samples++;
            var seen = _byCall.TryGetValue(wait.Call, out var previous) ? previous : (0, wait, frames);
            _byCall[wait.Call] = (seen.Samples + 1, seen.Wait, seen.Example);
        }
    }
}
