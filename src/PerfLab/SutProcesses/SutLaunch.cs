namespace PerfLab.SutProcesses;

/// <summary>How to start one SUT process.</summary>
/// <param name="Settings">SUT configuration keys relative to its "Sut" section (DataAccess, ThreadPool:MinWorkerThreads, ...)
/// or absolute (ConnectionStrings:AdventureWorks); passed as environment variables.</param>
/// <param name="Environment">Extra environment variables, e.g. the runtime's own GC switches DOTNET_gcServer.</param>
/// <param name="Framework">net10.0 (the default build) or another target framework, published on demand.</param>
/// <param name="CpuSet">CPU list for taskset (e.g. "0"), or null to leave the process unpinned.</param>
/// <param name="DiagnosticsToken">The token its /diagnostics/* ask (an app host's SUT), passed in its environment apart from
/// <paramref name="Environment"/>, whose entries the variant check reads back into the results.</param>
public sealed record SutLaunch(
    IReadOnlyDictionary<string, string> Settings,
    IReadOnlyDictionary<string, string> Environment,
    string? ConnectionString,
    string Framework = SutLaunch.DefaultFramework,
    string Urls = "http://127.0.0.1:0",
    string? CpuSet = null,
    string? LogFile = null,
    string? DiagnosticsToken = null)
{
    public const string DefaultFramework = "net10.0";

    /// <summary>The SUT's configuration key Diagnostics:Token (PerfLab.Sut's DiagnosticsAccess) as an environment variable.</summary>
    public const string DiagnosticsTokenVariable = "Diagnostics__Token";

    /// <summary>Whether these settings make Kestrel serve HTTP/2 only (h2c), so a client must speak HTTP/2 to it.</summary>
    public static bool IsHttp2Only(IReadOnlyDictionary<string, string> settings) =>
        settings.Any(s => s.Key.Equals("Kestrel:EndpointDefaults:Protocols", StringComparison.OrdinalIgnoreCase)
            && s.Value.Equals("Http2", StringComparison.OrdinalIgnoreCase));

    public static readonly IReadOnlyList<string> KnownFrameworks = ["net8.0", "net9.0", "net10.0"];

    public static SutLaunch Default(string? connectionString) =>
        new(new Dictionary<string, string>(), new Dictionary<string, string>(), connectionString);

    /// <summary>The environment variable that carries a configuration key to the SUT (":" becomes "__").</summary>
    public static string EnvironmentName(string key)
    {
        var absolute = key.StartsWith("ConnectionStrings:", StringComparison.OrdinalIgnoreCase)
            || key.StartsWith("Sut:", StringComparison.OrdinalIgnoreCase)
            || key.StartsWith("Logging:", StringComparison.OrdinalIgnoreCase)
            || key.StartsWith("Kestrel:", StringComparison.OrdinalIgnoreCase);
        return (absolute ? key : "Sut:" + key).Replace(":", "__", StringComparison.Ordinal);
    }
}
