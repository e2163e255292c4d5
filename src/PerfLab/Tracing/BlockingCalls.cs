namespace PerfLab.Tracing;

/// <summary>
/// One kind of call that holds its thread until something else happens, as a stack shows it, with what to do instead.
/// </summary>
/// <param name="Prefixes">Frame names (module dropped, generic arguments removed) that are this call.</param>
/// <param name="Advice">What the finding recommends, after a semicolon: "await Task.Delay instead".</param>
public sealed record BlockingCall(string Name, string[] Prefixes, string Advice)
{
    // The awaiting twins (WaitAsync, ReceiveAsync, ReadAllBytesAsync) share the prefixes and hold no thread.
    public bool Matches(string methodWithoutGenerics) =>
        Prefixes.Any(p => methodWithoutGenerics.StartsWith(p, StringComparison.Ordinal)
                          && !methodWithoutGenerics.AsSpan(p.Length).Contains("Async", StringComparison.Ordinal));
}

/// <summary>
/// Names and advice for the blocking calls a user meets. A thread serving a request is found blocked by what it does
/// (off CPU under the app's own code: <see cref="OffCpuCall"/>), whatever it calls; this list only says what to do
/// instead. For threads outside a request's pipeline it still recognises the calls by name: the outermost frame of any
/// of them names the call (a SemaphoreSlim.Wait that ends in Monitor.Wait is a SemaphoreSlim.Wait; a Task.Wait that
/// ends in ManualResetEventSlim.Wait is a Task.Wait), and the code under it is the place that blocked.
/// </summary>
public static class BlockingCalls
{
    private const string TaskWaitAdvice = "await the task instead (async all the way: no .Wait(), .Result or GetResult())";

    // Task's own waits under .Wait(), .Result and GetResult(). One is the outermost frame when the JIT inlined the call
    // the code made into its caller (a Release build): the stack then no longer says which of the three it was.
    private static readonly BlockingCall s_inlinedTaskWait = new("Task.Wait(), .Result or GetResult() (inlined)",
    [
        "System.Threading.Tasks.Task.InternalWait", "System.Threading.Tasks.Task.SpinThenBlockingWait",
        "System.Threading.Tasks.Task`1.GetResultCore",
    ], TaskWaitAdvice);

    public static readonly BlockingCall TaskWait = new("Task wait",
    [
        "System.Threading.Tasks.Task.Wait", "System.Threading.Tasks.Task`1.get_Result",
        "System.Runtime.CompilerServices.TaskAwaiter.GetResult", "System.Runtime.CompilerServices.TaskAwaiter`1.GetResult",
        "System.Runtime.CompilerServices.ConfiguredTaskAwaitable",
        "System.Threading.Tasks.Task.WaitAll", "System.Threading.Tasks.Task.WaitAny", .. s_inlinedTaskWait.Prefixes,
    ], TaskWaitAdvice);

    public static readonly IReadOnlyList<BlockingCall> All =
    [
        TaskWait,
        new("Thread.Sleep", ["System.Threading.Thread.Sleep"], "await Task.Delay instead"),
        new("Thread.Join", ["System.Threading.Thread.Join"],
            "run the work as a Task (Task.Run, or a TaskCompletionSource the thread completes) and await it instead of joining"),
        new("HttpClient.Send", ["System.Net.Http.HttpClient.Send", "System.Net.Http.HttpMessageInvoker.Send"],
            "await HttpClient.SendAsync instead"),
        new("SemaphoreSlim.Wait", ["System.Threading.SemaphoreSlim.Wait"], "await SemaphoreSlim.WaitAsync instead"),
        new("ManualResetEventSlim.Wait", ["System.Threading.ManualResetEventSlim.Wait"],
            "signal a TaskCompletionSource and await its Task instead"),
        new("Monitor.Wait", ["System.Threading.Monitor.Wait"],
            "await a TaskCompletionSource or SemaphoreSlim.WaitAsync instead of waiting on a monitor"),
        new("WaitHandle.WaitOne", ["System.Threading.WaitHandle.Wait"],
            "await a TaskCompletionSource (or WaitHandle.WaitOneAsync-style registration) instead of blocking on a handle"),
        new("Process.WaitForExit", ["System.Diagnostics.Process.WaitForExit"], "await Process.WaitForExitAsync instead"),
        new("synchronous pipe I/O", ["System.IO.Pipes.PipeStream.Read", "System.IO.Pipes.PipeStream.Write"],
            "await the pipe's ReadAsync/WriteAsync instead"),
        new("synchronous file I/O",
        [
            "System.IO.File.", "System.IO.FileStream.Read", "System.IO.FileStream.Write", "System.IO.FileStream..ctor",
            "System.IO.RandomAccess.Read", "System.IO.RandomAccess.Write", "System.IO.StreamReader.ReadToEnd",
        ], "use the async file API (File.ReadAllBytesAsync, FileStream with useAsync: true) and await it"),
        new("synchronous socket I/O",
        [
            "System.Net.Sockets.Socket.Receive", "System.Net.Sockets.Socket.Send", "System.Net.Sockets.Socket.Connect",
            "System.Net.Sockets.Socket.Accept", "System.Net.Sockets.Socket.Poll", "System.Net.Sockets.NetworkStream.Read",
            "System.Net.Sockets.NetworkStream.Write", "System.Net.Security.SslStream.Read",
            // On Linux a synchronous Socket.Receive is often inlined away: its engine's sync paths are the frame left.
            "System.Net.Sockets.SocketAsyncContext.Receive", "System.Net.Sockets.SocketAsyncContext.Send",
            "System.Net.Sockets.SocketAsyncContext.Connect", "System.Net.Sockets.SocketAsyncContext.Accept",
        ], "call the async API (ReadAsync, ExecuteReaderAsync, SaveChangesAsync) and await it"),
    ];

