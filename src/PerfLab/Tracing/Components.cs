namespace PerfLab.Tracing;

/// <summary>The parts of a request's CPU time the breakdown names.</summary>
public enum Component
{
    Gc,
    Json,
    Database,
    AspNetCore,
    Logging,
    App,
    Other,
}

/// <summary>
/// Sorts a CPU sample into a component by its frames. Rule: walk from the leaf towards the root and take the first
/// frame that matches a component, so time spent inside a serializer called from the app counts as JSON, and time
/// in the app's own loop called from Kestrel counts as the app. A sample no frame matches is Other.
/// </summary>
public sealed class ComponentClassifier(AppCode app)
{
    // Prefixes of module!method or namespace-qualified frame names. Order matters only within one frame.
    private static readonly (string Prefix, Component Component)[] s_prefixes =
    [
        ("System.GC", Component.Gc),
        ("GC ", Component.Gc),
        ("System.Text.Json", Component.Json),
        ("Newtonsoft.Json", Component.Json),
        ("Microsoft.EntityFrameworkCore", Component.Database),
        ("Npgsql", Component.Database),
        ("Microsoft.AspNetCore", Component.AspNetCore),
        ("Microsoft.Extensions.Logging", Component.Logging),
        ("System.Console", Component.Logging),
    ];

    /// <param name="framesRootToLeaf">The sample's frames, outermost first, as the exports hold them.</param>
    public Component Classify(IReadOnlyList<string> framesRootToLeaf)
    {
        for (var i = framesRootToLeaf.Count - 1; i >= 0; i--)
        {
            var component = Of(framesRootToLeaf[i]);
            if (component is not Component.Other)
            {
                return component;
            }
        }
        return Component.Other;
    }

    public Component Of(string frame)
    {
        if (app.Owns(frame))
        {
            return Component.App;
        }
        // TraceEvent names managed frames "Module!Namespace.Type.Method(...)"; match on what follows the '!'.
        var name = FrameNames.MethodPart(frame);
        foreach (var (prefix, component) in s_prefixes)
        {
            if (name.StartsWith(prefix, StringComparison.Ordinal))
            {
                return component;
            }
        }
        // Native GC frames in the runtime are named like "coreclr!WKS::gc_heap::..." or "SVR::gc_heap".
        return name.Contains("gc_heap", StringComparison.Ordinal) ? Component.Gc : Component.Other;
    }
}
