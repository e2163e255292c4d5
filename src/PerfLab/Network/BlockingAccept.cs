using System.Net.Sockets;

namespace PerfLab.Network;

/// <summary>
/// The accept loop of the echo server and the latency proxy: synchronous Accept on a dedicated thread, so that the
/// accepted sockets never see an async call and stay blocking (their reads then wake straight from the kernel,
/// not through the socket engine). A client that reset before it was accepted is skipped; disposing the listener
/// after cancelling its stop token ends the loop.
/// </summary>
internal static class BlockingAccept
{
    public static Task Start(Socket listener, CancellationToken stop, Action<Socket> accepted) =>
        Task.Factory.StartNew(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                Socket client;
                try
                {
                    client = listener.Accept();
                }
                catch (Exception ex) when (ex is ObjectDisposedException or SocketException)
                {
                    if (stop.IsCancellationRequested)
                    {
                        return;
                    }
                    continue;
                }
                accepted(client);
            }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
}
