using System.Globalization;

namespace PerfLab.Sut;

/// <summary>Compares what a launch asked for with what the SUT's /info says is in effect.</summary>
public static class VariantCheck
{
    /// <summary>Every requested switch that did not take effect, as a sentence; empty when all did.</summary>
    public static IReadOnlyList<string> Mismatches(SutLaunch launch, SutInfo info)
    {
        var problems = new List<string>();
        void Expect(string what, string wanted, string actual)
        {
            if (!string.Equals(wanted, actual, StringComparison.OrdinalIgnoreCase))
            {
                problems.Add($"{what}: asked for {wanted}, /info reports {actual}");
            }
        }

        foreach (var (rawKey, value) in launch.Settings)
        {
            var key = rawKey.StartsWith("Sut:", StringComparison.OrdinalIgnoreCase) ? rawKey[4..] : rawKey;
            switch (key.ToLowerInvariant())
            {
                case "dataaccess": Expect("DataAccess", value, info.DataAccess); break;
                case "serializer": Expect("Serializer", value, info.Serializer); break;
                case "logging": Expect("Logging", value, info.Logging); break;
                case "datalayer": Expect("DataLayer", value, info.DataLayer ?? "not reported"); break;
                case "console": Expect("Console", value, info.Console ?? "not reported"); break;
                case "threadpool:minworkerthreads":
                    Expect("ThreadPool:MinWorkerThreads", value, info.ThreadPool.MinWorkerThreads.ToString(CultureInfo.InvariantCulture));
                    break;
                case "kestrel:limits:http2:initialconnectionwindowsize" when info.Http is not null:
                    Expect("Kestrel HTTP/2 connection window", value, info.Http.Http2InitialConnectionWindowSize.ToString(CultureInfo.InvariantCulture));
                    break;
                case "kestrel:limits:http2:initialstreamwindowsize" when info.Http is not null:
                    Expect("Kestrel HTTP/2 stream window", value, info.Http.Http2InitialStreamWindowSize.ToString(CultureInfo.InvariantCulture));
                    break;
                case "kestrel:endpointdefaults:protocols" when info.Http is not null:
                    Expect("Kestrel protocols", value, info.Http.Protocols);
                    break;
                case "extraworkmicroseconds":
                    Expect("ExtraWorkMicroseconds", value, info.ExtraWorkMicroseconds.ToString(CultureInfo.InvariantCulture));
                    break;
                case "threadpool:mincompletionportthreads":
                    Expect("ThreadPool:MinCompletionPortThreads", value, info.ThreadPool.MinCompletionPortThreads.ToString(CultureInfo.InvariantCulture));
                    break;
            }
        }
        if (launch.Environment.TryGetValue("DOTNET_gcServer", out var gcServer))
        {
            Expect("GC mode (DOTNET_gcServer)", gcServer is "1" or "true" ? "server" : "workstation",
                info.Gc.IsServerGC ? "server" : "workstation");
        }
        if (launch.Environment.TryGetValue("DOTNET_GCDynamicAdaptationMode", out var datas) && info.Gc.IsServerGC)
        {
            Expect("DATAS (DOTNET_GCDynamicAdaptationMode)", datas is "1" ? "on" : "off",
                info.Gc.DynamicAdaptationMode switch { 1 => "on", 0 => "off", _ => "not reported" });
        }
        var wantedVersion = "Version=v" + launch.Framework["net".Length..];
        if (info.TargetFramework is not null && !info.TargetFramework.EndsWith(wantedVersion, StringComparison.Ordinal))
        {
            problems.Add($"framework: asked for {launch.Framework}, /info reports {info.TargetFramework}");
        }
        return problems;
    }
}
