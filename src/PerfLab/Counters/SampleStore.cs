using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Common;

namespace PerfLab.Counters;

/// <summary>
/// Files every published value under the UTC second it was published in, and turns a second into a
/// <see cref="CounterSample"/> once no more values can arrive for it. Fed by the EventPipe reader thread, read by the
/// collector's loop: every member takes the lock.
/// </summary>
internal sealed class SampleStore(double intervalSeconds, IReadOnlyList<CounterDefinition> definitions)
{
    // EventPipe flushes its buffers to the stream about every 100 ms; a second is final well after that.
    private const double GraceSeconds = 0.5;
    private const string MeterSeries = "m|";
    private const string EventCounterSeries = "e|";

    private static readonly Dictionary<(string Source, string Name), CounterDefinition> _byEventCounter =
        CounterCatalog.All.ToDictionary(d => (d.EventSource, d.Name));
    private static readonly ILookup<string, (CounterDefinition Definition, MeterReading Reading)> _byInstrument =
        CounterCatalog.All.SelectMany(d => d.Readings.Select(r => (d, r))).ToLookup(p => p.r.Instrument);

    private readonly Lock _gate = new();
    private readonly SortedDictionary<long, Bucket> _buckets = [];
    private readonly Dictionary<string, CounterSource> _sources = [];
    private readonly List<ThreadPoolAdjustment> _adjustments = [];
    private readonly List<string> _warnings = [];
    private readonly Dictionary<string, double> _lastTotals = [];
    private long _emittedThrough = long.MinValue;
    private double _cpuCount = Environment.ProcessorCount;
    private readonly bool _countStarvation = definitions.Contains(CounterCatalog.Starvation);
    private readonly MeterIntervals _intervals = new();

    public void OnDynamicEvent(TraceEvent e, string sessionId, string clientId)
    {
        if (e.EventName == "EventCounters")
        {
            OnEventCounter(e);
        }
        else if (e.ProviderName == "System.Diagnostics.Metrics" && !_intervals.Take(e, sessionId))
        {
            OnMeterEvent(e, sessionId, clientId);
        }
    }

    public void OnAdjustment(ThreadPoolWorkerThreadAdjustmentTraceData e)
    {
        var unixMs = CounterCollector.UnixMs(e);
        var reason = CounterCatalog.AdjustmentReason((int)e.Reason);
        lock (_gate)
        {
            _adjustments.Add(new ThreadPoolAdjustment(unixMs, reason, e.NewWorkerThreadCount, e.AverageThroughput));
            if (reason == CounterNames.StarvationReason)
            {
                BucketAt(unixMs).StarvationInjections++;
            }
        }
    }

    public void EmitRipe(IProgress<CounterSample>? progress, bool all = false)
    {
        var ripe = new List<CounterSample>();
        var now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() / 1000.0;
        lock (_gate)
        {
            foreach (var (second, bucket) in _buckets)
            {
                if (second <= _emittedThrough)
                {
                    continue;
                }
                if (!all && second + 1 + GraceSeconds > now)
                {
                    break;
                }
                ripe.Add(Snapshot(second, bucket));
                _emittedThrough = second;
            }
        }
        foreach (var sample in ripe)
        {
            progress?.Report(sample);
        }
    }

    public IReadOnlyList<CounterSample> AllSamples()
    {
        lock (_gate)
        {
            return _buckets.Select(b => Snapshot(b.Key, b.Value)).ToList();
        }
    }

    /// <summary>The target's first metrics tick seen (<see cref="CounterRecording.MetersTickUnixMs"/>), null before one.</summary>
    public long? MetersTick() => _intervals.FirstTickUnixMs;

    public IReadOnlyList<ThreadPoolAdjustment> Adjustments()
    {
        lock (_gate)
        {
            return [.. _adjustments];
        }
    }

    public IReadOnlyList<string> Warnings()
    {
        lock (_gate)
        {
            return [.. _warnings];
        }
    }

