using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

/// <summary>
/// Each culprit blocks its pool thread for about the given milliseconds; a dedicated thread (not a pool thread, so a
/// starved pool cannot delay it) releases the semaphores, sets the events and writes the FIFOs on time.
/// </summary>
internal static partial class Culprits
{
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<string, (long Calls, long Ticks)> s_blocked = new();

    /// <summary>The mean time each culprit's blocking call really took, in ms, since the last reset: what a trace should find.</summary>
    public static IReadOnlyDictionary<string, double> BlockedMs() =>
        s_blocked.ToDictionary(b => b.Key, b => b.Value.Calls == 0 ? 0 : b.Value.Ticks * 1000.0 / System.Diagnostics.Stopwatch.Frequency / b.Value.Calls);

    public static void Reset() => s_blocked.Clear();

    private static void Record(string culprit, long startedAt) =>
        s_blocked.AddOrUpdate(culprit, (1, System.Diagnostics.Stopwatch.GetTimestamp() - startedAt),
            (_, b) => (b.Calls + 1, b.Ticks + System.Diagnostics.Stopwatch.GetTimestamp() - startedAt));

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Sleep(int ms)
    {
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        Thread.Sleep(ms);
        Record("sleep", at);
        return ms;
    }

    /// <summary>A semaphore of one, taken by the releaser's side and given back <paramref name="ms"/> later.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WaitSemaphore(int ms)
    {
        using var gate = new SemaphoreSlim(0, 1);
        Releaser.After(ms, () => gate.Release());
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        gate.Wait();
        Record("semaphore", at);
        return ms;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WaitEvent(int ms)
    {
        using var done = new ManualResetEventSlim(false);
        Releaser.After(ms, done.Set);
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        done.Wait();
        Record("event", at);
        return ms;
    }

    /// <summary>Reads a FIFO whose writer opens it <paramref name="ms"/> later: the read blocks in the kernel till then.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ReadFifo(int ms)
    {
        var path = Path.Combine(Path.GetTempPath(), $"blockingapp-{Environment.ProcessId}-{Guid.NewGuid():N}.fifo");
        if (MakeFifo(path, 0x180) != 0)
        {
            throw new IOException($"mkfifo {path} failed: errno {Marshal.GetLastPInvokeError()}");
        }
        try
        {
            Releaser.After(ms, () =>
            {
                using var writer = new FileStream(path, FileMode.Open, FileAccess.Write);
                writer.Write("fifo"u8);
            });
            var at = System.Diagnostics.Stopwatch.GetTimestamp();
            var length = File.ReadAllBytes(path).Length;
            Record("fifo", at);
            return length;
        }
        finally
        {
            File.Delete(path);
        }
    }

    /// <summary>The negative control: the same waits awaited, so no pool thread is held.</summary>
    public static async Task<int> AwaitAll(int sleepMs, int semaphoreMs, int eventMs)
    {
        await Task.Delay(sleepMs);
        using var gate = new SemaphoreSlim(0, 1);
        Releaser.After(semaphoreMs, () => gate.Release());
        await gate.WaitAsync();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Releaser.After(eventMs, () => done.SetResult());
        await done.Task;
        return sleepMs + semaphoreMs + eventMs;
    }

    [LibraryImport("libc", EntryPoint = "mkfifo", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int MakeFifo(string path, uint mode);
}

/// <summary>Runs actions at their due time on one dedicated thread.</summary>
internal static class Releaser
{
    private static readonly PriorityQueue<Action, long> s_due = new();
    private static readonly Lock s_lock = new();
    private static readonly AutoResetEvent s_wake = new(false);

    static Releaser() => new Thread(Run) { IsBackground = true, Name = "releaser" }.Start();

    public static void After(int ms, Action action)
    {
        lock (s_lock)
        {
            s_due.Enqueue(action, Environment.TickCount64 + ms);
        }
        s_wake.Set();
    }

    private static void Run()
    {
        while (true)
        {
            Action? action = null;
            var wait = Timeout.Infinite;
            lock (s_lock)
            {
                if (s_due.TryPeek(out var next, out var at))
                {
                    var left = at - Environment.TickCount64;
                    if (left <= 0)
                    {
                        action = s_due.Dequeue();
                    }
                    else
                    {
                        wait = (int)left;
                    }
                }
            }
            if (action is not null)
            {
                action();
            }
            else
            {
                s_wake.WaitOne(wait);
            }
        }
    }
}
