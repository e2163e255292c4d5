using System.Net;
using System.Net.Sockets;

namespace PerfLab.Database;

/// <summary>Ports on 127.0.0.1 for perflab's own servers: a free one, or whether a given one is.</summary>
internal static class LoopbackPorts
{
    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public static bool IsPortFree(int port)
    {
        try
        {
            using var listener = new TcpListener(IPAddress.Loopback, port);
            listener.Start();
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
