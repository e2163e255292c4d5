using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Sut;

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

    /// <summary>Where the SUT's standard output goes (terminal or redirected); null from a build that predates the switch.</summary>
    public string? Console { get; init; }
}

public sealed record SutHttpInfo(string Protocols, int Http2InitialConnectionWindowSize, int Http2InitialStreamWindowSize);

public sealed record SutGcInfo(bool IsServerGC, string LatencyMode, bool Concurrent, long? HeapCount, long? DynamicAdaptationMode);

public sealed record SutThreadPoolInfo(int MinWorkerThreads, int MinCompletionPortThreads, int MaxWorkerThreads,
    int MaxCompletionPortThreads, int ThreadCount);

[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(SutInfo))]
internal sealed partial class SutInfoJsonContext : JsonSerializerContext;
