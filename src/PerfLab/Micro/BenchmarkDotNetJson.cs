using System.Text.Json;

namespace PerfLab.Micro;

/// <summary>Reads BenchmarkDotNet's JSON reports (any of its json exporters: brief, full, compressed).</summary>
public static class BenchmarkDotNetJson
{
    /// <summary>Reads every <c>*-report*.json</c> in <paramref name="resultsDirectory"/>, in name order.</summary>
    public static MicroResults ReadDirectory(string resultsDirectory)
    {
        if (!Directory.Exists(resultsDirectory))
        {
            return new MicroResults(null, []);
        }
        var files = Directory.GetFiles(resultsDirectory, "*-report*.json").Order(StringComparer.Ordinal);
        return Merge(files.Select(f => Read(File.ReadAllText(f))));
    }

    public static MicroResults Merge(IEnumerable<MicroResults> parts)
    {
        MicroHost? host = null;
        var benchmarks = new List<BenchmarkMeasurement>();
        foreach (var part in parts)
        {
            host ??= part.Host;
            benchmarks.AddRange(part.Benchmarks);
        }
        return new MicroResults(host, benchmarks);
    }

    public static MicroResults Read(string json)
    {
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        var benchmarks = new List<BenchmarkMeasurement>();
        string? job = null;
        if (root.TryGetProperty("Benchmarks", out var list) && list.ValueKind == JsonValueKind.Array)
        {
            foreach (var b in list.EnumerateArray())
            {
                benchmarks.Add(ReadBenchmark(b));
                job ??= JobOf(String(b, "DisplayInfo"));
            }
        }

        MicroHost? host = null;
        if (root.TryGetProperty("HostEnvironmentInfo", out var h) && h.ValueKind == JsonValueKind.Object)
        {
            host = new MicroHost(
                String(h, "BenchmarkDotNetVersion"),
                String(h, "RuntimeVersion"),
                String(h, "ProcessorName"),
                h.TryGetProperty("LogicalCoreCount", out var cores) && cores.ValueKind == JsonValueKind.Number
                    && cores.TryGetInt32(out var n) ? n : 0,
                String(h, "OsVersion"),
                job ?? "");
        }
        return new MicroResults(host, benchmarks);
    }

    private static BenchmarkMeasurement ReadBenchmark(JsonElement b)
    {
        double? mean = null, stdDev = null;
        if (b.TryGetProperty("Statistics", out var stats) && stats.ValueKind == JsonValueKind.Object)
        {
            mean = Number(stats, "Mean");
            stdDev = Number(stats, "StandardDeviation");
        }
        long? allocated = null;
        if (b.TryGetProperty("Memory", out var memory) && memory.ValueKind == JsonValueKind.Object
            && memory.TryGetProperty("BytesAllocatedPerOperation", out var bytes) && bytes.ValueKind == JsonValueKind.Number
            && bytes.TryGetInt64(out var value))
        {
            allocated = value;
        }
        var type = String(b, "Type");
        var method = String(b, "Method");
        var fullName = String(b, "FullName");
        return new BenchmarkMeasurement(
            fullName.Length > 0 ? fullName : $"{String(b, "Namespace")}.{type}.{method}",
            type,
            method,
            String(b, "Parameters"),
            mean,
            stdDev,
            allocated);
    }

    // "IndexOfAnyBenchmarks.IndexOfAny_String: Quick(IterationCount=7, ...) [StatusCode=200]" -> "Quick(...)".
    private static string? JobOf(string displayInfo)
    {
        var colon = displayInfo.IndexOf(": ", StringComparison.Ordinal);
        if (colon < 0)
        {
            return null;
        }
        var job = displayInfo[(colon + 2)..];
        var parameters = job.LastIndexOf(" [", StringComparison.Ordinal);
        return parameters >= 0 ? job[..parameters] : job;
    }

    private static string String(JsonElement e, string name) =>
        e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString() ?? "" : "";

    // BenchmarkDotNet writes NaN for statistics it could not compute; a NaN mean is no measurement.
    private static double? Number(JsonElement e, string name) =>
        e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.Number && v.TryGetDouble(out var d)
            && double.IsFinite(d)
            ? d
            : null;
}
