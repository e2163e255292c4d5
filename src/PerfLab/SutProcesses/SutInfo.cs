using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.SutProcesses;

/// <summary>The parts of the SUT's GET /info that perflab checks and records.</summary>
public sealed record SutInfo(
    int ProcessId,
    string Runtime,
    string RuntimeVersion,
    string? TargetFramework,
    int ProcessorCount,
    long WorkingSet,
    SutGcInfo Gc,
    SutThreadPoolInfo ThreadPool,
    string Serializer,
    string DataAccess,
    string Logging,
    bool DatabaseConfigured,
    SutHttpInfo? Http)
{
    /// <summary>Sut:ExtraWorkMicroseconds in effect (0 from a net8.0/net9.0 build that predates the switch, or when off).</summary>
    public int ExtraWorkMicroseconds { get; init; }

    /// <summary>Sut:DataLayer in effect (ef-core or ado-net); null from a build that predates the switch.</summary>
    public string? DataLayer { get; init; }

    /// <summary>The EF Core, EF Core provider and Npgsql versions the SUT has loaded; null from a build that predates it.</summary>
    public SutDataLayerVersions? DataLayerVersions { get; init; }

    /// <summary>Where the SUT's standard output goes (terminal or redirected); null from a build that predates the switch.</summary>
    public string? Console { get; init; }

    /// <summary>Methods jitted since the process started; null from a build that predates it.</summary>
    public long? MethodsJitted { get; init; }

    /// <summary>
    /// The database server the SUT's connection string names (host:port); null from a build that predates it, or without
    /// one.
    /// </summary>
    public string? DatabaseServer { get; init; }

    /// <summary>
    /// Sut:PerRequestVariants: Serializer, Logging and ExtraWorkMicroseconds are the asking request's (its
    /// X-PerfLab-Variant header); false from a build that predates the switch, or when off.
    /// </summary>
    public bool PerRequestVariants { get; init; }

    /// <summary>What /info reported, as the flat map results.json keeps (perRequestVariants only when on).</summary>
    public IReadOnlyDictionary<string, string> ToMap()
    {
        static string S(object? v) => Convert.ToString(v, CultureInfo.InvariantCulture) ?? "";
        var map = new Dictionary<string, string>
        {
            ["runtime"] = Runtime,
            ["targetFramework"] = TargetFramework ?? "",
            ["processorCount"] = S(ProcessorCount),
            ["gc"] = Gc.IsServerGC ? "server" : "workstation",
            ["gcHeapCount"] = S(Gc.HeapCount),
            ["gcDynamicAdaptationMode"] = S(Gc.DynamicAdaptationMode),
            ["gcConcurrent"] = S(Gc.Concurrent),
            ["threadPoolMin"] = $"{ThreadPool.MinWorkerThreads}/{ThreadPool.MinCompletionPortThreads}",
            ["threadPoolMax"] = $"{ThreadPool.MaxWorkerThreads}/{ThreadPool.MaxCompletionPortThreads}",
            ["serializer"] = Serializer,
            ["dataAccess"] = DataAccess,
            ["logging"] = Logging,
            ["dataLayer"] = DataLayer ?? "",
            ["efCore"] = DataLayerVersions?.EfCore ?? "",
            ["efCoreProvider"] = DataLayerVersions?.EfCoreProvider ?? "",
            ["npgsql"] = DataLayerVersions?.Npgsql ?? "",
            ["console"] = Console ?? "",
            ["databaseServer"] = DatabaseServer ?? "",
        };
        if (PerRequestVariants)
        {
            map["perRequestVariants"] = "true";
        }
        return map;
    }
}

/// <summary>Versions of the data-access assemblies loaded in the SUT; null where one is not loaded (EF Core under ADO.NET).</summary>
public sealed record SutDataLayerVersions(string? EfCore, string? EfCoreProvider, string? Npgsql);

public sealed record SutHttpInfo(string Protocols, int Http2InitialConnectionWindowSize, int Http2InitialStreamWindowSize);

public sealed record SutGcInfo(bool IsServerGC, string LatencyMode, bool Concurrent, long? HeapCount, long? DynamicAdaptationMode);

public sealed record SutThreadPoolInfo(int MinWorkerThreads, int MinCompletionPortThreads, int MaxWorkerThreads,
    int MaxCompletionPortThreads, int ThreadCount);

[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(SutInfo))]
internal sealed partial class SutInfoJsonContext : JsonSerializerContext;
