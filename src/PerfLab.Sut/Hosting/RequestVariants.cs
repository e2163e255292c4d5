using System.Globalization;
using System.Text;
using PerfLab.Sut.Diagnostics;

namespace PerfLab.Sut.Hosting;

/// <summary>
/// The per-request switches in effect for one request: the process's (<see cref="EffectiveVariants"/>), or, with
/// Sut:PerRequestVariants, those its <see cref="RequestVariants.Header"/> names. Scoped: the serializer, the request
/// log and the extra work read it for the request they serve.
/// </summary>
public sealed class RequestVariant(EffectiveVariants variants)
{
    public SerializerKind Serializer { get; private set; } = variants.Serializer;
    public LoggingMode Logging { get; private set; } = variants.Logging;
    public int ExtraWorkMicroseconds { get; private set; } = variants.ExtraWorkMicroseconds;

    /// <summary>Applies a header's "Key=value; Key=value"; null when it did, else what was wrong with it.</summary>
    public string? Apply(string header)
    {
        foreach (var part in header.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var (key, value) = part.IndexOf('=') is var eq and > 0 ? (part[..eq].Trim(), part[(eq + 1)..].Trim()) : (part, "");
            var error = key.ToLowerInvariant() switch
            {
                "serializer" => Set(Variants.Serializer, value, v => Serializer = v),
                "logging" => Set(Variants.Logging, value, v => Logging = v),
                "extraworkmicroseconds" when int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var us)
                    && us <= 1_000_000 => SetWork(us),
                "extraworkmicroseconds" => "ExtraWorkMicroseconds takes 0..1000000",
                _ => $"'{key}' is not a per-request switch; allowed: {string.Join(", ", RequestVariants.Keys)}",
            };
            if (error is not null)
            {
                return error;
            }
        }
        return null;
    }

    private string? SetWork(int microseconds)
    {
        ExtraWorkMicroseconds = microseconds;
        return null;
    }

    private static string? Set<T>(IReadOnlyDictionary<string, T> table, string value, Action<T> set) where T : struct
    {
        if (!table.TryGetValue(value.ToLowerInvariant(), out var parsed))
        {
            return $"'{value}' is not valid; allowed: {string.Join(", ", table.Keys)}";
        }
        set(parsed);
        return null;
    }
}

/// <summary>
/// Sut:PerRequestVariants: one process serves every value of the per-request switches and each request names its own
/// in <see cref="Header"/>, so perflab can alternate variants inside one warm process (each process its own pair).
/// Honoured only in that mode and only on a request that carries the run's token (<see cref="DiagnosticsAccess"/>): a
/// header from anyone else is ignored, and the request is served with the process's own switches.
/// </summary>
public static class RequestVariants
{
    /// <summary>The request header naming the switches, e.g. "Serializer=newtonsoft; Logging=default".</summary>
    public const string Header = "X-PerfLab-Variant";

    /// <summary>The settings a request may switch; every other one is the process's (GC, framework, thread pool, data access).</summary>
    public static readonly IReadOnlyList<string> Keys = ["Serializer", "Logging", "ExtraWorkMicroseconds"];

    /// <summary>The scoped <see cref="RequestVariant"/>; the mode refused at start without a token to check the header against.</summary>
    public static void AddRequestVariants(this WebApplicationBuilder builder, EffectiveVariants variants)
    {
        if (variants.PerRequest && builder.Configuration[DiagnosticsAccess.TokenKey] is not { Length: > 0 })
        {
            throw new InvalidVariantException([
                $"{SutOptions.Section}:PerRequestVariants needs {DiagnosticsAccess.TokenKey} (environment: Diagnostics__Token): "
                    + $"the {Header} header is honoured only on requests that carry the run's token.",
            ]);
        }
        builder.Services.AddScoped<RequestVariant>();
    }

    public static IApplicationBuilder UseRequestVariants(this IApplicationBuilder app, EffectiveVariants variants,
        IConfiguration configuration)
    {
        if (!variants.PerRequest)
        {
            return app;
        }
        var token = Encoding.UTF8.GetBytes(configuration[DiagnosticsAccess.TokenKey]!);
        return app.Use(async (context, next) =>
        {
            if (context.Request.Headers.TryGetValue(Header, out var asked) && asked.Count == 1
                && DiagnosticsAccess.Carries(context.Request, token)
                && context.RequestServices.GetRequiredService<RequestVariant>().Apply(asked[0] ?? "") is { } error)
            {
                context.Response.StatusCode = StatusCodes.Status400BadRequest;
                await context.Response.WriteAsync($"{Header}: {error}.");
                return;
            }
            await next(context);
        });
    }
}
