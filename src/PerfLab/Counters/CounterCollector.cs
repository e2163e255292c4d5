using System.Diagnostics.Tracing;
using System.Globalization;
using System.Runtime.CompilerServices;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using PerfLab.Common;

namespace PerfLab.Counters;

/// <summary>
/// Attaches to a .NET process over EventPipe and records its counters, once per interval, until the duration elapses,
/// the token is cancelled or the process exits. The runner starts <see cref="CollectAsync"/> next to the load and
/// cancels it to stop: cancellation is an ordinary ending, the recording is returned, not thrown away.
/// </summary>
public static class CounterCollector
{
    private const long ThreadingKeyword = 0x10000;
    private const long TimeSeriesValuesKeyword = 0x2;
    private const string SharedMetricsSession = "SHARED";
    private const string MetricsProvider = "System.Diagnostics.Metrics";
    private static readonly TimeSpan _stopBudget = TimeSpan.FromMilliseconds(700);

    /// <exception cref="PerfLabException">The pid is not an attachable .NET
    /// process (Unreachable), or the options are wrong (Usage).</exception>
    public static async Task<CounterRecording> CollectAsync(
        int pid, CounterOptions options, IProgress<CounterSample>? progress, CancellationToken ct)
    {
        options = Checked(options);
        var target = DotnetProcesses.EnsureAttachable(pid);
        var runtime = DotnetProcesses.RuntimeVersion(pid);
        var (useMeter, useRuntimeEventCounters) = Sources(options, runtime);

        // .NET 8+ runs one metrics session per process; "SHARED" lets several clients (another perflab, dotnet-counters)
        // read it together as long as they ask for the same interval. Older runtimes take a private session id.
        var sessionId = runtime is { Major: < 8 } ? Guid.NewGuid().ToString() : SharedMetricsSession;
        var clientId = Guid.NewGuid().ToString();
        var store = new SampleStore(options.Interval.TotalSeconds, CounterCatalog.Of(options.Providers));
        var providers = Providers(options, sessionId, clientId, useMeter, useRuntimeEventCounters);

        var startedUnixMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        EventPipeSession session;
        try
        {
            var client = new DiagnosticsClient(pid);
            session = await client.StartEventPipeSessionAsync(providers, requestRundown: false, circularBufferMB: 16, ct)
                .ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return Recording(target, runtime, options, store, startedUnixMs, CollectionEnding.Cancelled,
                "cancelled before the session started");
        }
        catch (Exception ex) when (ex is ServerNotAvailableException or DiagnosticsClientException or IOException or TimeoutException
            or UnauthorizedAccessException)
        {
            throw new PerfLabException(
                $"cannot attach to process {pid.ToString(CultureInfo.InvariantCulture)} ({target.Name}): {ex.Message}",
                ExitCode.Unreachable, ex);
        }

        using (session)
        {
            var listening = new Listening(options.Listening);
            if (!providers.Any(p => p.Name == MetricsProvider))
            {
                listening.Now();
            }
            var routing = new EventRouting(store, sessionId, clientId, listening);
            var (ending, detail) = await RecordAsync(session, routing, pid, options, progress, ct)
                .ConfigureAwait(false);
            return Recording(target, runtime, options, store, startedUnixMs, ending, detail);
        }
    }

    // The options as the collector works on them: the provider names as --counters reads them (any case, a repeat
    // once) turned into the canonical list, and the limits checked before anything attaches.
    private static CounterOptions Checked(CounterOptions options)
    {
        if (options.Interval < TimeSpan.FromMilliseconds(100) || options.Interval > TimeSpan.FromHours(1))
        {
            throw new PerfLabException("the counter interval must be between 0.1 s and 1 h.", ExitCode.Usage);
        }
        if (options.Duration is { } d && d <= TimeSpan.Zero)
        {
            throw new PerfLabException("the collection duration must be positive.", ExitCode.Usage);
        }
        return options with
        {
            Providers = CounterCatalog.ParseProviders(options.Providers, out var providerError)
                ?? throw new PerfLabException("the counter providers: " + providerError, ExitCode.Usage),
        };
    }

