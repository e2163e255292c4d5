using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Logging;

/// <summary>
/// One log line per CRUD request (none with Logging=none, the default: seed 000's app logs nothing
/// per request), written the way the Logging variant asks: through the ILogger extension methods
/// (default and locked-console, whose provider differs) or through source-generated LoggerMessage methods.
/// Scoped: the Logging variant is the request's (<see cref="RequestVariant"/>).
/// </summary>
public sealed partial class RequestLog(RequestLoggers loggers, RequestVariant variant)
{
    private readonly ILogger _logger = loggers.For(variant.Logging);
    private readonly bool _sourceGenerated = variant.Logging == LoggingMode.SourceGenerated;
    private readonly bool _off = variant.Logging == LoggingMode.None;

    public void PageServed(string resource, int pageNumber, int pageSize, int count)
    {
        if (_off)
        {
            return;
        }
        if (_sourceGenerated)
        {
            LogPageServed(_logger, resource, pageNumber, pageSize, count);
        }
        else
        {
            _logger.LogInformation("Served {Resource} page {PageNumber} (size {PageSize}): {Count} rows",
                resource, pageNumber, pageSize, count);
        }
    }

    public void ItemServed(string resource, int id)
    {
        if (_off)
        {
            return;
        }
        if (_sourceGenerated)
        {
            LogItemServed(_logger, resource, id);
        }
        else
        {
            _logger.LogInformation("Served {Resource} {Id}", resource, id);
        }
    }

    public void ItemNotFound(string resource, int id)
    {
        if (_off)
        {
            return;
        }
        if (_sourceGenerated)
        {
            LogItemNotFound(_logger, resource, id);
        }
        else
        {
            _logger.LogInformation("No {Resource} has id {Id}", resource, id);
        }
    }

    public void CountServed(string resource, int count)
    {
        if (_off)
        {
            return;
        }
        if (_sourceGenerated)
        {
            LogCountServed(_logger, resource, count);
        }
        else
        {
            _logger.LogInformation("Counted {Count} {Resource}", count, resource);
        }
    }
}
