using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Hosts;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.SutProcesses;
using PerfLab.Experiments.Running.Databases;

namespace PerfLab.Experiments.Running;

/// <summary>Which run a record belongs to: its variant, its block (repetition), its place in the order, its start.</summary>
public sealed record RunIdentity(string Variant, int Repetition, int Order, DateTimeOffset StartedAt);

/// <summary>Why a run failed: a kind the runner acts on, the reason in words, and what the SUT said.</summary>
public sealed record RunFailure(FailureKind Kind, string Reason, string? LogTail = null, IReadOnlyDictionary<string, string>? Info = null);

/// <summary>The counters of a measured window: each counter's average, starvation injections, the per-second timeline.</summary>
public sealed record CounterWindow(IReadOnlyDictionary<string, double> Averages, int StarvationInjections,
    IReadOnlyList<TimelinePoint> Timeline);

/// <summary>Turns what a measurement produced (load result, upload times, counters) into the result model's records.</summary>
public static class RunRecordBuilder
{
    public static RunRecord FromLoad(RunIdentity id, IReadOnlyDictionary<string, string> info, LoadResult load, CounterRecording? recording)
    {
        var window = Join(recording, load.MeasuredFromUtc, load.EndedUtc, load.Scenarios.SelectMany(s => s.Timeline));
        return Ok(id, info, window) with
        {
            Scenarios = load.Scenarios.Select(s => Stats(s) with
            {
                InFlightAtEnd = s.InFlightAtEnd,
                InFlightOldestMs = s.InFlightOldestMs,
                BoundedByWindow = s.BoundedByWindow,
            }).ToList(),
            GeneratorCpuPercent = load.Generator.CoresUsed * 100,
            GeneratorSaturated = load.Generator.Saturated,
            BatchTimesMs = load.Scenarios.SelectMany(s => s.Burst?.BatchMs ?? []).ToList(),
            WarmupSeconds = load.WarmupSeconds,
            Settled = load.Settled,
            Database = DatabaseClientWindow.From(recording, load.MeasuredFromUtc, load.EndedUtc, load.Scenarios.Sum(s => s.Requests),
                load.Scenarios.SelectMany(s => s.Timeline)),
        };
    }

    /// <summary>The run with each generator's own figures, when its load came from more than this process.</summary>
    public static RunRecord WithGenerators(RunRecord record, IReadOnlyList<GeneratorFigures> generators) => generators.Count == 0
        ? record
        : record with
        {
            Generators = [.. generators.Select(g => new GeneratorRecord(g.Host, g.Requests, g.RequestsPerSecond, g.P50Ms, g.P99Ms,
                g.CoresUsed * 100, g.Cores, g.Saturated))],
        };

    public static RunRecord Failed(RunIdentity id, RunFailure failure) =>
        Empty(id, RunStatus.Failed, failure.Info ?? new Dictionary<string, string>()) with
        {
            FailureKind = failure.Kind,
            FailureReason = failure.Reason,
            LogTail = failure.LogTail,
        };

    /// <summary>The run with what its variant check confirmed and could not confirm (nothing when the app did not start).</summary>
    public static RunRecord WithEffect(RunRecord record, VariantEffect? effect) => effect is null
        ? record
        : record with { Confirmed = effect.Confirmed, Unconfirmed = effect.Unconfirmed };

    /// <summary>A measured run that must not count (interrupted, the database went down): its figures are kept, marked failed.</summary>
    public static RunRecord MarkFailed(RunRecord record, FailureKind kind, string reason) =>
        record with { Status = RunStatus.Failed, FailureKind = kind, FailureReason = reason };

    private static RunRecord Ok(RunIdentity id, IReadOnlyDictionary<string, string> info, CounterWindow window) =>
        Empty(id, RunStatus.Ok, info) with
        {
            Counters = window.Averages,
            StarvationInjections = window.StarvationInjections,
            Timeline = window.Timeline,
        };

    private static RunRecord Empty(RunIdentity id, RunStatus status, IReadOnlyDictionary<string, string> info) => new()
    {
        Variant = id.Variant,
        Repetition = id.Repetition,
        Order = id.Order,
        Status = status,
        StartedAt = id.StartedAt,
        SutInfo = info,
        Scenarios = [],
        Counters = new Dictionary<string, double>(),
        StarvationInjections = 0,
        Timeline = [],
        GeneratorCpuPercent = 0,
        GeneratorSaturated = false,
    };