    private static (bool UseMeter, bool UseRuntimeEventCounters) Sources(CounterOptions options, Version? runtime) =>
        !options.Providers.Contains(CounterCatalog.RuntimeEventSource) ? (false, false) : options.Source switch
        {
            RuntimeCounterSource.Meter => (true, false),
            RuntimeCounterSource.EventCounters => (false, true),
            // The System.Runtime meter appeared in .NET 9. Unknown version: ask both, the meter wins where it answers.
            _ => runtime is null ? (true, true) : (runtime.Major >= 9, runtime.Major < 9),
        };

    private sealed record EventRouting(SampleStore Store, string SessionId, string ClientId, Listening Listening);

    // The options' callback, called once: when the meters' session reports its first enumeration of the instruments
    // done (InitialInstrumentEnumerationComplete, .NET 8+), or on its first value from an older runtime.
    private sealed class Listening(Action? callback)
    {
        private int _called;

        public void Now()
        {
            if (Interlocked.Exchange(ref _called, 1) == 0)
            {
                callback?.Invoke();
            }
        }

        public void OnEvent(TraceEvent e, string sessionId)
        {
            if (_called == 0 && e.ProviderName == MetricsProvider && (e.PayloadByName("sessionId") as string) == sessionId
                && e.EventName is "InitialInstrumentEnumerationComplete" or "CollectionStart" or "CounterRateValuePublished"
                    or "UpDownCounterRateValuePublished" or "GaugeValuePublished" or "HistogramValuePublished")
            {
                Now();
            }
        }
    }

