namespace PerfLab.Sut.Logging;

public sealed partial class RequestLog
{
    [LoggerMessage(EventId = 1001, Level = LogLevel.Information,
        Message = "Served {Resource} page {PageNumber} (size {PageSize}): {Count} rows")]
    private static partial void LogPageServed(ILogger logger, string resource, int pageNumber, int pageSize, int count);

    [LoggerMessage(EventId = 1002, Level = LogLevel.Information, Message = "Served {Resource} {Id}")]
    private static partial void LogItemServed(ILogger logger, string resource, int id);

    [LoggerMessage(EventId = 1003, Level = LogLevel.Information, Message = "No {Resource} has id {Id}")]
    private static partial void LogItemNotFound(ILogger logger, string resource, int id);

    [LoggerMessage(EventId = 1004, Level = LogLevel.Information, Message = "Counted {Count} {Resource}")]
    private static partial void LogCountServed(ILogger logger, string resource, int count);
}
