namespace PerfLab.Tracing;

/// <summary>
/// Where a thread that serves a request waits, found by what it does rather than by a list of names: a sample of it
/// off CPU (External: in a wait, asleep, in a syscall) under the app's own code is blocked there, whatever the call.
/// The call is the outermost framework frame below the app's innermost own frame (Thread.Join, HttpClient.Send,
/// PipeStream.Read: the one the app called), the place is that own frame; when the app's frame is the stack's leaf,
/// the app itself called into native code (a P/Invoke, whose stub the JIT inlines so no frame names the function). A
/// minimal API's handler inlined into ASP.NET Core's compiled endpoint delegate leaves that delegate as the place.
/// </summary>
internal static class OffCpuCall
{
    // The request pipeline's own frames: a thread with one on its stack is serving a request, pool thread or not.
    private static readonly string[] s_pipeline =
    [
        "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol", "Microsoft.AspNetCore.Hosting.HostingApplication.",
    ];

    // Frames a call passes through on its way (an async method started synchronously, a context switch): never the call.
    private static readonly string[] s_passThrough =
    [
        "System.Runtime.CompilerServices.Async", "System.Threading.ExecutionContext.", "System.Threading.Tasks.Task.InnerInvoke",
    ];

    /// <summary>A blocking call found under the app's code.</summary>
    /// <param name="Place">Index (root first) of the app's frame that made the call (or the endpoint delegate).</param>
    /// <param name="Call">Index of the call's frame; -1 when the app called native code itself
    /// (<see cref="BlockingCalls.PInvoke"/>).</param>
    public readonly record struct Found(int Place, int Call);

    public static bool ServesRequests(IReadOnlyList<string> rootToLeaf) =>
        rootToLeaf.Any(f => s_pipeline.Any(p => FrameNames.MethodPart(f).StartsWith(p, StringComparison.Ordinal)));

    /// <summary>The call under the app's innermost own frame, or null when the stack holds no frame of the app's.</summary>
    public static Found? Locate(IReadOnlyList<string> rootToLeaf, AppCode? app)
    {
        var place = -1;
        for (var i = rootToLeaf.Count - 1; i >= 0 && place < 0; i--)
        {
            if (app?.Owns(rootToLeaf[i]) == true || IsEndpointDelegate(rootToLeaf[i]))
            {
                place = i;
            }
        }
        if (place < 0)
        {
            return null;
        }
        for (var i = place + 1; i < rootToLeaf.Count; i++)
        {
            var name = FrameNames.MethodPart(rootToLeaf[i]);
            if (!IsUnnamed(name) && !s_passThrough.Any(p => name.StartsWith(p, StringComparison.Ordinal)))
            {
                return new Found(place, i);
            }
        }
        // Nothing named under the app's frame: it called native code. Under the endpoint delegate alone that is the JIT
        // compiling the handler, or the runtime's own work, which names nothing of the app's.
        return IsEndpointDelegate(rootToLeaf[place]) ? null : new Found(place, -1);
    }

    public static bool IsEndpointDelegate(string frame) =>
        FrameNames.MethodPart(frame).StartsWith("CompiledDelegate.lambda_method", StringComparison.Ordinal);

    private static bool IsUnnamed(string name) =>
        name.Length == 0 || name.StartsWith('?') || name.Contains("IL_STUB", StringComparison.Ordinal);
}
