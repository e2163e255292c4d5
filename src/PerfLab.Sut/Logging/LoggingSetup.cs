using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Logging;

public static class LoggingSetup
{
    public static void AddSutLogging(this WebApplicationBuilder builder, EffectiveVariants variants)
    {
        // Serving per-request variants, the locked console sits beside the usual providers (RequestLoggers), so that
        // a request asking for default logging is not written through the lock.
        if (variants.Logging == LoggingMode.LockedConsole && !variants.PerRequest)
        {
            builder.Logging.ClearProviders();
            builder.Logging.AddProvider(new LockedConsoleLoggerProvider());
        }
        builder.Services.AddSingleton<RequestLoggers>();
        builder.Services.AddScoped<RequestLog>();
    }
}

/// <summary>
/// The logger a request's lines go to: the process's (through its providers), or, for a request that asks for the
/// locked console in a process serving per-request variants, a factory of its own whose one provider is that console.
/// </summary>
public sealed class RequestLoggers(ILogger<RequestLog> process, EffectiveVariants variants) : IDisposable
{
    private readonly ILoggerFactory? _locked = variants.PerRequest
        ? LoggerFactory.Create(b => b.AddProvider(new LockedConsoleLoggerProvider()).SetMinimumLevel(LogLevel.Information))
        : null;

    // Made once (a race makes two alike): a logger per request would be an allocation only this variant pays.
    private ILogger? _lockedLogger;

    public ILogger For(LoggingMode mode) =>
        mode == LoggingMode.LockedConsole && _locked is not null ? _lockedLogger ??= _locked.CreateLogger<RequestLog>() : process;

    public void Dispose() => _locked?.Dispose();
}
