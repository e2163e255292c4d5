using System.Net;
using System.Net.Sockets;

namespace PerfLab.Network;

/// <summary>A TCP echo server on 127.0.0.1 (any free port): the far end for timing round trips through a path.</summary>
public sealed class EchoServer : IAsyncDisposable
{
    private readonly Socket _listener;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _acceptLoop;
    private readonly List<Socket> _clients = [];

    private EchoServer(Socket listener)
    {
        _listener = listener;
        EndPoint = (IPEndPoint)listener.LocalEndPoint!;
        _acceptLoop = BlockingAccept.Start(listener, _stop.Token, Accepted);
    }

    public IPEndPoint EndPoint { get; }

    public static EchoServer Start()
    {
        var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(64);
        return new EchoServer(listener);
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Dispose();
        lock (_clients)
        {
            foreach (var client in _clients)
            {
                client.Dispose();
            }
        }
        await _acceptLoop;
        _stop.Dispose();
    }

    // A thread per connection, for the same reason as the probe: no thread-pool hop in the echo.
    private void Accepted(Socket client)
    {
        client.NoDelay = true;
        lock (_clients)
        {
            _clients.Add(client);
        }
        new Thread(() => Echo(client)) { IsBackground = true, Name = "echo" }.Start();
    }

    private void Echo(Socket client)
    {
        var buffer = new byte[64 * 1024];
        try
        {
            while (true)
            {
                var n = client.Receive(buffer);
                if (n == 0)
                {
                    client.Shutdown(SocketShutdown.Send);
                    return;
                }
                var sent = 0;
                while (sent < n)
                {
                    sent += client.Send(buffer, sent, n - sent, SocketFlags.None);
                }
            }
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            // the client went away or the server is stopping
        }
        finally
        {
            lock (_clients)
            {
                _clients.Remove(client);
            }
            client.Dispose();
        }
    }
}
