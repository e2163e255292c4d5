namespace PerfLab.Tracing;

/// <summary>
/// Pool threads held in a synchronous wait on a task or event (sync over async), from the CPU sampler's events.
/// A sample counts when its stack has a blocking-wait frame and the thread was waiting (External), or was spinning
/// inside the wait (a Managed sample with a frame only a real wait reaches), so GetResult on a finished task never
/// counts. Threads that are not pool threads (Main blocking in host.Run()) are left out: they hold no thread the
/// server needs. The call site is the first frame outside the threading plumbing, walking from the outermost
/// blocking frame towards the root.
/// </summary>
internal sealed class WaitTally(int exampleFrames, AppCode? app = null)
{
    private readonly Dictionary<string[], WaitStack?> _stacks = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<int, string?> _threadAt = [];
    private readonly Dictionary<string, Site> _sites = [];

    /// <summary>Samples must come in time order per thread, as a trace source delivers them.</summary>
    public void Add(int thread, bool managed, string[] frames)
    {
        if (!_stacks.TryGetValue(frames, out var stack))
        {
            stack = Describe(frames);
            _stacks.Add(frames, stack);
        }
        var key = stack is not null && (!managed || stack.Deep) ? stack.CallSite : null;
        if (key is not null)
        {
            var site = _sites.GetValueOrDefault(key) ?? new Site(stack!.WaitFrame, frames);
            site.Samples++;
            // A thread's consecutive samples at one site are one wait; a new wait starts when it arrives from elsewhere.
            // Back-to-back waits with no sample in between merge, so the count is a lower bound.
            if (_threadAt.GetValueOrDefault(thread) != key)
            {
                site.Waits++;
            }
            _sites[key] = site;
        }
        _threadAt[thread] = key;
    }

    public List<BlockingWaitSite> Sites(double intervalMs) =>
        _sites.OrderByDescending(s => s.Value.Samples)
            .Select(s => new BlockingWaitSite(FrameNames.Place(s.Key), FrameNames.MethodPart(s.Key), s.Value.WaitFrame, s.Value.Waits,
                s.Value.Samples, s.Value.Samples * intervalMs, s.Value.Example.TakeLast(exampleFrames).ToList(),
                FrameNames.InnermostApp(s.Value.Example, s.Value.Example.Length - 1, app)))
            .ToList();

    private static WaitStack? Describe(string[] frames)
    {
        var wait = FrameNames.OutermostBlockingWait(frames);
        if (wait < 0 || !IsPoolThread(frames))
        {
            return null;
        }
        var site = FrameNames.CallSite(frames, wait - 1);
        return new WaitStack(site >= 0 ? frames[site] : "?",
            FrameNames.WithoutGenericArguments(FrameNames.MethodPart(frames[wait])), frames.Skip(wait).Any(FrameNames.IsDeepWait));
    }

    private static bool IsPoolThread(string[] frames) =>
        frames.Any(f => f.Contains("System.Threading.ThreadPoolWorkQueue.Dispatch", StringComparison.Ordinal)
            || f.Contains("PortableThreadPool+WorkerThread", StringComparison.Ordinal));

    private sealed record WaitStack(string CallSite, string WaitFrame, bool Deep);

    private sealed class Site(string waitFrame, string[] example)
    {
        public string WaitFrame { get; } = waitFrame;
        public string[] Example { get; } = example;
        public long Samples { get; set; }
        public long Waits { get; set; }
    }
}
