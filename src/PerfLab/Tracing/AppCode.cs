namespace PerfLab.Tracing;

/// <summary>
/// Which frames of a trace are the app's own code: those under its namespace, or in its main module. The module
/// matters for apps that are not ours: top-level statements and minimal-API lambdas live in the global namespace
/// ("TinyShop!Program+&lt;&gt;c.&lt;&lt;Main&gt;$&gt;b__0_1"), which no namespace prefix reaches.
/// </summary>
/// <param name="Namespace">A namespace ("PerfLab.Sut"); its frames and those of namespaces below it are the app's.</param>
/// <param name="Module">The main assembly's name as a trace names its module ("TinyShop"), when known.</param>
public sealed record AppCode(string? Namespace, string? Module = null)
{
    public bool Owns(string frame)
    {
        var name = FrameNames.MethodPart(frame);
        if (!string.IsNullOrEmpty(Namespace) && name.StartsWith(Namespace.TrimEnd('.') + ".", StringComparison.Ordinal))
        {
            return true;
        }
        // Code generated into the app's assembly for the framework (the request delegate generator's
        // Microsoft.AspNetCore.Http.Generated, a serializer context's System.Text.Json use) stays the framework's.
        return !string.IsNullOrEmpty(Module) && frame.StartsWith(Module + "!", StringComparison.OrdinalIgnoreCase)
               && !name.StartsWith("Microsoft.", StringComparison.Ordinal) && !name.StartsWith("System.", StringComparison.Ordinal);
    }
}
