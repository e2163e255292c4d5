using System.Net;
using System.Net.Sockets;
using System.Text;

namespace PerfLab.Load;

/// <summary>
/// The generator's own cold start kept out of the figures: before the first run in a process, the engine runs against
/// a canned responder on loopback inside this process, so the first measured requests do not pay for perflab's JIT
/// (measured: without it, `perflab load -c 10` on a 150 ms endpoint reported a p99 10-30 ms above wrk's, from the
/// first ten requests). It runs in rounds of half a second until a round compiles next to nothing: the hot path's
/// tier-up (tier 0, instrumented, optimized) is then done too, which otherwise went on inside the measured window
/// (a profile of a 32-connection run from its third second on: 18 % of the generator's CPU in the JIT compiler, busy
/// machine). Content-Length and chunked responses both, so /info-like JSON is primed as well as plaintext. The target
/// is not touched: its own cold start stays in its figures.
/// </summary>
internal static class GeneratorPrimer
{
    private static readonly TimeSpan Round = TimeSpan.FromMilliseconds(500);
    private const int MaxRounds = 8;
    // A round of the hot path that compiles this few methods has nothing left to tier up (a rare OSR or a method the
    // round's bookkeeping reaches once more is what remains).
    private const int QuietCompilations = 4;
    private static int s_primed;

    public static async Task EnsurePrimedAsync(CancellationToken ct)
    {
        if (Interlocked.Exchange(ref s_primed, 1) == 1)
        {
            return;
        }
        using var responder = CannedResponder.Start();
        var plain = new RequestFeed(responder.Url + "prime");
        var chunked = new RequestFeed(responder.Url + CannedResponder.ChunkedPath);
        var plan = new LoadPlan(
            [
                new ScenarioPlan("prime-closed", new ClosedModel(2), plain),
                new ScenarioPlan("prime-chunked", new ClosedModel(1), chunked),
                new ScenarioPlan("prime-open", new OpenModel(400, 4), plain),
            ],
            Round, TimeSpan.Zero, TimeSpan.FromSeconds(2));
        for (var round = 0; round < MaxRounds; round++)
        {
            var compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
            try
            {
                await LoadEngine.RunAsync(plan, progress: null, ct).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                return; // Priming only warms the generator's code; the real run meets and reports any real problem.
            }
            if (System.Runtime.JitInfo.GetCompiledMethodCount() - compiled <= QuietCompilations)
            {
                return;
            }
        }
    }

    /// <summary>Answers every GET on every connection with a fixed 200 response (chunked on its chunked path) until disposed.</summary>
    private sealed class CannedResponder : IDisposable
    {
        public const string ChunkedPath = "prime-chunked";

        private static readonly byte[] Response = Encoding.ASCII.GetBytes(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok");

        private static readonly byte[] ChunkedResponse = Encoding.ASCII.GetBytes(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "c\r\n{\"ok\":\"yes\"}\r\n0\r\n\r\n");

        private static readonly byte[] ChunkedRequestLine = Encoding.ASCII.GetBytes("GET /" + ChunkedPath);

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
                var chunked = buffer.AsSpan(start, end).StartsWith(ChunkedRequestLine);
                start += end + 4;
                await socket.SendAsync(chunked ? ChunkedResponse : Response, SocketFlags.None, _stop.Token).ConfigureAwait(false);
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
