using System.Net;
using System.Net.Sockets;
using System.Text;

namespace PerfLab.Load;

/// <summary>
/// The generator's own cold start kept out of the figures: before the first run in a process, the engine runs once,
/// for half a second, against a canned responder on loopback inside this process, so the first measured requests do
/// not pay for perflab's JIT (measured: without it, `perflab load -c 10` on a 150 ms endpoint reported a p99 10-30 ms
/// above wrk's, from the first ten requests). The target is not touched: its own cold start stays in its figures.
/// </summary>
internal static class GeneratorPrimer
{
    private static readonly TimeSpan Length = TimeSpan.FromMilliseconds(500);
    private static int s_primed;

    public static async Task EnsurePrimedAsync(CancellationToken ct)
    {
        if (Interlocked.Exchange(ref s_primed, 1) == 1)
        {
            return;
        }
        using var responder = CannedResponder.Start();
        var feed = new RequestFeed(responder.Url + "prime");
        var plan = new LoadPlan(
            [new ScenarioPlan("prime-closed", new ClosedModel(2), feed), new ScenarioPlan("prime-open", new OpenModel(400, 4), feed)],
            Length, TimeSpan.Zero, TimeSpan.FromSeconds(2));
        try
        {
            await LoadEngine.RunAsync(plan, progress: null, ct).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            // Priming only warms the generator's code; the real run meets and reports any real problem.
        }
    }

    /// <summary>Answers every GET on every connection with a fixed 200 response until disposed.</summary>
    private sealed class CannedResponder : IDisposable
    {
        private static readonly byte[] Response = Encoding.ASCII.GetBytes(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok");

        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
        private readonly CancellationTokenSource _stop = new();

        public string Url => $"http://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}/";

        public static CannedResponder Start()
        {
            var responder = new CannedResponder();
            responder._listener.Start();
            _ = responder.AcceptAsync();
            return responder;
        }

        private async Task AcceptAsync()
        {
            try
            {
                while (!_stop.IsCancellationRequested)
                {
                    var socket = await _listener.AcceptSocketAsync(_stop.Token).ConfigureAwait(false);
                    _ = ServeAsync(socket);
                }
            }
            catch (Exception ex) when (ex is OperationCanceledException or SocketException or ObjectDisposedException)
            {
            }
        }

        private async Task ServeAsync(Socket socket)
        {
            using (socket)
            {
                var buffer = new byte[4096];
                var pending = 0;
                try
                {
                    int read;
                    while ((read = await socket.ReceiveAsync(buffer.AsMemory(pending), _stop.Token).ConfigureAwait(false)) > 0)
                    {
                        pending = await AnswerCompleteRequestsAsync(socket, buffer, pending + read).ConfigureAwait(false);
                    }
                }
                catch (Exception ex) when (ex is OperationCanceledException or SocketException or ObjectDisposedException)
                {
                }
            }
        }

        /// <summary>
        /// Answers each request head (GET, no body) in the buffer;
        /// returns the bytes of an unfinished one, moved to the front.
        /// </summary>
        private async Task<int> AnswerCompleteRequestsAsync(Socket socket, byte[] buffer, int length)
        {
            var start = 0;
            int end;
            while ((end = buffer.AsSpan(start, length - start).IndexOf("\r\n\r\n"u8)) >= 0)
            {
                start += end + 4;
                await socket.SendAsync(Response, SocketFlags.None, _stop.Token).ConfigureAwait(false);
            }
            if (start == 0 && length == buffer.Length)
            {
                throw new SocketException((int)SocketError.MessageSize);
            }
            buffer.AsSpan(start, length - start).CopyTo(buffer);
            return length - start;
        }

        public void Dispose()
        {
            _stop.Cancel();
            _listener.Stop();
            _stop.Dispose();
        }
    }
}
