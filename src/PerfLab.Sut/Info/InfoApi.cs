using System.Runtime;
using System.Runtime.InteropServices;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;
using PerfLab.Sut.Data;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Info;

/// <summary>GET /info: what is really in effect in this process, read from the runtime, not from configuration.</summary>
public static class InfoApi
{
    public static IEndpointRouteBuilder MapInfo(this IEndpointRouteBuilder app)
    {
        app.MapGet("/info", (EffectiveVariants variants, RequestVariant request, DatabaseSettings database,
            IOptions<KestrelServerOptions> kestrel, IConfiguration configuration) =>
            TypedResults.Ok(SutInfo.Read(variants, database, kestrel.Value, configuration, request)));
        return app;
    }
}

/// <summary>The body of GET /info.</summary>
/// <param name="DataLayer">ef-core or ado-net, the one serving the pages;
/// <paramref name="DataLayers"/>: the ones this build offers.</param>
/// <param name="Console">Where the standard output really goes: terminal (a pseudo-terminal perflab reads) or redirected.</param>
/// <param name="DataLayerVersions">The EF Core, EF Core provider and Npgsql versions this process has loaded.</param>
/// <param name="MethodsJitted">Methods the JIT compiled since the process started (the total behind the methods-jitted counters).</param>
public sealed record SutInfo(
    int ProcessId,
    string Runtime,
    string RuntimeVersion,
    string? TargetFramework,
    int ProcessorCount,
    long WorkingSet,
    GcInfo Gc,
    ThreadPoolInfo ThreadPool,
    string Serializer,
    string DataAccess,
    string Logging,
    bool DatabaseConfigured,
    HttpInfo Http,
    int ExtraWorkMicroseconds,
    string DataLayer,
    IReadOnlyList<string> DataLayers,
    DataLayerVersions DataLayerVersions,
    string Console,
    long MethodsJitted)
{
    /// <summary>The database server the connection string names (host:port, never its credentials); null without one.</summary>
    public string? DatabaseServer { get; init; }

    /// <summary>
    /// Sut:PerRequestVariants: Serializer, Logging and ExtraWorkMicroseconds above are then this request's (its
    /// X-PerfLab-Variant header, honoured with the run's token), as every request carrying the same header is served.
    /// </summary>
    public bool PerRequestVariants { get; init; }

    /// <param name="request">The request's switches; null: the process's.</param>
    public static SutInfo Read(EffectiveVariants variants, DatabaseSettings database, KestrelServerOptions kestrel,
        IConfiguration configuration, RequestVariant? request = null)
    {
        request ??= new RequestVariant(variants);
        System.Threading.ThreadPool.GetMinThreads(out var minWorker, out var minIo);
        System.Threading.ThreadPool.GetMaxThreads(out var maxWorker, out var maxIo);
        var gcConfig = GC.GetConfigurationVariables();
        return new SutInfo(
            Environment.ProcessId,
            RuntimeInformation.FrameworkDescription,
            Environment.Version.ToString(),
            AppContext.TargetFrameworkName,
            Environment.ProcessorCount,
            Environment.WorkingSet,
            new GcInfo(
                GCSettings.IsServerGC,
                GCSettings.LatencyMode.ToString(),
                gcConfig.TryGetValue("ConcurrentGC", out var concurrent) && concurrent is true,
                gcConfig.TryGetValue("HeapCount", out var heaps)
                    ? Convert.ToInt64(heaps, System.Globalization.CultureInfo.InvariantCulture)
                    : null,
                gcConfig.TryGetValue("GCDynamicAdaptationMode", out var datas)
                    ? Convert.ToInt64(datas, System.Globalization.CultureInfo.InvariantCulture)
                    : null,
                gcConfig.ToDictionary(pair => pair.Key, pair =>
                    Convert.ToString(pair.Value, System.Globalization.CultureInfo.InvariantCulture) ?? "")),
            new ThreadPoolInfo(minWorker, minIo, maxWorker, maxIo, System.Threading.ThreadPool.ThreadCount),
            Variants.NameOf(Variants.Serializer, request.Serializer),
            Variants.NameOf(Variants.DataAccess, variants.DataAccess),
            Variants.NameOf(Variants.Logging, request.Logging),
            database.ConnectionString is not null,
            new HttpInfo(configuration["Kestrel:EndpointDefaults:Protocols"] ?? "Http1AndHttp2",
                kestrel.Limits.Http2.InitialConnectionWindowSize, kestrel.Limits.Http2.InitialStreamWindowSize),
            request.ExtraWorkMicroseconds,
            Variants.NameOf(Variants.DataLayer, variants.DataLayer),
            Data.DataLayers.Available.Select(kind => Variants.NameOf(Variants.DataLayer, kind)).ToList(),
            Data.DataLayerVersions.Loaded(),
            Variants.NameOf(Variants.Console, ConsoleOutput.Current),
            System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: false))
        {
            DatabaseServer = database.ConnectionString is { } cs && new Npgsql.NpgsqlConnectionStringBuilder(cs) is var builder
                ? $"{builder.Host}:{builder.Port.ToString(System.Globalization.CultureInfo.InvariantCulture)}"
                : null,
            PerRequestVariants = variants.PerRequest,
        };
    }
}

/// <param name="DynamicAdaptationMode">DATAS: 1 when on, 0 when off, null where the runtime does not report it.</param>
public sealed record GcInfo(bool IsServerGC, string LatencyMode, bool Concurrent, long? HeapCount, long? DynamicAdaptationMode,
    IReadOnlyDictionary<string, string> Configuration);

/// <summary>What Kestrel speaks on cleartext and the HTTP/2 receive windows it advertises (seed 002).</summary>
public sealed record HttpInfo(string Protocols, int Http2InitialConnectionWindowSize, int Http2InitialStreamWindowSize);

public sealed record ThreadPoolInfo(int MinWorkerThreads, int MinCompletionPortThreads, int MaxWorkerThreads,
    int MaxCompletionPortThreads, int ThreadCount);
