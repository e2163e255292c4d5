namespace PerfLab.Apps;

/// <summary>Where the app comes from: a project folder perflab publishes, a built DLL, or a command line.</summary>
public enum AppSourceKind { Project, Dll, Command }

/// <param name="Path">Project: the folder (or .csproj); Dll: the file; Command: the command line, run by /bin/sh.</param>
/// <param name="GitRef">Project: build this commit, branch or tag of the folder's git repository instead of the working tree.</param>
public sealed record AppSource(AppSourceKind Kind, string Path, string? GitRef = null);

/// <summary>
/// How the app is told its address, a free loopback port perflab picks: <c>--urls</c> on its command line, the
/// <c>ASPNETCORE_URLS</c> environment variable, or <c>{port}</c> written in the command itself.
/// </summary>
public enum AppBinding { Urls, Environment, Placeholder }

/// <summary>How configuration keys reach the app: <c>--Key=Value</c> arguments, or environment variables (Key__Sub).</summary>
public enum ConfigurationVia { Arguments, Environment }

/// <summary>Everything needed to start one variant of a user's app.</summary>
/// <param name="ReadyPath">A path that must answer 2xx before the app counts as ready.</param>
/// <param name="Environment">The variant's environment (the app's own under the variant's).</param>
/// <param name="Configuration">Configuration keys, passed as <paramref name="ConfigurationVia"/> says.</param>
/// <param name="WorkingDirectory">Where a command runs (a project's or DLL's own folder otherwise, its content root).</param>
/// <param name="CpuSet">CPU list for taskset, or null to leave the app unpinned.</param>
public sealed record AppLaunch(
    AppSource Source,
    AppBinding Binding,
    string ReadyPath,
    TimeSpan ReadyTimeout,
    IReadOnlyDictionary<string, string> Environment,
    IReadOnlyDictionary<string, string> Configuration,
    ConfigurationVia ConfigurationVia,
    string WorkingDirectory,
    string? CpuSet = null)
{
    public static readonly TimeSpan DefaultReadyTimeout = TimeSpan.FromSeconds(60);

    /// <summary>The placeholder a command writes where the port goes.</summary>
    public const string PortPlaceholder = "{port}";
}