    public IReadOnlyList<CounterDescriptor> Descriptors()
    {
        lock (_gate)
        {
            return definitions.Select(d =>
            {
                CounterSource? source = _sources.TryGetValue(d.Name, out var s) ? s : null;
                if (d == CounterCatalog.Starvation)
                {
                    source = CounterSource.RuntimeEvents;
                }
                var provider = source switch
                {
                    CounterSource.Meter => d.Meter!.Meter,
                    CounterSource.EventCounters or CounterSource.RuntimeEvents => d.EventSource,
                    _ => null,
                };
                return new CounterDescriptor(d.Name, d.DisplayName, d.Unit, d.Kind, source, provider);
            }).ToList();
        }
    }

    private void OnEventCounter(TraceEvent e)
    {
        if (e.PayloadValue(0) is not IDictionary<string, object> outer
            || !outer.TryGetValue("Payload", out var inner) || inner is not IDictionary<string, object> fields
            || !fields.TryGetValue("Name", out var name)
            || !_byEventCounter.TryGetValue((e.ProviderName, name?.ToString() ?? ""), out var definition))
        {
            return;
        }
        var isRate = fields.TryGetValue("CounterType", out var type) && "Sum".Equals(type);
        if (!fields.TryGetValue(isRate ? "Increment" : "Mean", out var raw))
        {
            return;
        }
        var value = Convert.ToDouble(raw, CultureInfo.InvariantCulture);
        if (definition.Kind == CounterKind.Rate && !isRate)
        {
            // A running total published as a polling counter (methods-jitted-count on every runtime's EventCounters):
            // the rate the catalog promises is its growth since the last publication; the first only sets the start.
            lock (_gate)
            {
                var known = _lastTotals.TryGetValue(definition.Name, out var last);
                _lastTotals[definition.Name] = value;
                if (!known)
                {
                    return;
                }
                value = Math.Max(0, value - last);
            }
            isRate = true;
        }
        Add(definition, CounterCollector.UnixMs(e), EventCounterSeries, value, isRate, CounterSource.EventCounters);
    }

    private void OnMeterEvent(TraceEvent e, string sessionId, string clientId)
    {
        switch (e.EventName)
        {
            case "CounterRateValuePublished" or "UpDownCounterRateValuePublished" or "GaugeValuePublished" or "HistogramValuePublished":
                break;
            case "MultipleSessionsNotSupportedError" when (e.PayloadByName("runningSessionId") as string) != sessionId:
            case "MultipleSessionsConfiguredIncorrectlyError" when (e.PayloadByName("clientId") as string) == clientId:
            case "Error" when (e.PayloadByName("sessionId") as string) == sessionId:
                lock (_gate)
                {
                    var payload = string.Join("; ", e.PayloadNames.Select((n, i) => n + "=" + e.PayloadValue(i)));
                    _warnings.Add($"System.Diagnostics.Metrics {e.EventName}: {payload}");
                }
                return;
            default:
                return;
        }
        if ((e.PayloadByName("sessionId") as string) != sessionId)
        {
            return;
        }

        var meter = e.PayloadByName("meterName") as string;
        var instrument = e.PayloadByName("instrumentName") as string ?? "";
        var tags = e.PayloadByName("tags") as string ?? "";
        var rate = Parse(e.PayloadByName("rate"));
        var value = e.EventName == "GaugeValuePublished" ? Parse(e.PayloadByName("lastValue")) : Parse(e.PayloadByName("value"));
        var unixMs = _intervals.FiledAt(CounterCollector.UnixMs(e));

        if (instrument == CounterCatalog.CpuCountInstrument && value is > 0)
        {
            lock (_gate)
            {
                _cpuCount = value.Value;
            }
            return;
        }

        foreach (var (definition, reading) in _byInstrument[instrument])
        {
            if (reading.Meter != meter || !TagMatches(reading, tags))
            {
                continue;
            }
            // An up-down counter publishes its current value in "value"; without one, the rate is all we have. A
            // histogram publishes its interval's count and sum (event version 1, .NET 8+) beside the quantiles.
            var figure = reading.Histogram switch
            {
                HistogramPart.Count => Number(e.PayloadByName("count")),
                HistogramPart.Sum => Number(e.PayloadByName("sum")),
                _ => reading.UseRate ? rate : value ?? rate,
            };
            if (figure is { } f)
            {
                Add(definition, unixMs, MeterSeries + tags, f * reading.Scale, reading.UseRate, CounterSource.Meter);
            }
        }
    }

