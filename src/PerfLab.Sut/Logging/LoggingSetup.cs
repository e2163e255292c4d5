using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Logging;

public static class LoggingSetup
{
    public static void AddSutLogging(this WebApplicationBuilder builder, EffectiveVariants variants)
    {
        if (variants.Logging == LoggingMode.LockedConsole)
        {
            builder.Logging.ClearProviders();
            builder.Logging.AddProvider(new LockedConsoleLoggerProvider());
        }
        builder.Services.AddSingleton<RequestLog>();
    }
}
