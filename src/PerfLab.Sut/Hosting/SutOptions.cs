using PerfLab.Sut.Data;

namespace PerfLab.Sut.Hosting;

/// <summary>The variant switches, bound from the "Sut" configuration section (env: Sut__DataAccess=sync, ...).</summary>
public sealed record SutOptions
{
    public const string Section = "Sut";

    public string DataAccess { get; init; } = "async";
    public string Serializer { get; init; } = "system-text-json";
    public string Logging { get; init; } = "none";
    /// <summary>ef-core or ado-net; unset: ef-core, as seed 000's app.</summary>
    public string? DataLayer { get; init; }
    /// <summary>What perflab made the standard output: terminal (a pseudo-terminal it reads) or redirected (a file).</summary>
    public string? Console { get; init; }
    public ThreadPoolOptions ThreadPool { get; init; } = new();
    /// <summary>Seconds before a database command or connection attempt gives up (the 503 path).</summary>
    public int CommandTimeoutSeconds { get; init; } = 5;
    /// <summary>CPU spun on every request before it is handled: a known, injected slowdown to check the verdicts against.</summary>
    public int ExtraWorkMicroseconds { get; init; }
    /// <summary>
    /// Serve every per-request switch (Serializer, Logging, ExtraWorkMicroseconds) and take each request's from its
    /// <c>X-PerfLab-Variant</c> header when it carries the run's token (<see cref="RequestVariants"/>): perflab's
    /// in-process blocks alternate variants inside one process. Off by default: the header is then ignored.
    /// </summary>
    public bool PerRequestVariants { get; init; }
}

/// <summary>Minimum thread-pool threads applied at start; 0 leaves the runtime's default.</summary>
public sealed record ThreadPoolOptions
{
    public int MinWorkerThreads { get; init; }
    public int MinCompletionPortThreads { get; init; }
}

public enum DataAccessMode { Async, Sync, SyncOverAsync }

/// <summary>EF Core (seed 000's) or Npgsql's ADO.NET API: the same queries and the same JSON, by two data layers.</summary>
public enum DataLayerKind { EfCore, AdoNet }

/// <summary>Where the standard output goes: a file or pipe, or a terminal (seed 004's console).</summary>
public enum ConsoleKind { Redirected, Terminal }

public enum SerializerKind { SystemTextJson, SystemTextJsonSourceGen, Newtonsoft }

/// <summary>None: no line per request, as seed 000's app; the others are seed 004's logging variants.</summary>
public enum LoggingMode { None, Default, LockedConsole, SourceGenerated }

/// <summary>The variant values as they are written in configuration, and their parsing.</summary>
public static class Variants
{
    public static readonly IReadOnlyDictionary<string, DataAccessMode> DataAccess = new Dictionary<string, DataAccessMode>
    {
        ["async"] = DataAccessMode.Async,
        ["sync"] = DataAccessMode.Sync,
        ["sync-over-async"] = DataAccessMode.SyncOverAsync,
    };

    public static readonly IReadOnlyDictionary<string, SerializerKind> Serializer = new Dictionary<string, SerializerKind>
    {
        ["system-text-json"] = SerializerKind.SystemTextJson,
        ["system-text-json-sourcegen"] = SerializerKind.SystemTextJsonSourceGen,
        ["newtonsoft"] = SerializerKind.Newtonsoft,
    };

    public static readonly IReadOnlyDictionary<string, LoggingMode> Logging = new Dictionary<string, LoggingMode>
    {
        ["none"] = LoggingMode.None,
        ["default"] = LoggingMode.Default,
        ["locked-console"] = LoggingMode.LockedConsole,
        ["source-generated"] = LoggingMode.SourceGenerated,
    };

    public static readonly IReadOnlyDictionary<string, DataLayerKind> DataLayer = new Dictionary<string, DataLayerKind>
    {
        ["ef-core"] = DataLayerKind.EfCore,
        ["ado-net"] = DataLayerKind.AdoNet,
    };

    public static readonly IReadOnlyDictionary<string, ConsoleKind> Console = new Dictionary<string, ConsoleKind>
    {
        ["redirected"] = ConsoleKind.Redirected,
        ["terminal"] = ConsoleKind.Terminal,
    };

