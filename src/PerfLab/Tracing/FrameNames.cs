using System.Text;
using System.Text.RegularExpressions;

namespace PerfLab.Tracing;

/// <summary>
/// Turns TraceEvent's method names into names a reader can find in the source, and picks call sites out of stacks.
/// Frames are "Module!Namespace.Type.Method" as <see cref="ComponentClassifier"/> reads them.
/// </summary>
public static partial class FrameNames
{
    // Frames that belong to a lock's or a wait's own machinery, never the code that asked for it.
    private static readonly string[] s_plumbingPrefixes =
    [
        "System.Threading.", "System.Runtime.CompilerServices.", "System.Runtime.ExceptionServices.", "System.Diagnostics.Tracing.",
        "Interop+",
    ];

    // A lock's slow path: a thread here did not get the lock at once and spins (on-CPU) or blocks.
    private static readonly string[] s_lockSlowPaths =
    [
        "System.Threading.Lock.TryEnterSlow", "System.Threading.Monitor.Enter_Slowpath", "System.Threading.Monitor.ReliableEnter",
        "System.Threading.Monitor.TryEnter_Slowpath", "System.Threading.SpinLock.ContinueTryEnter",
    ];

    // Frames only present while a thread really waits (GetResult on a finished task returns without reaching them).
    private static readonly string[] s_deepWaits =
    [
        "System.Threading.Tasks.Task.SpinThenBlockingWait", "System.Threading.Tasks.Task.InternalWaitCore",
        "System.Threading.ManualResetEventSlim.Wait", "System.Threading.Monitor.Wait", "System.Threading.WaitHandle.Wait",
        "System.Threading.SpinWait.SpinOnce",
    ];

    /// <summary>
    /// A readable method name: the signature dropped, closure classes removed and compiler names spelled out:
    /// "Ns.CulpritsApi+&lt;&gt;c.&lt;MapCulprits&gt;b__0_0(int32)" becomes "Ns.CulpritsApi.MapCulprits lambda b__0_0",
    /// "Ns.T+&lt;GetAsync&gt;d__3.MoveNext()" becomes "Ns.T.GetAsync (async)".
    /// </summary>
    public static string Readable(string method)
    {
        var paren = method.IndexOf('(', StringComparison.Ordinal);
        var name = paren > 0 ? method[..paren] : method;
        name = AsyncLambda().Replace(name, ".${m} lambda b__${n} (async)");
        name = AsyncLocalFunction().Replace(name, ".${m} local ${f} (async)");
        name = ClosureClass().Replace(name, "");
        name = StateMachine().Replace(name, ".${m} (async)");
        name = Lambda().Replace(name, "${m} lambda b__${n}");
        name = LocalFunction().Replace(name, "${m} local ${f}");
        // A compiled expression tree: for a minimal API, ASP.NET Core's generated request delegate, into which a small
        // handler lambda is often inlined (then no frame of the app's own names it).
        name = CompiledDelegate().Replace(name, "CompiledDelegate.lambda_method${n} (endpoint delegate, handler inlined)");
        return name;
    }

    /// <summary>"Module!Ns.Type.Method" as "Type.Method": the short place a finding names.</summary>
    public static string Place(string frame)
    {
        var name = MethodPart(frame);
        var dots = TopLevelDots(name);
        return dots.Count < 2 ? name : name[(dots[^2] + 1)..];
    }

    /// <summary>The part after the module: "System.Private.CoreLib!System.GC.Collect" gives "System.GC.Collect".</summary>
    public static string MethodPart(string frame)
    {
        var bang = frame.IndexOf('!', StringComparison.Ordinal);
        return bang >= 0 ? frame[(bang + 1)..] : frame;
    }

    /// <summary>Whether the frame is a lock's or wait's machinery (System.Threading.*, runtime helpers, unresolved frames).</summary>
    public static bool IsPlumbing(string frame)
    {
        var name = MethodPart(frame);
        return name.Length == 0 || name == "?" || name.StartsWith("UNMANAGED_CODE_TIME", StringComparison.Ordinal)
            || s_plumbingPrefixes.Any(p => name.StartsWith(p, StringComparison.Ordinal));
    }

    /// <summary>The blocking call this frame is (its name without generic arguments), or null; see <see cref="BlockingCalls"/>.</summary>
    public static string? BlockingWait(string frame) =>
        BlockingCalls.Of(frame) is null ? null : WithoutGenericArguments(MethodPart(frame));

