using System.Globalization;

namespace PerfLab.Tracing;

/// <summary>
/// The CPU the kernel charged each thread of a process, read from /proc/PID/task/TID/schedstat (the scheduler's own
/// nanoseconds; the tick-based utime in .../stat lagged it by seconds on the 2-core machine). A thread is known by its
/// name (comm): the runtime names its own (".NET EventPipe", ".NET Tiered Com", ".NET TP Worker").
/// </summary>
public sealed record ThreadCpuSnapshot(IReadOnlyDictionary<int, (string Name, double Ms)> Threads, double ProcessMs)
{
    public static readonly ThreadCpuSnapshot Empty = new(new Dictionary<int, (string, double)>(), double.NaN);

    /// <summary>CPU charged between <paramref name="before"/> and this snapshot, by thread name, largest first.</summary>
    public IReadOnlyList<ThreadGroupCpu> Since(ThreadCpuSnapshot before)
    {
        var byName = new Dictionary<string, (double Ms, int Threads)>();
        foreach (var (tid, (name, ms)) in Threads)
        {
            var earlier = before.Threads.TryGetValue(tid, out var b) ? b.Ms : 0;
            var previous = byName.GetValueOrDefault(name);
            byName[name] = (previous.Ms + Math.Max(0, ms - earlier), previous.Threads + 1);
        }
        return byName.Where(g => g.Value.Ms > 0).OrderByDescending(g => g.Value.Ms)
            .Select(g => new ThreadGroupCpu(g.Key, g.Value.Ms, g.Value.Threads)).ToList();
    }
}

/// <summary>CPU milliseconds charged to the threads of one name.</summary>
public sealed record ThreadGroupCpu(string Name, double Ms, int Threads)
{
    /// <summary>
    /// Threads whose CPU the sampler cannot see: the trace's own (EventPipe's streaming and sampling threads, native),
    /// the tiered JIT's background compiler (native), and the GC's own threads (their work is the pauses, counted apart).
    /// </summary>
    public bool Unsampled => Name.StartsWith(".NET EventPipe", StringComparison.Ordinal)
        || Name.StartsWith(".NET Tiered Com", StringComparison.Ordinal)
        || Name.StartsWith(".NET Server GC", StringComparison.Ordinal) || Name.StartsWith(".NET BGC", StringComparison.Ordinal);

    /// <summary>The trace's own threads: their CPU is the cost of tracing, not of the app.</summary>
    public bool Tracing => Name.StartsWith(".NET EventPipe", StringComparison.Ordinal);
}

public static class ThreadCpu
{
    /// <summary>
    /// Every live thread's CPU; <see cref="ThreadCpuSnapshot.Empty"/>
    /// when /proc cannot be read (not Linux, process gone).
    /// </summary>
    public static ThreadCpuSnapshot Read(int pid)
    {
        var threads = new Dictionary<int, (string, double)>();
        try
        {
            foreach (var dir in Directory.EnumerateDirectories($"/proc/{pid}/task"))
            {
                if (int.TryParse(Path.GetFileName(dir), NumberStyles.None, CultureInfo.InvariantCulture, out var tid)
                    && TryThread(dir, out var name, out var ms))
                {
                    threads[tid] = (name, ms);
                }
            }
            return new ThreadCpuSnapshot(threads, threads.Values.Sum(t => t.Item2));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return ThreadCpuSnapshot.Empty;
        }
    }

    private static bool TryThread(string dir, out string name, out double ms)
    {
        name = "";
        ms = 0;
        try
        {
            name = File.ReadAllText(Path.Combine(dir, "comm")).TrimEnd('\n');
            var first = File.ReadAllText(Path.Combine(dir, "schedstat")).Split(' ')[0];
            ms = double.Parse(first, CultureInfo.InvariantCulture) / 1e6;
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException)
        {
            return false; // the thread ended between the listing and the read
        }
    }
}