    /// <summary>A load scenario's figures as results.json keeps them.</summary>
    public static ScenarioStats Stats(ScenarioResult s) => Stats(s.Name, s.Requests, s.RequestsPerSecond, s.Latency) with
    {
        BytesReceived = s.BytesReceived,
        Errors = s.Errors.Total,
        ErrorsByKind = s.Errors.ByKind,
        UncorrectedP99Ms = s.UncorrectedLatency?.P99Ms,
    };

    /// <summary>A scenario's figures from its latencies alone (no bytes, no errors counted).</summary>
    public static ScenarioStats Stats(string name, long requests, double rps, LatencyStats latency) => new()
    {
        Scenario = name,
        Requests = requests,
        Rps = rps,
        MeanMs = latency.MeanMs,
        StdDevMs = latency.StdDevMs,
        MinMs = latency.MinMs,
        P50Ms = latency.P50Ms,
        P75Ms = latency.P75Ms,
        P90Ms = latency.P90Ms,
        P95Ms = latency.P95Ms,
        P99Ms = latency.P99Ms,
        P999Ms = latency.P999Ms,
        MaxMs = latency.MaxMs,
        BytesReceived = 0,
        Errors = 0,
    };

    /// <summary>
    /// The counters of the measured window [<paramref name="measuredFrom"/>, <paramref name="ended"/>] (whole UTC
    /// seconds, both ends included): each counter's average, the starvation injections, and the per-second timeline
    /// with the load's figures of the same UTC second beside them (scenarios summed; warm-up seconds left out).
    /// </summary>
    public static CounterWindow Join(CounterRecording? recording, DateTimeOffset measuredFrom, DateTimeOffset ended,
        IEnumerable<LoadSecond> loadPoints)
    {
        var from = measuredFrom.ToUnixTimeSeconds();
        var to = ended.ToUnixTimeSeconds();
        var loadSeconds = loadPoints.Where(p => !p.Warmup).GroupBy(p => p.UnixSecond).ToDictionary(g => g.Key, g => g.ToList());
        var samples = recording?.Samples.Where(s => s.UnixSeconds >= from && s.UnixSeconds <= to).ToList() ?? [];
        var averages = samples.SelectMany(s => s.Values.Keys).Distinct().ToDictionary(
            name => name,
            name => samples.Select(s => s.Get(name)).OfType<double>().DefaultIfEmpty(double.NaN).Average());
        var starvation = recording?.Adjustments.Count(a => a.Reason == CounterNames.StarvationReason
            && a.UnixMs >= measuredFrom.ToUnixTimeMilliseconds() && a.UnixMs <= ended.ToUnixTimeMilliseconds()) ?? 0;
        var counterSeconds = samples.ToDictionary(s => s.UnixSeconds, s => s.Values);
        var seconds = loadSeconds.Keys.Concat(counterSeconds.Keys).Where(s => s >= from && s <= to).Distinct().Order();
        var timeline = seconds.Select(second =>
        {
            var points = loadSeconds.GetValueOrDefault(second) ?? [];
            return new TimelinePoint
            {
                Second = (int)(second - from),
                Rps = points.Sum(p => p.RequestsPerSecond),
                P50Ms = points.Count > 0 ? points.Max(p => p.P50Ms) : 0,
                P99Ms = points.Count > 0 ? points.Max(p => p.P99Ms) : 0,
                Errors = points.Sum(p => p.Errors),
                Users = points.Sum(p => p.ActiveUsers),
                Counters = counterSeconds.GetValueOrDefault(second) ?? new Dictionary<string, double>(),
            };
        }).ToList();
        return new CounterWindow(averages.Where(p => double.IsFinite(p.Value)).ToDictionary(p => p.Key, p => p.Value), starvation,
            timeline);
    }

    /// <summary>What /info reported, as the flat map results.json keeps.</summary>
    public static IReadOnlyDictionary<string, string> Flatten(SutInfo info) => info.ToMap();
}
