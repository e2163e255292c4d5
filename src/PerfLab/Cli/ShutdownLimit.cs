using System.CommandLine;

namespace PerfLab.Cli;

/// <summary>
/// How long Ctrl+C may take before System.CommandLine returns 130 on its own. A run stopping its SUTs on a busy machine
/// needs longer than the library's 2 s to write what it measured; a run repeated as invocations waits for its child
/// invocation to do that first (the child keeps its own limit), then combines the finished ones, so its limit is the
/// child's and the combining's together, or Ctrl+C would cut the combined report it exists to write.
/// </summary>
public static class ShutdownLimit
{
    public static readonly TimeSpan OneProcess = TimeSpan.FromSeconds(30);

    /// <summary>Time to combine the finished invocations and write their reports once the child has stopped.</summary>
    public static readonly TimeSpan Combining = TimeSpan.FromSeconds(30);

    public static TimeSpan For(ParseResult parse) =>
        parse.CommandResult.Children.OfType<System.CommandLine.Parsing.OptionResult>()
            .Any(o => o.Option.Name == RunTuningOptions.InvocationsName && o.GetValueOrDefault<int>() > 1)
            ? OneProcess + Combining
            : OneProcess;
}
