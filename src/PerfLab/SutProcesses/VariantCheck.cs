using System.Globalization;

namespace PerfLab.SutProcesses;

/// <summary>What /info confirmed of a launch, and what it contradicted.</summary>
/// <param name="CoveredEnvironment">The environment variables /info speaks for (the GC switches).</param>
public sealed record SutInfoCheck(IReadOnlyList<string> Confirmed, IReadOnlyList<string> Mismatches,
    IReadOnlySet<string> CoveredEnvironment);

/// <summary>Compares what a launch asked for with what the SUT's /info says is in effect.</summary>
public static class VariantCheck
{
    /// <summary>Every requested switch that did not take effect, as a sentence; empty when all did.</summary>
    public static IReadOnlyList<string> Mismatches(SutLaunch launch, SutInfo info) => Check(launch, info).Mismatches;

    /// <summary>Each requested switch /info speaks for, as confirmed or as a mismatch sentence.</summary>
    public static SutInfoCheck Check(SutLaunch launch, SutInfo info)
    {
        var problems = new List<string>();
        var confirmed = new List<string>();
        var covered = new HashSet<string>(StringComparer.Ordinal);
        void Expect(string what, string wanted, string actual)
        {
            if (!string.Equals(wanted, actual, StringComparison.OrdinalIgnoreCase))
            {
                problems.Add($"{what}: asked for {wanted}, /info reports {actual}");
            }
            else
            {
                confirmed.Add($"{what} {actual} (/info)");
            }
        }

        CheckSettings(launch.Settings, info, Expect);
        if (launch.Settings.Keys.Any(k => k.EndsWith("DataLayer", StringComparison.OrdinalIgnoreCase))
            && info.DataLayerVersions is { } versions)
        {
            confirmed.Add(DescribeDataLayer(info.DataLayer, versions));
        }
        if (launch.Environment.TryGetValue("DOTNET_gcServer", out var gcServer))
        {
            covered.Add("DOTNET_gcServer");
            Expect("GC mode (DOTNET_gcServer)", gcServer is "1" or "true" ? "server" : "workstation",
                info.Gc.IsServerGC ? "server" : "workstation");
        }
        if (launch.Environment.TryGetValue("DOTNET_GCDynamicAdaptationMode", out var datas) && info.Gc.IsServerGC)
        {
            covered.Add("DOTNET_GCDynamicAdaptationMode");
            Expect("DATAS (DOTNET_GCDynamicAdaptationMode)", datas is "1" ? "on" : "off",
                info.Gc.DynamicAdaptationMode switch { 1 => "on", 0 => "off", _ => "not reported" });
        }
        var wantedVersion = "Version=v" + launch.Framework["net".Length..];
        if (info.TargetFramework is not null && !info.TargetFramework.EndsWith(wantedVersion, StringComparison.Ordinal))
        {
            problems.Add($"framework: asked for {launch.Framework}, /info reports {info.TargetFramework}");
        }
        else if (info.TargetFramework is not null)
        {
            confirmed.Add($"framework {launch.Framework} (/info)");
        }
        return new SutInfoCheck(confirmed, problems, covered);
    }

    /// <summary>
    /// The data layer with the versions the SUT has loaded, e.g.
    /// "ef-core: EF Core 8.0.34, provider 8.0.11, Npgsql 8.0.9 (/info)".
    /// </summary>
    public static string DescribeDataLayer(string? layer, SutDataLayerVersions versions)
    {
        var parts = new[] { ("EF Core", versions.EfCore), ("provider", versions.EfCoreProvider), ("Npgsql", versions.Npgsql) }
            .Where(p => p.Item2 is not null).Select(p => $"{p.Item1} {p.Item2}");
        return $"{layer ?? "data layer"}: {string.Join(", ", parts)} (/info)";
    }

    private static void CheckSettings(IReadOnlyDictionary<string, string> settings, SutInfo info, Action<string, string, string> expect)
    {
        foreach (var (rawKey, value) in settings)
        {
            var key = rawKey.StartsWith("Sut:", StringComparison.OrdinalIgnoreCase) ? rawKey[4..] : rawKey;
            switch (key.ToLowerInvariant())
            {
                case "dataaccess": expect("DataAccess", value, info.DataAccess); break;
                case "serializer": expect("Serializer", value, info.Serializer); break;
                case "logging": expect("Logging", value, info.Logging); break;
                case "perrequestvariants": expect("PerRequestVariants", value, info.PerRequestVariants ? "true" : "false"); break;
                case "datalayer": expect("DataLayer", value, info.DataLayer ?? "not reported"); break;
                case "console": expect("Console", value, info.Console ?? "not reported"); break;
                case "threadpool:minworkerthreads":
                    expect("ThreadPool:MinWorkerThreads", value, info.ThreadPool.MinWorkerThreads.ToString(CultureInfo.InvariantCulture));
                    break;
                case "kestrel:limits:http2:initialconnectionwindowsize" when info.Http is not null:
                    expect("Kestrel HTTP/2 connection window", value,
                        info.Http.Http2InitialConnectionWindowSize.ToString(CultureInfo.InvariantCulture));
                    break;
                case "kestrel:limits:http2:initialstreamwindowsize" when info.Http is not null:
                    expect("Kestrel HTTP/2 stream window", value,
                        info.Http.Http2InitialStreamWindowSize.ToString(CultureInfo.InvariantCulture));
                    break;
                case "kestrel:endpointdefaults:protocols" when info.Http is not null:
                    expect("Kestrel protocols", value, info.Http.Protocols);
                    break;
                case "extraworkmicroseconds":
                    expect("ExtraWorkMicroseconds", value, info.ExtraWorkMicroseconds.ToString(CultureInfo.InvariantCulture));
                    break;
                case "threadpool:mincompletionportthreads":
                    expect("ThreadPool:MinCompletionPortThreads", value,
                        info.ThreadPool.MinCompletionPortThreads.ToString(CultureInfo.InvariantCulture));
                    break;
            }
        }
    }
}
