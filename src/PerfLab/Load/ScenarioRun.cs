using System.Diagnostics;

namespace PerfLab.Load;

/// <summary>
/// The live state of one scenario during a run: its URLs, its recorders, its stop signal, and the parts that do the
/// work: <see cref="MeasurementWindow"/> (the measured window, the request budget, the active users) and
/// <see cref="RequestSender"/> (one request at a time). Plain http:// targets over HTTP/1.1 go through
/// <see cref="Http11Connections"/>, one per user; https:// and HTTP/2 through <see cref="ClientTransport"/>.
/// </summary>
internal sealed class ScenarioRun : IDisposable
{
    private static readonly double s_microsPerTick = 1_000_000.0 / Stopwatch.Frequency;

    private readonly CancellationTokenSource _stop;
    private readonly MeasurementWindow _window;
    private readonly RequestFailures _failures;
    private readonly RequestSender _sender;
    private readonly Http11Connections? _connections;
    private readonly ClientTransport? _client;

    public ScenarioRun(ScenarioPlan plan, ResolvedFeed feed, LoadPlan loadPlan, CancellationToken runStop)
    {
        var uris = feed.Uris;
        Plan = plan;
        Uris = uris;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(runStop);
        var errorStatus = plan.Request.Check?.Statuses is { } expected
            ? RecordingSnapshot.ErrorStatuses(expected)
            : RecordingSnapshot.DefaultErrorStatus;
        Recorders = new RecorderSet(uncorrected: plan.Model is OpenModel, errorStatus);
        _window = new MeasurementWindow(Recorders, plan.MaxRequests);
        InFlight = new InFlightRequests(plan.Model.Concurrency);
        _failures = new RequestFailures(_stop.Token);
        var checks = new ResponseChecks(Recorders.ErrorStatus, plan.Request.Check?.Json is { Count: > 0 } json ? [.. json] : null);
        var context = new SendContext(
            new RequestTemplate(plan.Request, uris, feed.Values, feed.Placeholder), checks, _failures, _stop.Token);
        if (!loadPlan.Http2 && uris.All(u => u.Scheme == Uri.UriSchemeHttp && u.Authority == uris[0].Authority))
        {
            _connections = new Http11Connections(uris[0], loadPlan.Timeout, checks.KeepsBody, _stop.Token);
        }
        else
        {
            _client = new ClientTransport(context, loadPlan, plan.Model.Concurrency);
        }
        // Registered after the connections' abort, so it runs first (callbacks run in reverse order): the picture
        // before the aborts.
        _stop.Token.Register(InFlight.Capture);
        _sender = new RequestSender(context, Recorders, InFlight, _window, _client, plan.Feed.Order);
    }

    /// <summary>
    /// How requests travel: "HTTP/1.1 sockets, inline completions",
    /// "HTTP/1.1 sockets", or "HttpClient, HTTP/2" (or HTTP/1.1).
    /// </summary>
    public string Transport => _client?.Name ?? Http11Connections.Name;

    /// <summary>Whether its requests travel on the lab's event loops (HTTP/1.1 where the platform has them).</summary>
    public bool OnLoops => _client is null && Sockets.EpollLoop.Available;

    public ScenarioPlan Plan { get; }
    public Uri[] Uris { get; }
    public RecorderSet Recorders { get; }
    public InFlightRequests InFlight { get; }
    public CancellationToken Stop => _stop.Token;
    public RecordingSnapshot Baseline => _window.Baseline;
    public long MeasureStart => _window.MeasureStart;
    public long MeasureEnd { get => _window.MeasureEnd; set => _window.MeasureEnd = value; }
    public bool Measuring => _window.Measuring;
    public int ActiveUsers => _window.ActiveUsers;
    public bool BudgetExhausted => _window.BudgetExhausted;
    /// <summary>The message of the first transport error, kept to explain a target that never answered.</summary>
    public string? FirstError => _failures.First;

    /// <summary>A failed request of a runner that sends its own (uploads) sorted as the engine's are; the first one kept.</summary>
    public RequestOutcome Fail(Exception ex, bool timedOut) => _failures.Classify(ex, timedOut);

    public void StopAfter(TimeSpan delay) => _stop.CancelAfter(delay);

    public void StopNow() => _stop.Cancel();

    public void BeginMeasurement() => _window.Begin();

    public void UserStarted() => _window.UserStarted();

    public void UserStopped() => _window.UserStopped();

    /// <summary>Warm-up requests are free; measured ones draw from the request budget (-n).</summary>
    public bool TryTakeBudget() => _window.TryTakeBudget();

    /// <summary>A new user's connection, watched by this run; null when the scenario goes through HttpClient.</summary>
    public Http11Connection? OpenConnection() => _connections?.Open();

    /// <inheritdoc cref="RequestSender.SendAsync"/>
    public ValueTask<bool> SendAsync(LoadWorker worker, long intended) => _sender.SendAsync(worker, intended);

    /// <inheritdoc cref="RequestSender.SendInTurnAsync"/>
    public Task SendInTurnAsync(LoadWorker worker) => _sender.SendInTurnAsync(worker);

    public static long ToMicros(long ticks) => (long)(ticks * s_microsPerTick);

    public void Dispose()
    {
        _connections?.Dispose();
        _client?.Dispose();
        _stop.Dispose();
    }
}
