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
    private StepRig _rig = null!;

    [Params("plaintext", "info", "info-split")]
    public string Response { get; set; } = "plaintext";

    [Params(false, true)]
    public bool Open { get; set; }

    [GlobalSetup]
    public void Setup() => _rig = new StepRig(Response, Open);

    [GlobalCleanup]
    public void Cleanup() => _rig.Dispose();

    [Benchmark]
    public bool Request()
    {
        // The open model's intended time is a little in the past, as a request sent on schedule finds it.
        var pending = _rig.Sender.SendAsync(_rig.Worker, Open ? Stopwatch.GetTimestamp() - 100 : 0);
        _rig.Socket.Deliver();
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
    private StepRig _rig = null!;
    private Task _series = Task.CompletedTask;

    [Params("plaintext", "info", "info-split")]
    public string Response { get; set; } = "plaintext";

    [GlobalSetup]
    public void Setup()
    {
        _rig = new StepRig(Response, open: false);
        _series = _rig.Sender.SendInTurnAsync(_rig.Worker);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _rig.Stop.Cancel();
        _rig.Socket.Deliver(); // the waiting request's answer: recorded, and the stopped run sends no other
        _series.Wait(TimeSpan.FromSeconds(5));
        _rig.Dispose();
    }

    [Benchmark]
    public bool Request()
    {
        _rig.Socket.Deliver();
        return _series.IsCompleted;
    }
}

/// <summary>One virtual user's sender and connection over a <see cref="CannedSocket"/> that answers with <c>response</c>.</summary>
internal sealed class StepRig : IDisposable
{
    private static readonly Uri Target = new("http://127.0.0.1:5099/plaintext");

    public StepRig(string response, bool open)
    {
        Socket = new CannedSocket(Responses.Pieces(response));
        var recorders = new RecorderSet(uncorrected: open);
        var checks = new ResponseChecks(recorders.ErrorStatus, null);
        var template = new RequestTemplate(RequestSpec.Get, [Target], null, null);
        var context = new SendContext(template, checks, new RequestFailures(Stop.Token), Stop.Token);
        Sender = new RequestSender(context, recorders, new InFlightRequests(1), new MeasurementWindow(recorders, null), null,
            FeedOrder.Circular);
        var connection = new Http11Connection(new IPEndPoint(IPAddress.Loopback, Target.Port), Stop.Token, () => Socket);
        Worker = new LoadWorker(0, 1, connection, Stop.Token);
    }

    public CancellationTokenSource Stop { get; } = new();
    public CannedSocket Socket { get; }
    public RequestSender Sender { get; }
    public LoadWorker Worker { get; }

    public void Dispose()
    {
        Worker.Connection?.Dispose();
        Stop.Dispose();
    }
}
