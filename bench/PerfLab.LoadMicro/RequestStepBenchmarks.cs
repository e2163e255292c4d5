using System.Diagnostics;
using System.Net;
using BenchmarkDotNet.Attributes;
using PerfLab.Load;

namespace PerfLab.LoadMicro;

/// <summary>
/// One request of a virtual user, as the event loop runs it: pick the request, take the send time, send, suspend
/// until the response's event, read and parse the response, take the end time, record. Over <see cref="CannedSocket"/>,
/// so this is what perflab itself spends per request; the kernel's send, recv and epoll_wait come on top (as for wrk).
/// Open: the open model's path, latency from an intended send time, with the uncorrected latency recorded beside it.
/// </summary>
[MemoryDiagnoser]
public class RequestStepBenchmarks
{
    private static readonly Uri Target = new("http://127.0.0.1:5099/plaintext");

    private CannedSocket _socket = null!;
    private RequestSender _sender = null!;
    private LoadWorker _worker = null!;
    private CancellationTokenSource _stop = null!;

    [Params("plaintext", "info", "info-split")]
    public string Response { get; set; } = "plaintext";

    [Params(false, true)]
    public bool Open { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _stop = new CancellationTokenSource();
        _socket = new CannedSocket(Responses.Pieces(Response));
        var recorders = new RecorderSet(uncorrected: Open);
        var checks = new ResponseChecks(recorders.ErrorStatus, null);
        var template = new RequestTemplate(RequestSpec.Get, [Target], null, null);
        var context = new SendContext(template, checks, new RequestFailures(_stop.Token), _stop.Token);
        _sender = new RequestSender(context, recorders, new InFlightRequests(1), new MeasurementWindow(recorders, null), null,
            FeedOrder.Circular);
        var connection = new Http11Connection(new IPEndPoint(IPAddress.Loopback, Target.Port), _stop.Token, () => _socket);
        _worker = new LoadWorker(0, 1, connection, _stop.Token);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _worker.Connection?.Dispose();
        _stop.Dispose();
    }

    [Benchmark]
    public bool Request()
    {
        // The open model's intended time is a little in the past, as a request sent on schedule finds it.
        var pending = _sender.SendAsync(_worker, Open ? Stopwatch.GetTimestamp() - 100 : 0);
        _socket.Deliver();
        return pending.Result;
    }
}

/// <summary>
/// A closed-model user's requests in turn (<see cref="RequestSender.SendInTurnAsync"/>): the series is started once, and
/// each operation delivers one response, which the connection's one method records before it sends the next request
/// and waits again. The same step as <see cref="RequestStepBenchmarks"/>' closed case without its await of the exchange.
/// </summary>
[MemoryDiagnoser]
public class InTurnStepBenchmarks
{
    private static readonly Uri Target = new("http://127.0.0.1:5099/plaintext");

    private CannedSocket _socket = null!;
    private CancellationTokenSource _stop = null!;
    private LoadWorker _worker = null!;
    private Task _series = Task.CompletedTask;

    [Params("plaintext", "info", "info-split")]
    public string Response { get; set; } = "plaintext";

    [GlobalSetup]
    public void Setup()
    {
        _stop = new CancellationTokenSource();
        _socket = new CannedSocket(Responses.Pieces(Response));
        var recorders = new RecorderSet(uncorrected: false);
        var checks = new ResponseChecks(recorders.ErrorStatus, null);
        var template = new RequestTemplate(RequestSpec.Get, [Target], null, null);
        var context = new SendContext(template, checks, new RequestFailures(_stop.Token), _stop.Token);
        var sender = new RequestSender(context, recorders, new InFlightRequests(1), new MeasurementWindow(recorders, null), null,
            FeedOrder.Circular);
        var connection = new Http11Connection(new IPEndPoint(IPAddress.Loopback, Target.Port), _stop.Token, () => _socket);
        _worker = new LoadWorker(0, 1, connection, _stop.Token);
        _series = sender.SendInTurnAsync(_worker);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _stop.Cancel();
        _socket.Deliver(); // the waiting request's answer: recorded, and the stopped run sends no other
        _series.Wait(TimeSpan.FromSeconds(5));
        _worker.Connection?.Dispose();
        _stop.Dispose();
    }

    [Benchmark]
    public bool Request()
    {
        _socket.Deliver();
        return _series.IsCompleted;
    }
}
