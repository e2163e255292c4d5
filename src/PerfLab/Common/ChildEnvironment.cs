using System.Diagnostics;

namespace PerfLab.Common;

// What perflab's own process runs with and the processes it starts must not inherit. A generator pinned to one core
// (taskset, or a one-core host) makes the runtime see one processor, and there it multiplies the tiering delay by
// TC_DelaySingleProcMultiplier (10 by default): the load engine's hot path is still being promoted to tier 1 inside
// the measured window. perflab's launchers shorten it for perflab alone; the runtime reads the multiplier only from
// the environment (not from runtimeconfig), so every child would inherit it, and an app under test (or PostgreSQL, or a
// traced process) must run the runtime's defaults unless the user's variant sets the variable itself.
internal static class ChildEnvironment
{
    // The multiplier perflab runs with: the single-processor delay becomes the runtime's 100 ms, as on two cores.
    public const string TieringMultiplier = "DOTNET_TC_DelaySingleProcMultiplier";
    public const string OwnMultiplier = "1";

    // Both spellings the runtime reads (COMPlus_ is the older prefix).
    private static readonly string[] PerflabOnly = [TieringMultiplier, "COMPlus_TC_DelaySingleProcMultiplier"];

    // The POSIX shell prefix that starts perflab with its own multiplier (`exec env VAR=1 dotnet perflab.dll ...`):
    // the remote `perflab host ...` commands, where no launcher script runs.
    public static string ShellPrefix => $"env {TieringMultiplier}={Own} ";

    // The value perflab passes to a perflab it starts: its own, when the user set one, else OwnMultiplier.
    public static string Own => Environment.GetEnvironmentVariable(TieringMultiplier) is { Length: > 0 } v
        && v.All(char.IsAsciiDigit) ? v : OwnMultiplier;

    // The child's environment: perflab's own, without the perflab-only variables, then the caller's explicit ones
    // (a variant's DOTNET_TC_DelaySingleProcMultiplier=... is kept, since the user asked for it).
    public static void Apply(ProcessStartInfo info, IReadOnlyDictionary<string, string>? explicitVariables = null)
    {
        foreach (var name in PerflabOnly)
        {
            info.Environment.Remove(name);
        }
        foreach (var (name, value) in explicitVariables ?? new Dictionary<string, string>())
        {
            info.Environment[name] = value;
        }
    }
}