    /// <summary>A call the list does not know: named by its frame, with the advice that fits any.</summary>
    public static readonly BlockingCall Unlisted = new("blocking call", [],
        "call its async counterpart and await it, or move the wait off the request's thread");

    /// <summary>Native code the app called itself: the sampler's stacks are managed only, so the native function is unnamed.</summary>
    public static readonly BlockingCall PInvoke = new("native code via P/Invoke", [],
        "move the blocking native call off the request's thread (a dedicated thread completing a TaskCompletionSource) "
            + "or use an asynchronous API");

    // Method-name endings of a call's own inner half ("PipeStream.ReadCore", "WaitHandle.WaitOneNoCheck"): when the JIT
    // inlined the public method, the user still reads the public name.
    private static readonly string[] s_innerSuffixes = ["Core", "NoCheck"];

    /// <summary>The outermost known call from <paramref name="from"/> towards the leaf (for its advice), else <see cref="Unlisted"/>.
    /// </summary>
    public static BlockingCall Within(IReadOnlyList<string> rootToLeaf, int from)
    {
        for (var i = Math.Max(0, from); i < rootToLeaf.Count; i++)
        {
            if (Of(rootToLeaf[i]) is { } call)
            {
                return call;
            }
        }
        return Unlisted;
    }

    /// <summary>The blocking call this frame is, or null.</summary>
    public static BlockingCall? Of(string frame)
    {
        var name = FrameNames.WithoutGenericArguments(FrameNames.MethodPart(frame));
        return All.FirstOrDefault(c => c.Matches(name));
    }

    /// <summary>
    /// Index (root first) of the outermost blocking-call frame, or -1. A wait inside a lock's slow path (Lock.TryEnterSlow
    /// blocking on its event, as Task.Delay's timer lock does under load) is that lock's contention, which the contention
    /// events measure: no blocking call.
    /// </summary>
    public static int Outermost(IReadOnlyList<string> rootToLeaf)
    {
        var lockSlowPath = FrameNames.OutermostLockSpin(rootToLeaf);
        for (var i = 0; i < rootToLeaf.Count; i++)
        {
            if (Of(rootToLeaf[i]) is not null)
            {
                return lockSlowPath >= 0 && lockSlowPath < i ? -1 : i;
            }
        }
        return -1;
    }

    /// <summary>
    /// "Thread.Sleep()", "SemaphoreSlim.Wait()", "Task.Wait()", "File.ReadAllBytes()": the call as its frame names it;
    /// for a frame of Task's own (<c>Task.InternalWait</c>), the calls that reach it.
    /// </summary>
    public static string Display(string frame)
    {
        var name = FrameNames.WithoutGenericArguments(FrameNames.MethodPart(frame));
        if (s_inlinedTaskWait.Matches(name))
        {
            return s_inlinedTaskWait.Name;
        }
        var place = FrameNames.Place(name);
        var suffix = s_innerSuffixes.FirstOrDefault(s => place.EndsWith(s, StringComparison.Ordinal)
                                                         && !place.EndsWith("." + s, StringComparison.Ordinal));
        return (suffix is null ? place : place[..^suffix.Length]) + "()";
    }
}
