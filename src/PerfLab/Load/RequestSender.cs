using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>
/// The request loop's one step for a scenario: picks the next request, sends it over the user's HTTP/1.1 connection
/// (or through <see cref="ClientTransport"/> when the scenario has none), and records it on the current thread's
/// recorder: a response with its latencies, or an error by kind.
/// </summary>
internal sealed class RequestSender(
    SendContext context, RecorderSet recorders, InFlightRequests inFlight, MeasurementWindow window, ClientTransport? client,
    FeedOrder order)
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
    /// Stopwatch timestamp the request was due (open model) or 0. Returns false when the run is stopping. On a
    /// connection of its own the request's one asynchronous method is the connection's exchange, which records it
    /// through <see cref="Recorded"/> as it ends.
    /// </summary>
    public ValueTask<bool> SendAsync(LoadWorker worker, long intended)
    {
        if (worker.Connection is { } connection)
        {
            var request = BeginOnConnection(worker, intended, out var start);
            return connection.ExchangeAsync<Recorded, bool>(request, start, new Recorded(this, worker, intended, start, inTurn: false));
        }
        var index = NextIndex(worker);
        return SendThroughClientAsync(worker, index, intended, Begin(worker, intended));
    }

    /// <summary>
    /// A closed-model user: request after request, each sent as soon as the last one's answer is recorded, while the
    /// run goes on and the request budget lasts. On a connection of its own the whole series is one exchange method
    /// (<see cref="Recorded.TryNext"/> gives it the next request), so nothing is awaited per request but the socket.
    /// </summary>
    public async Task SendInTurnAsync(LoadWorker worker)
    {
        if (worker.Connection is not { } connection)
        {
            while (MayGoOn() && await SendAsync(worker, 0).ConfigureAwait(false))
            {
            }
            return;
        }
        if (TryBeginInTurn(worker, out var request, out var start))
        {
            await StartSeries(connection, request, start, new Recorded(this, worker, 0, start, inTurn: true)).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Starts a closed user's series of exchanges without the caller's execution context. Its receives then resume on
    /// the event loop, whose thread does not flow one either (<see cref="Sockets.EpollLoop"/>): each by a direct call,
    /// not through <c>ExecutionContext.RunInternal</c>. Nothing on the request path reads an AsyncLocal.
    /// </summary>
    private static ValueTask<bool> StartSeries(Http11Connection connection, ReadOnlyMemory<byte> request, long start, Recorded sink)
    {
        using AsyncFlowControl? unflowed = ExecutionContext.IsFlowSuppressed() ? null : ExecutionContext.SuppressFlow();
        return connection.ExchangeAsync<Recorded, bool>(request, start, sink);
    }

    /// <summary>Whether a closed-model user sends again: the run goes on and the request budget gives one more.</summary>
    private bool MayGoOn() => !context.Stop.IsCancellationRequested && window.TryTakeBudget();

    /// <summary>A closed-model user's next request, begun, unless the run is stopping or the request budget is spent.</summary>
    private bool TryBeginInTurn(LoadWorker worker, out ReadOnlyMemory<byte> request, out long start)
    {
        if (!MayGoOn())
        {
            request = default;
            start = 0;
            return false;
        }
        request = BeginOnConnection(worker, 0, out start);
        return true;
    }

    /// <summary>A request on the worker's connection, begun: its bytes (made after the clock read, inside the latency).</summary>
    private ReadOnlyMemory<byte> BeginOnConnection(LoadWorker worker, long intended, out long start)
    {
        var index = NextIndex(worker);
        start = Begin(worker, intended);
        return context.Template.For(index, ref worker.Scratch);
    }

    /// <summary>A request's start: the clock read, the send noted, the request in flight. Returns the timestamp.</summary>
    private long Begin(LoadWorker worker, long intended)
    {
        var start = Stopwatch.GetTimestamp();
        recorders.Current.NoteSend(start, intended);
        inFlight.Begin(worker.Index, intended != 0 ? Math.Min(intended, start) : start);
        return start;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> SendThroughClientAsync(LoadWorker worker, int index, long intended, long start)
    {
        var (outcome, status, bytes) = await client!.SendAsync(worker, index).ConfigureAwait(false);
        return Record(worker, intended, start, outcome, status, bytes);
    }

    private bool Record(LoadWorker worker, long intended, long start, RequestOutcome outcome, int status, long bytes)
    {
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

    private bool RecordResponse(Http11Connection connection, Http11Response response, LoadWorker worker, long intended, long start)
    {
        var checks = context.Checks;
        var outcome = checks.KeepsBody && checks.Fail(response.Status, connection) ? RequestOutcome.CheckFailed : RequestOutcome.Response;
        return Record(worker, intended, start, outcome, response.Status, response.BodyBytes);
    }

    private bool RecordFailure(Http11Connection connection, Exception failure, LoadWorker worker, long intended, long start) =>
        Record(worker, intended, start, context.Failures.Classify(failure, connection.TimedOut), 0, 0);

    /// <summary>
    /// A request's end on its connection, recorded: a response (checked) or a failure by kind; in turn (a closed-model
    /// user), the next request's start once it was recorded and the run goes on.
    /// </summary>
    private struct Recorded(RequestSender sender, LoadWorker worker, long intended, long start, bool inTurn) : IExchangeSink<bool>
    {
        public readonly bool Responded(Http11Connection connection, Http11Response response) =>
            sender.RecordResponse(connection, response, worker, intended, start);

        public readonly bool Failed(Http11Connection connection, Exception failure) =>
            sender.RecordFailure(connection, failure, worker, intended, start);

        public bool TryNext(bool last, out ReadOnlyMemory<byte> request, out long sentAt)
        {
            if (inTurn && last && sender.TryBeginInTurn(worker, out request, out sentAt))
            {
                start = sentAt;
                return true;
            }
            request = default;
            sentAt = 0;
            return false;
        }
    }
}
