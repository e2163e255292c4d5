using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace PerfLab.Common;

/// <summary>
/// Ports that perflab picks for a process it starts a moment later (its PostgreSQL, an app under test). They are
/// taken below the kernel's ephemeral range: a port the OS hands out for port 0 is in that range, where any outgoing
/// connection (the load engine opens thousands) may take it as its local port between the pick and the bind.
/// </summary>
public static class LoopbackPorts
{
    private const string RangeFile = "/proc/sys/net/ipv4/ip_local_port_range";
    private const int Lowest = 10000;
    private const int Attempts = 200;

    /// <summary>
    /// A port of loopback (or of <paramref name="on"/>, an address of this host) free now and outside the ephemeral range.
    /// </summary>
    public static int PickFree(IPAddress? on = null)
    {
        var (ephemeralLow, _) = EphemeralRange();
        var highest = Math.Max(Lowest + 1, ephemeralLow - 1);
        for (var i = 0; i < Attempts; i++)
        {
            var candidate = Random.Shared.Next(Lowest, highest + 1);
            if (IsFree(candidate, on))
            {
                return candidate;
            }
        }
        // Every try was taken: fall back to the OS's pick rather than fail.
        using var listener = new TcpListener(on ?? IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>Whether a listener can bind the port on 127.0.0.1 (or <paramref name="on"/>) right now.</summary>
    public static bool IsFree(int port, IPAddress? on = null)
    {
        try
        {
            using var listener = new TcpListener(on ?? IPAddress.Loopback, port);
            listener.Start();
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    /// <summary>The kernel's ephemeral port range (Linux's default when it cannot be read).</summary>
    public static (int Low, int High) EphemeralRange()
    {
        try
        {
            return ParseRange(File.ReadAllText(RangeFile));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException)
        {
            return (32768, 60999);
        }
    }

    internal static (int Low, int High) ParseRange(string text)
    {
        var parts = text.Split((char[])[' ', '\t', '\n'], StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length != 2)
        {
            throw new FormatException($"expected two numbers, got '{text.Trim()}'");
        }
        return (int.Parse(parts[0], CultureInfo.InvariantCulture), int.Parse(parts[1], CultureInfo.InvariantCulture));
    }
}
