using System.Net.Sockets;

namespace PerfLab.Load;

/// <summary>What one sent request came to, as the recorders count it.</summary>
internal enum RequestOutcome
{
    Response,
    CheckFailed,
    Timeout,
    Refused,
    ConnectionError,
    Stopped,
}

/// <summary>
/// Sorts a failed request into its kind, whichever transport it took, and keeps the message of the first transport
/// error to explain a target that never answered.
/// </summary>
internal sealed class RequestFailures(CancellationToken stop)
{
    private string? _first;

    public string? First => Volatile.Read(ref _first);

    public RequestOutcome Classify(Exception ex, bool timedOut)
    {
        if (stop.IsCancellationRequested)
        {
            return RequestOutcome.Stopped;
        }
        if (timedOut)
        {
            return RequestOutcome.Timeout;
        }
        Note(ex);
        return ex is SocketException { SocketErrorCode: SocketError.ConnectionRefused }
            or HttpRequestException { InnerException: SocketException { SocketErrorCode: SocketError.ConnectionRefused } }
            ? RequestOutcome.Refused
            : RequestOutcome.ConnectionError;
    }

    private void Note(Exception ex)
    {
        if (Volatile.Read(ref _first) is null)
        {
            var message = ex.InnerException is { } inner && inner.Message != ex.Message ? $"{ex.Message} ({inner.Message})" : ex.Message;
            Interlocked.CompareExchange(ref _first, message, null);
        }
    }
}
