using System.Data.Common;
using System.Net.Sockets;
using Microsoft.AspNetCore.Diagnostics;
using PerfLab.Sut.Data;

namespace PerfLab.Sut.Hosting;

/// <summary>Answers 503 ProblemDetails when the database cannot be reached or does not answer in time.</summary>
public sealed partial class DatabaseUnavailableHandler(IProblemDetailsService problems, ILogger<DatabaseUnavailableHandler> logger)
    : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        var cause = FindDatabaseFailure(exception);
        if (cause is null)
        {
            return false;
        }
        LogDatabaseUnavailable(logger, httpContext.Request.Path, cause.GetType().Name, cause.Message);
        httpContext.Response.StatusCode = StatusCodes.Status503ServiceUnavailable;
        return await problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = httpContext,
            Exception = exception,
            ProblemDetails =
            {
                Status = StatusCodes.Status503ServiceUnavailable,
                Title = "The database is unavailable.",
                Detail = cause.Message,
            },
        });
    }

    private static Exception? FindDatabaseFailure(Exception exception)
    {
        var pending = new Stack<Exception>();
        pending.Push(exception);
        while (pending.Count > 0)
        {
            var current = pending.Pop();
            if (current is DbException or TimeoutException or SocketException or DatabaseNotConfiguredException)
            {
                return current;
            }
            if (current is AggregateException aggregate)
            {
                foreach (var inner in aggregate.InnerExceptions)
                {
                    pending.Push(inner);
                }
            }
            else if (current.InnerException is not null)
            {
                pending.Push(current.InnerException);
            }
        }
        return null;
    }

    [LoggerMessage(EventId = 2001, Level = LogLevel.Warning, Message = "Database unavailable while serving {Path}: {Kind}: {Reason}")]
    private static partial void LogDatabaseUnavailable(ILogger logger, string path, string kind, string reason);
}
