using System.Net;
using System.Net.Sockets;

namespace PerfLab.Tests.Network;

// The far end of the proxy tests, written independently of the lab's own EchoServer so a bug there cannot hide one
// in the proxy: a TcpListener on 127.0.0.1:0 that writes back whatever it reads.
internal sealed class TestEchoServer : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly CancellationTokenSource _stop = new();
    private readonly List<TcpClient> _clients = [];
    private readonly Task _loop;

    public TestEchoServer()
    {
        _listener.Start();
        EndPoint = (IPEndPoint)_listener.LocalEndpoint;
        _loop = Task.Run(AcceptAsync);
    }

    public IPEndPoint EndPoint { get; }

    public int Accepted { get; private set; }

    private async Task AcceptAsync()
    {
        try
        {
            while (true)
            {
                var client = await _listener.AcceptTcpClientAsync(_stop.Token);
                client.NoDelay = true;
                lock (_clients)
                {
                    _clients.Add(client);
                    Accepted++;
                }
                _ = EchoAsync(client);
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException
            or InvalidOperationException)
        {
            // stopped (InvalidOperationException: stopped before the first accept)
        }
    }

    private async Task EchoAsync(TcpClient client)
    {
        var buffer = new byte[32 * 1024];
        try
        {
            var stream = client.GetStream();
            int n;
            while ((n = await stream.ReadAsync(buffer, _stop.Token)) > 0)
            {
                await stream.WriteAsync(buffer.AsMemory(0, n), _stop.Token);
            }
            client.Client.Shutdown(SocketShutdown.Send);
        }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or IOException or SocketException)
        {
            // the client went away or the server is stopping
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        lock (_clients)
        {
            foreach (var c in _clients)
            {
                c.Dispose();
            }
        }
        await _loop;
        _stop.Dispose();
    }
}
