using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>
/// The request loop's one step for a scenario: picks the next request, sends it over the user's HTTP/1.1 connection
/// (or through <see cref="ClientTransport"/> when the scenario has none), and records it on the current thread's
/// recorder: a response with its latencies, or an error by kind.
/// </summary>
internal sealed class RequestSender(
    SendContext context, RecorderSet recorders, InFlightRequests inFlight, ClientTransport? client, FeedOrder order)
{
    private long _cursor = -1;

    public int NextIndex(LoadWorker worker)
    {
        var count = context.Template.Count;
        if (count == 1)
        {
            return 0;
        }
        if (order == FeedOrder.Random)
        {
            return worker.Random.Next(count);
        }
        return (int)((ulong)Interlocked.Increment(ref _cursor) % (ulong)count);
    }

    /// <summary>
    /// Sends one request and records it on the current thread's recorder. <paramref name="intended"/> is the
    /// Stopwatch timestamp the request was due (open model) or 0. Returns false when the run is stopping.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> SendAsync(LoadWorker worker, long intended)
    {
        var index = NextIndex(worker);
        var start = Stopwatch.GetTimestamp();
        recorders.Current.NoteSend(start, intended);
        inFlight.Begin(worker.Index, intended != 0 ? Math.Min(intended, start) : start);

        int status = 0;
        long bytes = 0;
        RequestOutcome outcome;
        if (worker.Connection is { } connection)
        {
            try
            {
                var response = await connection.SendAsync(context.Template.For(index, ref worker.Scratch), start).ConfigureAwait(false);
                status = response.Status;
                bytes = response.BodyBytes;
                outcome = context.Checks.KeepsBody && context.Checks.Fail(status, connection)
                    ? RequestOutcome.CheckFailed
                    : RequestOutcome.Response;
            }
            catch (Exception ex) when (ex is SocketException or IOException or ObjectDisposedException or OperationCanceledException)
            {
                outcome = context.Failures.Classify(ex, connection.TimedOut);
            }
        }
        else
        {
            (outcome, status, bytes) = await client!.SendAsync(worker, index).ConfigureAwait(false);
        }
        var end = Stopwatch.GetTimestamp();
        inFlight.End(worker.Index);

        // An aborted request is neither a success nor an error: the run ended while it was in flight (InFlight has it).
        if (outcome == RequestOutcome.Stopped)
        {
            return false;
        }
        recorders.Current.Record(outcome, status, bytes, end - (intended != 0 ? intended : start), end - start);
        return !context.Stop.IsCancellationRequested;
    }
}
