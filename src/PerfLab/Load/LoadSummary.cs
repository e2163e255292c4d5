using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Load;

/// <summary>Renders a <see cref="LoadResult"/> for people (a wrk-like summary) and for machines (JSON).</summary>
public static class LoadSummary
{
    public static readonly JsonSerializerOptions JsonOptions = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        Converters = { new JsonStringEnumConverter() },
    };

    public static string ToJson(LoadResult result) => JsonSerializer.Serialize(result, JsonOptions);

    public static string ToText(LoadResult result)
    {
        var c = CultureInfo.InvariantCulture;
        var sb = new StringBuilder();
        foreach (var s in result.Scenarios)
        {
            AppendScenario(sb, s);
        }
        var g = result.Generator;
        sb.Append(c, $"Generator ({g.Transport}): {g.CoresUsed:0.00} of {g.AvailableCores} cores ")
            .Append(c, $"(busiest event thread {g.EventThreadBusy:0%}), {g.CpuMicrosecondsPerRequest:0.0} µs CPU ")
            .Append(c, $"and {g.AllocatedBytesPerRequest:0} B allocated per request");
        sb.AppendLine(g.Saturated ? " -- SATURATED: the generator, not the server, may have been the limit" : "");
        if (result.Incomplete)
        {
            sb.Append("INCOMPLETE: ").AppendLine(result.IncompleteReason);
        }
        if (result.Settled is { } settled)
        {
            sb.Append(c, $"Warm-up: {result.WarmupSeconds:0.0} s, ")
                .Append(c, $"{(settled ? "until steady" : "cap reached before the throughput settled")}").AppendLine();
        }
        return sb.ToString();
    }

    private static void AppendScenario(StringBuilder sb, ScenarioResult s)
    {
        var c = CultureInfo.InvariantCulture;
        sb.Append(c, $"{s.Name}: {s.Model.Kind} model, {s.Model.SizeOf(s)} @ {s.Url}").AppendLine();
        if (s.Request is { } request)
        {
            sb.Append("  Request: ").AppendLine(request);
        }
        sb.AppendLine("  Latency       mean     stdev       min       p50       p75       p90       p95       p99     p99.9       max");
        sb.Append(c, $"  {(s.UncorrectedLatency is null ? "" : "corrected "),-10}").Append(Row(s.Latency)).AppendLine();
        if (s.UncorrectedLatency is { } u)
        {
            sb.Append(c, $"  {"uncorrect.",-10}").Append(Row(u)).AppendLine();
        }
        if (s.Burst is { } b)
        {
            sb.Append(c, $"  Batch of {b.BatchSize}: mean {b.MeanMs:0.00} ms, ")
                .Append(c, $"error {(b.ErrorMs is { } e ? e.ToString("0.00", c) + " ms" : "n/a")} (99.9 % CI half-width), ")
                .Append(c, $"stddev {b.StdDevMs:0.00} ms over {b.BatchMs.Count} batches").AppendLine();
        }
        if (s.Open is { } o)
        {
            sb.Append(c, $"  Schedule: {o.Rate:0.##} req/s, {o.Sent} of {o.Scheduled} sends made, {o.LateSends} late ")
                .Append(c, $"(> {OpenSchedule.LateThresholdMs:0} ms), max lag {o.MaxLagMs:0.0} ms").AppendLine();
        }
        if (s.Ramp is { } ramp)
        {
            sb.AppendLine("  Users       RPS      mean       p99    errors");
            foreach (var step in ramp)
            {
                sb.Append(c, $"  {step.Users,5} {step.RequestsPerSecond,9:0.0} {Ms(step.MeanMs),9} {Ms(step.P99Ms),9} {step.Errors,9}")
                    .AppendLine();
            }
        }
        var seconds = s.RequestsPerSecond > 0 ? s.Requests / s.RequestsPerSecond : 0;
        sb.Append(c, $"  {s.Requests} requests in {seconds:0.00}s, {Bytes(s.BytesReceived)} read").AppendLine();
        sb.Append(c, $"  Requests/sec: {s.RequestsPerSecond:0.00}").AppendLine();
        sb.Append("  Errors: ").AppendLine(s.Errors.Total == 0
            ? "none"
            : string.Join(", ", s.Errors.ByKind.Select(kv => string.Create(c, $"{kv.Key} {kv.Value}"))));
        if (s.InFlightAtEnd > 0)
        {
            sb.Append(c, $"  In flight when the window closed: {s.InFlightAtEnd} (oldest {s.InFlightOldestMs:0} ms), not counted")
                .AppendLine();
        }
        if (s.BoundedByWindow)
        {
            sb.AppendLine("  BOUNDED BY THE WINDOW: the median latency exceeds a fifth of it; lengthen --duration for a throughput figure");
        }
    }

    private static string Row(LatencyStats l) =>
        string.Join("", new[] { l.MeanMs, l.StdDevMs, l.MinMs, l.P50Ms, l.P75Ms, l.P90Ms, l.P95Ms, l.P99Ms, l.P999Ms, l.MaxMs }
            .Select(v => Ms(v).PadLeft(10)));

    public static string Ms(double ms) => ms switch
    {
        >= 10_000 => string.Create(CultureInfo.InvariantCulture, $"{ms / 1000:0.00}s"),
        >= 100 => string.Create(CultureInfo.InvariantCulture, $"{ms:0.0}ms"),
        >= 1 => string.Create(CultureInfo.InvariantCulture, $"{ms:0.00}ms"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{ms * 1000:0}us"),
    };

    private static string Bytes(long bytes) => bytes switch
    {
        >= 1L << 30 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 30):0.00}GB"),
        >= 1L << 20 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 20):0.00}MB"),
        >= 1L << 10 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1024.0:0.00}KB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes}B"),
    };
}
