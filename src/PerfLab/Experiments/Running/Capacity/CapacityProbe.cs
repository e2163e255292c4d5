using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Experiments.Running.Warmup;

namespace PerfLab.Experiments.Running.Capacity;

/// <summary>How each step runs: its measured window, warm-up, in-flight cap (null: from the rate and the SLO) and timeout.</summary>
public sealed record CapacityStepSettings(TimeSpan Duration, TimeSpan Warmup, int? Connections = null)
{
    /// <summary>Sends at least this share of the rate asked for, or the generator fell behind.</summary>
    public const double MinSentShare = 0.95;

    /// <summary>The most the first step's warm-up may last while it waits for the throughput to settle.</summary>
    public static readonly TimeSpan FirstWarmup = TimeSpan.FromSeconds(10);
}

/// <summary>
/// Runs one constant-rate step of a capacity search with the open-model load engine (latency from the intended send
/// time, as wrk2) and judges it against the SLO. <paramref name="scenario"/> gives the requests (URL, feed, method,
/// body, check); each step gives it an open model at the step's rate.
/// </summary>
public sealed class CapacityProbe(ScenarioPlan scenario, CapacitySlo slo, CapacityStepSettings settings)
{
    /// <summary>The probe of `perflab capacity URL`: plain GETs of one URL.</summary>
    /// <param name="load">Where the steps are sent from (`--hosts`: the file's generators, the URL the file's app host).</param>
    public static CapacityProbe ForUrl(string url, CapacitySlo slo, CapacityStepSettings settings, bool allowRemote = false,
        Hosts.LoadSource? load = null) =>
        new(new ScenarioPlan("capacity", LoadPlanBuilder.Open(1), RequestFeed.Single(url)), slo, settings)
        {
            AllowRemote = allowRemote,
            Load = load ?? Hosts.LoadSource.Here,
        };

    /// <summary>Told the edges of each step's measured window (a cost meter); null: none.</summary>
    public IWindowProbe? Probe { get; init; }

    /// <summary>The target may be off loopback: `--allow-remote`, or an app perflab placed on a host of a hosts file.</summary>
    public bool AllowRemote { get; init; }

    /// <summary>Where each step's load is sent from: this process, or a hosts file's generators (their shares merged).</summary>
    public Hosts.LoadSource Load { get; init; } = Hosts.LoadSource.Here;

    public async Task<(CapacityStep Step, LoadResult Load)> RunAsync(int index, string phase, double rate, CancellationToken ct)
    {
        var model = new OpenModel(rate, Connections(rate));
        // The first step also warms up the target and the generator (JIT, connections): it warms up until the
        // throughput has settled (at most FirstWarmup), so a cold start does not read as a break.
        var first = index == 1;
        var warmup = first && settings.Warmup < CapacityStepSettings.FirstWarmup ? CapacityStepSettings.FirstWarmup : settings.Warmup;
        var plan = new LoadPlan([scenario with { Model = model }], settings.Duration, warmup,
            TimeSpan.FromMilliseconds(Math.Max(5_000, 10 * slo.LimitMs)))
        {
            WarmupUntilSteady = first,
            Probe = Probe,
            AllowRemote = AllowRemote,
        };
        var load = (await Load.SendAsync(plan, ct).ConfigureAwait(false)).Merged;
        return (Judge(index, phase, rate, load), load);
    }

    /// <summary>
    /// Enough connections for the rate at twice the SLO's latency (Little's law) plus a margin, so the cap is reached
    /// only once the target is already past its SLO; at most 4,096.
    /// </summary>
    public int Connections(double rate) =>
        settings.Connections ?? (int)Math.Min(4_096, Math.Ceiling(rate * 2 * slo.LimitMs / 1000) + 16);

    public CapacityStep Judge(int index, string phase, double rate, LoadResult load)
    {
        var s = load.Scenarios[0];
        // The share of the schedule actually sent, times the rate: the same window as the schedule's own count.
        var sent = s.Open is { Scheduled: > 0 } open ? rate * open.Sent / open.Scheduled : 0;
        var stats = RunRecordBuilder.Stats(s);
        var latency = s.Latency.Count > 0 ? slo.LatencyOf(stats) : double.NaN;
        var errors = s.Requests > 0 ? 100.0 * s.Errors.Total / s.Requests : 100;
        var rise = LatencyTrend.RiseMs(s.Timeline);
        var trending = LatencyTrend.IsUpward(s.Timeline, slo.LimitMs);
        var latencyHolds = slo.Latency.Holds(latency);
        // Behind schedule while the target kept within its SLO: the generator, not the target, was the limit.
        var generator = load.Generator.Saturated || (sent < CapacityStepSettings.MinSentShare * rate && latencyHolds && !trending);
        var reasons = new List<string>();
        if (load.Incomplete)
        {
            reasons.Add($"ended early: {load.IncompleteReason}");
        }
        if (!latencyHolds)
        {
            reasons.Add(Invariant($"{slo.Latency.Metric} {latency:0.#} ms breaks {slo.Latency.Text}"));
        }
        if (!slo.Errors.Holds(errors))
        {
            reasons.Add(Invariant($"errors {errors:0.##} % break {slo.Errors.Text}") + ErrorKinds(s.Errors));
        }
        if (trending)
        {
            reasons.Add(Invariant($"latency climbed {rise:0} ms within the step (queue growing)"));
        }
        if (generator)
        {
            reasons.Add(load.Generator.Saturated
                ? Invariant($"generator saturated ({load.Generator.CoresUsed:0.0} of {load.Generator.AvailableCores} cores)")
                : Invariant($"generator sent only {sent:0.#} of {rate:0.#} RPS"));
        }
        return new CapacityStep(index, phase, rate, sent, s.RequestsPerSecond, s.Requests, latency, s.Latency.P50Ms, s.Latency.P99Ms,
            errors, rise, trending, generator, load.Incomplete, reasons.Count == 0,
            reasons.Count == 0 ? "holds" : string.Join("; ", reasons))
        {
            MachineLoad = MachineLoad.OneMinute(),
        };
    }

    private static string ErrorKinds(ErrorCounts errors) => errors.ByKind.Count == 0 ? ""
        : " (" + string.Join(", ", errors.ByKind.OrderByDescending(p => p.Value).Take(3).Select(p => Invariant($"{p.Key} {p.Value}")))
            + ")";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
