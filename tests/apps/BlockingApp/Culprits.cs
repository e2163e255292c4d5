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

    /// <summary>Joins a thread that sleeps <paramref name="ms"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Join(int ms)
    {
        var worker = new Thread(() => Thread.Sleep(ms)) { IsBackground = true };
        worker.Start();
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        worker.Join();
        Record("join", at);
        return ms;
    }

    /// <summary>Waits on a monitor the releaser pulses <paramref name="ms"/> later (it needs the lock the wait gives up).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int MonitorWait(int ms)
    {
        var gate = new object();
        lock (gate)
        {
            Releaser.After(ms, () => { lock (gate) { Monitor.PulseAll(gate); } });
            var at = System.Diagnostics.Stopwatch.GetTimestamp();
            Monitor.Wait(gate);
            Record("monitor", at);
        }
        return ms;
    }

    /// <summary>A kernel event (a WaitHandle, not the slim kind) the releaser sets <paramref name="ms"/> later.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WaitOne(int ms)
    {
        using var done = new ManualResetEvent(false);
        Releaser.After(ms, () => done.Set());
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        done.WaitOne();
        Record("waithandle", at);
        return ms;
    }

    /// <summary>libc's usleep through a P/Invoke: the thread sleeps in native code, no managed frame names the wait.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int NativeSleep(int ms)
    {
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        _ = usleep((uint)ms * 1000);
        Record("usleep", at);
        return ms;
    }

    /// <summary>Runs `sleep` for <paramref name="ms"/> and waits for it to exit.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WaitForProcess(int ms)
    {
        var start = new System.Diagnostics.ProcessStartInfo("sleep", (ms / 1000.0).ToString(System.Globalization.CultureInfo.InvariantCulture))
        {
            UseShellExecute = false,
        };
        using var process = System.Diagnostics.Process.Start(start)!;
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        process.WaitForExit();
        Record("process", at);
        return ms;
    }

    /// <summary>Reads an anonymous pipe the releaser writes <paramref name="ms"/> later.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ReadPipe(int ms)
    {
        using var reader = new System.IO.Pipes.AnonymousPipeServerStream(System.IO.Pipes.PipeDirection.In);
        using var writer = new System.IO.Pipes.AnonymousPipeClientStream(System.IO.Pipes.PipeDirection.Out, reader.ClientSafePipeHandle);
        Releaser.After(ms, () => writer.Write("pipe"u8));
        var buffer = new byte[4];
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        var read = reader.Read(buffer);
        Record("pipe", at);
        return read;
    }

    private static readonly HttpClient s_http = new();

    /// <summary>A synchronous HttpClient.Send to this app's own /delayed endpoint, which answers <paramref name="ms"/> later.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Send(string baseUrl, int ms)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"{baseUrl}/delayed?ms={ms}");
        var at = System.Diagnostics.Stopwatch.GetTimestamp();
        using var response = s_http.Send(request);
        Record("http", at);
        return (int)response.StatusCode;
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

    // A DllImport on purpose: the P/Invoke method itself is the frame a trace shows, as in most apps' own interop.
    [DllImport("libc", EntryPoint = "usleep")]
    private static extern int usleep(uint microseconds);

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