    public static bool IsDeepWait(string frame)
    {
        var name = WithoutGenericArguments(MethodPart(frame));
        return s_deepWaits.Any(w => name.StartsWith(w, StringComparison.Ordinal));
    }

    /// <summary>Index (root first) of the first frame, walking from <paramref name="from"/> towards the root, that is not plumbing; -1 if none.</summary>
    public static int CallSite(IReadOnlyList<string> rootToLeaf, int from)
    {
        for (var i = Math.Min(from, rootToLeaf.Count - 1); i >= 0; i--)
        {
            if (!IsPlumbing(rootToLeaf[i]))
            {
                return i;
            }
        }
        return -1;
    }

    /// <summary>Short place of the innermost frame of the app's own code at or above <paramref name="from"/>; null if none.</summary>
    public static string? InnermostApp(IReadOnlyList<string> rootToLeaf, int from, AppCode? app)
    {
        if (app is null)
        {
            return null;
        }
        for (var i = Math.Min(from, rootToLeaf.Count - 1); i >= 0; i--)
        {
            if (app.Owns(rootToLeaf[i]))
            {
                return Place(rootToLeaf[i]);
            }
        }
        return null;
    }

    /// <summary>Index (root first) of the outermost frame of a lock's slow path, so its caller took the lock; -1 if none.</summary>
    public static int OutermostLockSpin(IReadOnlyList<string> rootToLeaf)
    {
        for (var i = 0; i < rootToLeaf.Count; i++)
        {
            var name = MethodPart(rootToLeaf[i]);
            if (s_lockSlowPaths.Any(p => name.StartsWith(p, StringComparison.Ordinal)))
            {
                return i;
            }
        }
        return -1;
    }

    /// <summary>Index (root first) of the outermost blocking-call frame, so its caller is the code that blocks; -1 if none.</summary>
    public static int OutermostBlockingWait(IReadOnlyList<string> rootToLeaf) => BlockingCalls.Outermost(rootToLeaf);

    public static string WithoutGenericArguments(string name)
    {
        if (!name.Contains('[', StringComparison.Ordinal))
        {
            return name;
        }
        var text = new StringBuilder(name.Length);
        var depth = 0;
        foreach (var c in name)
        {
            depth += c == '[' ? 1 : 0;
            if (depth == 0)
            {
                text.Append(c);
            }
            depth -= c == ']' ? 1 : 0;
        }
        return text.ToString();
    }

    private static List<int> TopLevelDots(string name)
    {
        var dots = new List<int>();
        var depth = 0;
        for (var i = 0; i < name.Length; i++)
        {
            depth += name[i] is '[' or '<' ? 1 : name[i] is ']' or '>' ? -1 : 0;
            if (name[i] == '.' && depth == 0)
            {
                dots.Add(i);
            }
        }
        return dots;
    }

    [GeneratedRegex(@"\+<>c(__DisplayClass[0-9_]+)?(`[0-9]+)?(\[[^\]]*\])?(?=\.)")]
    private static partial Regex ClosureClass();

    [GeneratedRegex(@"(\+<>c(__DisplayClass[0-9_]+)?)?\+<<(?<m>[^<>]+)>b__(?<n>[0-9_]+)>d(__[0-9]+)?\.MoveNext")]
    private static partial Regex AsyncLambda();

    [GeneratedRegex(@"\+<<(?<m>[^<>]+)>g__(?<f>[^|]+)\|[0-9_]+>d(__[0-9]+)?\.MoveNext")]
    private static partial Regex AsyncLocalFunction();

    [GeneratedRegex(@"\+<(?<m>[^<>]+)>d__[0-9]+\.MoveNext")]
    private static partial Regex StateMachine();

    [GeneratedRegex(@"<(?<m>[^<>]+|<Main>\$)>b__(?<n>[0-9_]+)")]
    private static partial Regex Lambda();

    [GeneratedRegex(@"<(?<m>[^<>]+|<Main>\$)>g__(?<f>[^|]+)\|[0-9_]+")]
    private static partial Regex LocalFunction();

    [GeneratedRegex(@"^dynamicClass\.lambda_method(?<n>[0-9]+)$")]
    private static partial Regex CompiledDelegate();
}