    // Reads the session on a thread of its own and emits samples as they ripen, until the duration or the token ends
    // the collection (an ordinary ending) or the stream closes (the process exited, or the session broke).
    private static async Task<(CollectionEnding Ending, string? Detail)> RecordAsync(EventPipeSession session, EventRouting routing,
        int pid, CounterOptions options, IProgress<CounterSample>? progress, CancellationToken ct)
    {
        var store = routing.Store;
        var streamError = new StrongBox<Exception?>();
        var reading = Task.Factory.StartNew(() => Read(session, routing, streamError),
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        if (options.Duration is { } duration)
        {
            stop.CancelAfter(duration);
        }
        while (!reading.IsCompleted && !stop.IsCancellationRequested)
        {
            try
            {
                await Task.WhenAny(reading, Task.Delay(100, stop.Token)).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
            }
            store.EmitRipe(progress);
        }

        (CollectionEnding, string?) result;
        if (reading.IsCompleted)
        {
            var alive = await ExitsWithinAsync(pid, TimeSpan.FromSeconds(2)).ConfigureAwait(false) == false;
            result = alive
                ? (CollectionEnding.Disconnected, "the event stream ended while the process was still running"
                    + (streamError.Value is { } e ? ": " + e.Message : ""))
                : (CollectionEnding.ProcessExited, $"process {pid.ToString(CultureInfo.InvariantCulture)} exited during collection");
        }
        else
        {
            result = (ct.IsCancellationRequested ? CollectionEnding.Cancelled : CollectionEnding.Completed, null);
            await StopAsync(session, reading).ConfigureAwait(false);
        }
        store.EmitRipe(progress, all: true);
        return result;
    }

    private static void Read(EventPipeSession session, EventRouting routing, StrongBox<Exception?> error)
    {
        try
        {
            using var source = new EventPipeEventSource(session.EventStream);
            source.Dynamic.All += e =>
            {
                routing.Listening.OnEvent(e, routing.SessionId);
                routing.Store.OnDynamicEvent(e, routing.SessionId, routing.ClientId);
            };
            // Only arrive when System.Runtime was asked for (see Providers).
            source.Clr.ThreadPoolWorkerThreadAdjustmentAdjustment += routing.Store.OnAdjustment;
            source.Process();
        }
        catch (Exception ex)
        {
            error.Value = ex;
        }
    }

    // The runtime closes the stream as it starts shutting down, a moment before the process is gone.
    private static async Task<bool> ExitsWithinAsync(int pid, TimeSpan wait)
    {
        var deadline = DateTime.UtcNow + wait;
        while (DotnetProcesses.IsAlive(pid))
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }
            await Task.Delay(50).ConfigureAwait(false);
        }
        return true;
    }

    // A stop command lets the runtime flush what it buffered; if the target does not answer quickly (it may be
    // suspended or dying), closing the stream ends the reader anyway, so Ctrl+C never waits more than about a second.
    private static async Task StopAsync(EventPipeSession session, Task reading)
    {
        using var budget = new CancellationTokenSource(_stopBudget);
        try
        {
            await session.StopAsync(budget.Token).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is OperationCanceledException or ServerNotAvailableException or DiagnosticsClientException
            or IOException or TimeoutException)
        {
        }
        if (await Task.WhenAny(reading, Task.Delay(_stopBudget)).ConfigureAwait(false) != reading)
        {
            session.EventStream.Dispose();
            await Task.WhenAny(reading, Task.Delay(_stopBudget)).ConfigureAwait(false);
        }
    }

    private static List<EventPipeProvider> Providers(CounterOptions options, string sessionId, string clientId, bool useMeter,
        bool useRuntimeEventCounters)
    {
        var interval = options.Interval.TotalSeconds.ToString(CultureInfo.InvariantCulture);
        var counterArgs = new Dictionary<string, string> { ["EventCounterIntervalSec"] = interval };
        // Level Critical turns the counters on without the sources' per-request Informational events (Hosting's
        // RequestStart/Stop, Kestrel's connection events): EventCounters payloads are written at LogAlways. Enabled at
        // any level, Hosting and Kestrel still do their per-request bookkeeping, the price of their counters.
        var eventSources = options.Providers.Where(p => p != CounterCatalog.NpgsqlMeter
            && (p != CounterCatalog.RuntimeEventSource || useRuntimeEventCounters));
        var providers = eventSources.Select(p => new EventPipeProvider(p, EventLevel.Critical, 0, counterArgs)).ToList();
        // Npgsql has a meter only, on every runtime: it shares the one metrics session with System.Runtime's.
        var npgsql = options.Providers.Contains(CounterCatalog.NpgsqlMeter);
        var meters = new[] { useMeter ? CounterCatalog.RuntimeMeter : null, npgsql ? CounterCatalog.NpgsqlMeter : null }.OfType<string>()
            .ToList();
        if (meters.Count > 0)
        {
            providers.Add(new(MetricsProvider, EventLevel.Informational, TimeSeriesValuesKeyword,
                new Dictionary<string, string>
                {
                    ["SessionId"] = sessionId,
                    ["Metrics"] = string.Join(',', meters),
                    ["RefreshInterval"] = interval,
                    ["MaxTimeSeries"] = "1000",
                    ["MaxHistograms"] = "10",
                    ["ClientId"] = clientId,
                }));
        }
        if (useMeter || useRuntimeEventCounters)
        {
            // The thread-pool adjustments come with the runtime's counters.
            providers.Add(new("Microsoft-Windows-DotNETRuntime", EventLevel.Informational, ThreadingKeyword));
        }
        return providers;
    }

    private static CounterRecording Recording(DotnetProcess target, Version? runtime, CounterOptions options, SampleStore store,
        long startedUnixMs, CollectionEnding ending, string? detail) => new()
        {
            ProcessId = target.ProcessId,
            ProcessName = target.Name,
            RuntimeVersion = runtime?.ToString(),
            IntervalSeconds = options.Interval.TotalSeconds,
            StartedUnixMs = startedUnixMs,
            EndedUnixMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(),
            MetersTickUnixMs = store.MetersTick(),
            Ending = ending,
            EndingDetail = detail,
            Counters = store.Descriptors(),
            Samples = store.AllSamples(),
            Adjustments = store.Adjustments(),
            Warnings = store.Warnings(),
        };

    internal static long UnixMs(TraceEvent e) => new DateTimeOffset(e.TimeStamp).ToUnixTimeMilliseconds();
}
