using System.Net;
using System.Net.Sockets;
using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>Keeps load on this machine unless asked otherwise, and finds out early whether a target listens at all.</summary>
internal static class TargetGuard
{
    public static Uri ParseTarget(string url, string what)
    {
        if (!Uri.TryCreate(url, UriKind.Absolute, out var uri) || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps)
            || string.IsNullOrEmpty(uri.Host))
        {
            throw new PerfLabException($"{what}: '{url}' is not an absolute http:// or https:// URL.", ExitCode.Usage);
        }
        return uri;
    }

    public static bool IsLoopback(Uri uri) =>
        uri.IsLoopback
        || string.Equals(uri.IdnHost, "localhost", StringComparison.OrdinalIgnoreCase)
        || (IPAddress.TryParse(uri.IdnHost, out var ip) && IPAddress.IsLoopback(ip));

    public static void EnsureAllowed(Uri uri, bool allowRemote)
    {
        if (!allowRemote && !IsLoopback(uri))
        {
            throw new PerfLabException(
                $"refusing to send load to {uri.Host}: only loopback targets (127.0.0.0/8, ::1, localhost) are "
                    + $"allowed without --allow-remote.",
                ExitCode.Usage);
        }
    }

    /// <summary>A TCP connect, no HTTP request: the server's request counts stay untouched.</summary>
    public static async Task EnsureReachableAsync(Uri uri, TimeSpan timeout, CancellationToken ct)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(ct);
        cts.CancelAfter(timeout);
        try
        {
            using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
            await socket.ConnectAsync(uri.IdnHost, uri.Port, cts.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new PerfLabException($"cannot reach {uri.GetLeftPart(UriPartial.Authority)}: no answer to a connect "
                + $"within {timeout.TotalSeconds:0.#} s.", ExitCode.Unreachable);
        }
        catch (SocketException ex)
        {
            throw new PerfLabException($"cannot reach {uri.GetLeftPart(UriPartial.Authority)}: {Describe(ex.SocketErrorCode)}. Is the "
                + $"server running?", ExitCode.Unreachable, ex);
        }
    }

    private static string Describe(SocketError error) => error switch
    {
        SocketError.ConnectionRefused => "connection refused (nothing listens on that port)",
        SocketError.HostNotFound or SocketError.NoData => "host not found",
        SocketError.TimedOut => "connect timed out",
        SocketError.NetworkUnreachable or SocketError.HostUnreachable => "network unreachable",
        _ => error.ToString(),
    };
}
