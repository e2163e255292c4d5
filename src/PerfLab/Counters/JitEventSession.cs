using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace PerfLab.Counters;

/// <summary>
/// The runtime's JIT events of a process, read over an EventPipe session of their own: each method whose code is
/// published (MethodLoadVerbose, with the tier it was compiled at) and each batch of the background tier-1 worker.
/// Only the JIT and TieredCompilation keywords: a few hundred bytes per compiled method, nothing per request once the
/// code is final. Verbose level, because at Informational EventPipe delivers no method event at all (measured on
/// .NET 10: 109 MethodLoadVerbose events at Verbose, none at Informational, for the same 300 requests).
/// </summary>
public sealed class JitEventSession : IAsyncDisposable
{
    private const long JitKeyword = 0x10;
    private const long TieredCompilationKeyword = 0x1000000000;

    private readonly EventPipeSession _session;
    private readonly Task _reading;

    private JitEventSession(EventPipeSession session, Task reading)
    {
        _session = session;
        _reading = reading;
    }

    /// <summary>The session, or null when the process cannot be attached to (not .NET, gone, or refusing diagnostics).</summary>
    /// <param name="onCompiled">Called on the reader's thread with the event's time (Unix ms) and the code's tier.</param>
    /// <param name="onBackground">Called with -1 when the tier-1 worker
    /// starts a batch, with the methods still queued when it stops.</param>
    public static async Task<JitEventSession?> StartAsync(int pid, Action<long, OptimizationTier> onCompiled, Action<int> onBackground,
        CancellationToken ct)
    {
        EventPipeSession session;
        try
        {
            var provider = new EventPipeProvider("Microsoft-Windows-DotNETRuntime", EventLevel.Verbose,
                JitKeyword | TieredCompilationKeyword);
            session = await new DiagnosticsClient(pid)
                .StartEventPipeSessionAsync([provider], requestRundown: false, circularBufferMB: 16, ct)
                .ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is ServerNotAvailableException or DiagnosticsClientException or IOException or TimeoutException
            or UnauthorizedAccessException or OperationCanceledException)
        {
            return null;
        }
        var reading = Task.Factory.StartNew(() => Read(session, onCompiled, onBackground), CancellationToken.None,
            TaskCreationOptions.LongRunning, TaskScheduler.Default);
        return new JitEventSession(session, reading);
    }

    private static void Read(EventPipeSession session, Action<long, OptimizationTier> onCompiled, Action<int> onBackground)
    {
        try
        {
            using var source = new EventPipeEventSource(session.EventStream);
            source.Clr.MethodLoadVerbose += e => onCompiled(CounterCollector.UnixMs(e), e.OptimizationTier);
            source.Clr.TieredCompilationBackgroundJitStart += _ => onBackground(-1);
            source.Clr.TieredCompilationBackgroundJitStop += e => onBackground(e.PendingMethodCount);
            source.Process();
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or EndOfStreamException or InvalidOperationException)
        {
            // The process exited or the session was stopped: what was read stands.
        }
    }

    public async ValueTask DisposeAsync()
    {
        using var budget = new CancellationTokenSource(TimeSpan.FromMilliseconds(700));
        try
        {
            await _session.StopAsync(budget.Token).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is OperationCanceledException or ServerNotAvailableException or DiagnosticsClientException
            or IOException or TimeoutException)
        {
        }
        if (await Task.WhenAny(_reading, Task.Delay(700)).ConfigureAwait(false) != _reading)
        {
            _session.EventStream.Dispose();
            await Task.WhenAny(_reading, Task.Delay(700)).ConfigureAwait(false);
        }
        _session.Dispose();
    }
}