    public static string NameOf<T>(IReadOnlyDictionary<string, T> table, T value) where T : struct, Enum =>
        table.First(pair => pair.Value.Equals(value)).Key;
}

/// <summary>The options checked and parsed once at start; a bad value stops the app with the key and allowed values.</summary>
public sealed record EffectiveVariants(DataAccessMode DataAccess, SerializerKind Serializer, LoggingMode Logging,
    ThreadPoolOptions ThreadPool, int CommandTimeoutSeconds, int ExtraWorkMicroseconds = 0,
    DataLayerKind DataLayer = DataLayerKind.EfCore)
{
    /// <summary>Sut:PerRequestVariants: a request may choose its own per-request switches (<see cref="RequestVariant"/>).</summary>
    public bool PerRequest { get; init; }

    public static EffectiveVariants From(SutOptions options)
    {
        var errors = new List<string>();
        var dataAccess = Parse(Variants.DataAccess, options.DataAccess, "DataAccess", errors);
        var serializer = Parse(Variants.Serializer, options.Serializer, "Serializer", errors);
        var logging = Parse(Variants.Logging, options.Logging, "Logging", errors);
        var dataLayer = ParseDataLayer(options.DataLayer, errors);
        CheckConsole(options.Console, errors);
        CheckRange(options.ThreadPool.MinWorkerThreads, 0, 32767, "ThreadPool:MinWorkerThreads", errors);
        CheckRange(options.ThreadPool.MinCompletionPortThreads, 0, 32767, "ThreadPool:MinCompletionPortThreads", errors);
        CheckRange(options.CommandTimeoutSeconds, 1, 600, "CommandTimeoutSeconds", errors);
        CheckRange(options.ExtraWorkMicroseconds, 0, 1_000_000, "ExtraWorkMicroseconds", errors);
        if (errors.Count > 0)
        {
            throw new InvalidVariantException(errors);
        }
        return new(dataAccess, serializer, logging, options.ThreadPool, options.CommandTimeoutSeconds, options.ExtraWorkMicroseconds,
            dataLayer)
        {
            PerRequest = options.PerRequestVariants,
        };
    }

    private static DataLayerKind ParseDataLayer(string? value, List<string> errors) =>
        string.IsNullOrWhiteSpace(value) ? DataLayers.Default : Parse(Variants.DataLayer, value, "DataLayer", errors);

    // The SUT cannot choose its standard output; it checks that what perflab says it made is what the runtime sees.
    private static void CheckConsole(string? value, List<string> errors)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            return;
        }
        var before = errors.Count;
        var wanted = Parse(Variants.Console, value, "Console", errors);
        if (errors.Count == before && wanted != ConsoleOutput.Current)
        {
            errors.Add($"{SutOptions.Section}:Console = '{value}' but the standard output " +
                $"is {Variants.NameOf(Variants.Console, ConsoleOutput.Current)}: " +
                "start the SUT through perflab (which opens the terminal for Console=terminal), or leave the setting out.");
        }
    }

    private static T Parse<T>(IReadOnlyDictionary<string, T> table, string value, string key, List<string> errors)
        where T : struct
    {
        if (table.TryGetValue(value.Trim().ToLowerInvariant(), out var parsed))
        {
            return parsed;
        }
        errors.Add($"{SutOptions.Section}:{key} = '{value}' is not valid; allowed: {string.Join(", ", table.Keys)}.");
        return default;
    }

    private static void CheckRange(int value, int min, int max, string key, List<string> errors)
    {
        if (value < min || value > max)
        {
            errors.Add($"{SutOptions.Section}:{key} = {value} is out of range; allowed: {min}..{max}.");
        }
    }
}

/// <summary>Where this process's standard output really goes, as the runtime sees it (isatty on stdout).</summary>
public static class ConsoleOutput
{
    public static ConsoleKind Current => System.Console.IsOutputRedirected ? ConsoleKind.Redirected : ConsoleKind.Terminal;
}

public sealed class InvalidVariantException(IReadOnlyList<string> errors)
    : Exception("Invalid configuration:" + Environment.NewLine + string.Join(Environment.NewLine, errors.Select(e => "  " + e)))
{
    public IReadOnlyList<string> Errors { get; } = errors;
}