    private void Add(CounterDefinition definition, long unixMs, string series, double value, bool isRate, CounterSource source)
    {
        lock (_gate)
        {
            var bucket = BucketAt(unixMs);
            if (source == CounterSource.Meter)
            {
                bucket.MetersSeen.Add(definition.Meter!.Meter);
            }
            var values = bucket.Values;
            if (!values.TryGetValue(definition.Name, out var bySeries))
            {
                values[definition.Name] = bySeries = [];
            }
            // Two publications in one second (timer jitter): increments add up, a gauge keeps its latest value.
            bySeries[series] = isRate && bySeries.TryGetValue(series, out var earlier) ? earlier + value : value;
            if (source == CounterSource.Meter || !_sources.ContainsKey(definition.Name))
            {
                _sources[definition.Name] = source;
            }
        }
    }

    private Bucket BucketAt(long unixMs)
    {
        var second = Math.DivRem(unixMs, 1000, out var rem) - (rem < 0 ? 1 : 0);
        if (!_buckets.TryGetValue(second, out var bucket))
        {
            _buckets[second] = bucket = new Bucket();
        }
        return bucket;
    }

    private CounterSample Snapshot(long second, Bucket bucket)
    {
        var values = new SortedDictionary<string, double>(StringComparer.Ordinal);
        foreach (var (name, bySeries) in bucket.Values)
        {
            var definition = CounterCatalog.All.First(d => d.Name == name);
            // Where both sources answered (runtime version unknown), the meter wins.
            var fromMeter = bySeries.Where(s => s.Key.StartsWith(MeterSeries, StringComparison.Ordinal)).ToList();
            if (fromMeter.Count > 0)
            {
                var sum = fromMeter.Sum(s => s.Value);
                values[name] = definition.Meter!.Transform switch
                {
                    MeterTransform.CpuPercent => sum / intervalSeconds / _cpuCount * 100,
                    MeterTransform.PercentOfInterval => sum / intervalSeconds * 100,
                    _ => sum,
                };
            }
            else
            {
                values[name] = bySeries.Values.Sum();
            }
        }
        // Only where the meter answered that second: a process that never loaded Npgsql shows no Npgsql zeros.
        foreach (var definition in definitions.Where(d => d.Meter is { ZeroUntilFirstMeasurement: true } m
            && bucket.MetersSeen.Contains(m.Meter)))
        {
            values.TryAdd(definition.Name, 0);
        }
        foreach (var name in values.Keys.ToList())
        {
            values[name] = Math.Round(values[name], 6);
        }
        if (_countStarvation)
        {
            values[CounterCatalog.StarvationCounter] = bucket.StarvationInjections;
        }
        return new CounterSample(second, values);
    }

    private static bool TagMatches(MeterReading reading, string tags)
    {
        if (reading.TagKey is null)
        {
            return true;
        }
        foreach (var pair in tags.Split(',', StringSplitOptions.RemoveEmptyEntries))
        {
            var eq = pair.IndexOf('=');
            if (eq > 0 && pair.AsSpan(0, eq).Trim().SequenceEqual(reading.TagKey))
            {
                return reading.TagValues!.Contains(pair[(eq + 1)..].Trim());
            }
        }
        return false;
    }

    private static double? Parse(object? text) =>
        text is string s && double.TryParse(s, NumberStyles.Float, CultureInfo.InvariantCulture, out var v) ? v : null;

    // The histogram's count and sum are typed payload fields (int, double), not the strings the other events carry.
    private static double? Number(object? field) => field switch
    {
        int i => i,
        long l => l,
        double d when double.IsFinite(d) => d,
        _ => Parse(field),
    };

    private sealed class Bucket
    {
        public Dictionary<string, Dictionary<string, double>> Values { get; } = [];
        public int StarvationInjections { get; set; }
        public HashSet<string> MetersSeen { get; } = [];
    }
}
