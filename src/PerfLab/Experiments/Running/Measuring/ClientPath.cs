using System.Net;
using PerfLab.Load;
using PerfLab.Network;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// The network path a load model asks in front of the app (<see cref="LoadModel.PathRtt"/>; seed 002's uploads): a
/// latency proxy on this machine holding every chunk half the round trip in each direction (a real delay on the wire,
/// not a sleep in the handler, bandwidth not limited), the scenario's requests sent to it, and the round trip measured
/// through it before the load. A plan whose models ask none goes straight to the app.
/// </summary>
internal sealed class ClientPath : IAsyncDisposable
{
    private readonly LatencyProxy? _proxy;
    private readonly TimeSpan _configured;
    private readonly TimeSpan _measured;

    private ClientPath(LoadPlan plan, LatencyProxy? proxy = null, TimeSpan configured = default, TimeSpan measured = default)
    {
        Plan = plan;
        _proxy = proxy;
        _configured = configured;
        _measured = measured;
    }

    /// <summary>The plan to send: the scenarios that ask a path addressed to the proxy.</summary>
    public LoadPlan Plan { get; }

    public static async Task<ClientPath> OpenAsync(LoadPlan plan, CancellationToken ct)
    {
        // One path per plan: a scenario that asks one runs alone (ExperimentLoader).
        if (plan.Scenarios.FirstOrDefault(s => s.Model.PathRtt is not null) is not { Model.PathRtt: { } rtt } asking)
        {
            return new ClientPath(plan);
        }
        var app = new Uri(asking.Feed.UrlTemplate);
        var target = IPAddress.TryParse(app.Host, out var address) ? address : IPAddress.Loopback;
        var proxy = await LatencyProxy.StartAsync(new IPEndPoint(target, app.Port), rtt / 2, ct);
        try
        {
            var measured = (await proxy.MeasureRoundTripsAsync(20, ct)).Median;
            var through = $"//{IPAddress.Loopback}:{proxy.Port}";
            var proxied = plan with
            {
                Scenarios = [.. plan.Scenarios.Select(s => s.Model.PathRtt is null ? s
                    : s with { Feed = s.Feed with { UrlTemplate = s.Feed.UrlTemplate.Replace("//" + app.Authority, through,
                        StringComparison.Ordinal) } })],
            };
            return new ClientPath(proxied, proxy, rtt, measured);
        }
        catch
        {
            await proxy.DisposeAsync();
            throw;
        }
    }

    /// <summary>The run's record with the path's round trip, configured and measured through it (none without a path).</summary>
    public RunRecord Recorded(RunRecord record) => _proxy is null
        ? record
        : record with { ConfiguredRttMs = _configured.TotalMilliseconds, MeasuredRttMs = _measured.TotalMilliseconds };

    public async ValueTask DisposeAsync()
    {
        if (_proxy is not null)
        {
            await _proxy.DisposeAsync();
        }
    }
}
